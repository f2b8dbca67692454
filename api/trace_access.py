"""Who may read what a stored trace holds, or what was made from it.

A trace names every passage its ask retrieved (levels and groups stored with each) and every
document it showed. Free text made from an ask — a non-answer's ``missing`` words, which an
LLM answer stage writes itself and may quote from any passage it was given — travels into
handoffs and content gaps, where other people read it: it is shown to a reader only when
they may read everything its trace names, as it is now (``trace_text_readable``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy.orm import Session

from api.users import CurrentUser
from api.visibility import readable_sources
from docent.db.models import TraceRecord


def sources_named(value: object) -> set[str]:
    """Every ``source`` / ``sources`` value anywhere in a stored record (a trace payload):
    a field added to the trace later is walked too."""
    found: set[str] = set()
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key in ("source", "sources"):
                found.update(str(s) for s in (inner if isinstance(inner, list) else [inner]) if s)
            else:
                found |= sources_named(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= sources_named(inner)
    return found


def trace_readable(
    db: Session, user: CurrentUser, trace: Mapping[str, Any], levels: Sequence[str]
) -> bool:
    """True iff ``user`` may read everything a stored trace names: every chunk by the levels
    and groups stored with it (``generate.trace.visible_to``) and every document it names by
    the registry as it is now (a document raised above them since is hidden from then on)."""
    from generate.trace import visible_to

    if not visible_to(trace, user.principal, levels):
        return False
    named = sorted(sources_named(trace.get("payload") or {}))
    return len(readable_sources(db, user, named, levels)) == len(named)


def trace_text_readable(
    db: Session, user: CurrentUser, trace_id: str | None, levels: Sequence[str]
) -> bool:
    """Whether ``user`` may read text made from the ask of ``trace_id``: only when they may
    read everything that trace names. No trace to judge by (none recorded, or deleted since):
    no."""
    row = db.get(TraceRecord, trace_id) if trace_id else None
    return row is not None and trace_readable(db, user, stored_trace(row), levels)


def stored_trace(row: TraceRecord) -> dict[str, Any]:
    """What ``trace_readable`` reads of a stored trace row."""
    return {"payload": row.payload or {}, "max_access_level": row.max_access_level}
