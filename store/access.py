"""The typed access filter: what one asker may read, as plain values every adapter
translates to its engine's own filter (and the keyword leg to a mask).

The rule itself is ``docent.access``'s: the readable levels come from
``readable_levels(principal, levels)``; a chunk naming groups needs one in common with the
asker; ``pending`` chunks only when asked for; excluded chunk ids never. Default deny: an
unknown clearance reads no level, so the filter matches nothing.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

from docent.access import readable_levels
from docent.contracts import Chunk, Principal

PENDING = "pending"


@dataclass(frozen=True)
class AccessFilter:
    levels: tuple[str, ...]  # readable levels; empty: nothing is readable
    groups: frozenset[str] = frozenset()
    include_pending: bool = False
    exclude_chunk_ids: frozenset[str] = frozenset()
    # Only chunks of this status (None: any): a question about a past version also searches
    # the superseded chunks alone, which today's wording outnumbers in a whole-index search.
    status: str | None = None

    @classmethod
    def for_principal(
        cls,
        principal: Principal,
        levels: Sequence[str],
        *,
        include_pending: bool,
        exclude_chunk_ids: Collection[str] = (),
    ) -> AccessFilter:
        return cls(
            levels=tuple(readable_levels(principal, levels)),
            groups=frozenset(principal.groups),
            include_pending=include_pending,
            exclude_chunk_ids=frozenset(exclude_chunk_ids),
        )

    @property
    def denies_all(self) -> bool:
        return not self.levels

    def allows_fields(
        self, access_level: str, groups: Iterable[str], status: str, chunk_id: str
    ) -> bool:
        required = set(groups)
        return (
            access_level in self.levels
            and (not required or bool(required & self.groups))
            and (self.include_pending or status != PENDING)
            and chunk_id not in self.exclude_chunk_ids
            and (self.status is None or status == self.status)
        )

    def allows(self, chunk: Chunk) -> bool:
        """The same rule as the engines' filters, on one chunk (a guard on every hit)."""
        return self.allows_fields(chunk.access_level, chunk.groups, chunk.status, chunk.chunk_id)
