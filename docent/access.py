"""The one visibility rule, used by both retrieval legs and by every endpoint that returns text.

A principal may read a chunk iff its level is at or below the principal's clearance and
(the chunk names no groups, or the groups intersect). Anything unknown is denied.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from docent.contracts import Principal

DEFAULT_LEVELS: tuple[str, ...] = ("public", "employee", "confidential", "restricted")


def level_rank(level: str | None, levels: Sequence[str] = DEFAULT_LEVELS) -> int | None:
    """Position of ``level`` in the ordered levels, or None when it is not a known level."""
    if level is None:
        return None
    try:
        return list(levels).index(level)
    except ValueError:
        return None


def visible(
    principal: Principal | None,
    access_level: str | None,
    groups: Iterable[str] = (),
    levels: Sequence[str] = DEFAULT_LEVELS,
) -> bool:
    """Default deny: no principal, an unknown clearance or an unknown chunk level reads nothing."""
    if principal is None:
        return False
    need = level_rank(access_level, levels)
    have = level_rank(principal.clearance, levels)
    if need is None or have is None or need > have:
        return False
    required = set(groups)
    return not required or bool(required & principal.groups)


def readable_levels(principal: Principal, levels: Sequence[str] = DEFAULT_LEVELS) -> list[str]:
    """The level names a principal may read, lowest first (used to build index filters)."""
    have = level_rank(principal.clearance, levels)
    if have is None:
        return []
    return list(levels[: have + 1])
