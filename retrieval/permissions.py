"""The asker's permissions as the two shapes the retrieval legs need: a typed
``store.AccessFilter`` that each index adapter turns into its engine's filter (vector leg)
and a boolean mask over the keyword index's chunks. Both run *inside* their leg, before
top-k, never as a post-filter (a post-filter starves the asker of results and leaks ranks).
Both say exactly what ``docent.access.visible`` says, plus the time rule: ``pending``
chunks only when asked for. Default deny: an unknown clearance yields a filter that
matches nothing and an all-false mask.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk, Principal
from store.access import PENDING, AccessFilter


def access_filter(
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> AccessFilter:
    """The ACL as a typed filter: level readable, groups open or shared, not pending
    (unless asked), not excluded."""
    return AccessFilter.for_principal(
        principal, levels, include_pending=include_pending, exclude_chunk_ids=exclude_chunk_ids
    )


def chunk_allowed(
    chunk: Chunk,
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> bool:
    """One chunk through the same rule as the filter (used again on every hit, as a guard)."""
    return access_filter(
        principal, levels, include_pending=include_pending, exclude_chunk_ids=exclude_chunk_ids
    ).allows(chunk)


@dataclass(frozen=True)
class AccessColumns:
    """The access fields of a list of chunks as columns. A mask then costs one test of the
    access filter per distinct (level, groups) pair, plus a few vector operations — a corpus
    has a handful of such pairs and thousands of chunks."""

    pairs: tuple[tuple[str, tuple[str, ...]], ...]
    pair_of: NDArray[np.int64]  # per chunk: its index into ``pairs``
    pending: NDArray[np.bool_]
    status: NDArray[np.str_]
    position: Mapping[str, int]

    @classmethod
    def of(cls, chunks: Sequence[Chunk]) -> AccessColumns:
        index: dict[tuple[str, tuple[str, ...]], int] = {}
        pair_of = np.fromiter(
            (index.setdefault((c.access_level, c.groups), len(index)) for c in chunks),
            dtype=np.int64,
            count=len(chunks),
        )
        return cls(
            pairs=tuple(index),
            pair_of=pair_of,
            pending=np.fromiter(
                (c.status == PENDING for c in chunks), dtype=np.bool_, count=len(chunks)
            ),
            status=np.array([c.status for c in chunks], dtype=np.str_),
            position={c.chunk_id: i for i, c in enumerate(chunks)},
        )

    def mask(
        self,
        principal: Principal,
        levels: Sequence[str],
        *,
        include_pending: bool,
        exclude_chunk_ids: Collection[str] = (),
    ) -> NDArray[np.bool_]:
        return self.mask_for(
            access_filter(
                principal,
                levels,
                include_pending=include_pending,
                exclude_chunk_ids=exclude_chunk_ids,
            )
        )

    def mask_for(self, access: AccessFilter) -> NDArray[np.bool_]:
        if access.denies_all:
            return np.zeros(len(self.pair_of), dtype=np.bool_)
        # Status and exclusions are columns of their own; the pair test is the shared rule
        # (read with the status asked for, if any, so that only the column decides it).
        status = access.status or ""
        allowed = np.fromiter(
            (access.allows_fields(level, groups, status, "") for level, groups in self.pairs),
            dtype=np.bool_,
            count=len(self.pairs),
        )
        mask: NDArray[np.bool_] = allowed[self.pair_of] if len(self.pairs) else allowed[:0]
        if not access.include_pending:
            mask = mask & ~self.pending
        if access.status is not None:
            mask = mask & (self.status == access.status)
        excluded = [self.position[c] for c in access.exclude_chunk_ids if c in self.position]
        if excluded:
            mask = mask.copy()
            mask[excluded] = False
        return mask
