"""The asker's permissions as the two shapes the retrieval legs need: a Qdrant ``Filter``
object for the vector leg and a boolean mask over the keyword index's chunks. Both run
*inside* their leg, before top-k, never as a post-filter (a post-filter starves the asker
of results and leaks ranks). Both say exactly what ``docent.access.visible`` says, plus
the time rule: ``pending`` chunks only when asked for. Default deny: an unknown clearance
yields a filter that matches nothing and an all-false mask.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from qdrant_client import models as qm

from docent.access import readable_levels, visible
from docent.contracts import Chunk, Principal
from ingest.vector_store import point_id

PENDING = "pending"


def deny_all() -> qm.Filter:
    """A filter no point satisfies: ``access_level`` in the empty set."""
    return qm.Filter(must=[qm.FieldCondition(key="access_level", match=qm.MatchAny(any=[]))])


def qdrant_filter(
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> qm.Filter:
    """The ACL as a typed Qdrant filter: level readable, groups open or shared, not pending
    (unless asked), not excluded."""
    readable = readable_levels(principal, levels)
    if not readable:
        return deny_all()
    # A chunk naming no groups is open to every cleared reader; IsEmpty covers a missing
    # field, null and [] alike.
    no_groups = qm.IsEmptyCondition(is_empty=qm.PayloadField(key="groups"))
    group_options: list[qm.Condition] = [no_groups]
    if principal.groups:
        group_options.append(
            qm.FieldCondition(key="groups", match=qm.MatchAny(any=sorted(principal.groups)))
        )
    must: list[qm.Condition] = [
        qm.FieldCondition(key="access_level", match=qm.MatchAny(any=list(readable))),
        qm.Filter(should=group_options),
    ]
    must_not: list[qm.Condition] = []
    if not include_pending:
        must_not.append(qm.FieldCondition(key="status", match=qm.MatchValue(value=PENDING)))
    if exclude_chunk_ids:
        must_not.append(
            qm.HasIdCondition(has_id=[point_id(c) for c in sorted(set(exclude_chunk_ids))])
        )
    return qm.Filter(must=must, must_not=must_not or None)


def chunk_allowed(
    chunk: Chunk,
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> bool:
    """One chunk through the same rule as the filter (used again on every hit, as a guard)."""
    return (
        visible(principal, chunk.access_level, chunk.groups, levels)
        and (include_pending or chunk.status != PENDING)
        and chunk.chunk_id not in exclude_chunk_ids
    )


@dataclass(frozen=True)
class AccessColumns:
    """The access fields of a list of chunks as columns. A mask then costs one ``visible``
    call per distinct (level, groups) pair, plus a few vector operations — a corpus has
    a handful of such pairs and thousands of chunks."""

    pairs: tuple[tuple[str, tuple[str, ...]], ...]
    pair_of: NDArray[np.int64]  # per chunk: its index into ``pairs``
    pending: NDArray[np.bool_]
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
        if not readable_levels(principal, levels):
            return np.zeros(len(self.pair_of), dtype=np.bool_)
        allowed = np.fromiter(
            (visible(principal, level, groups, levels) for level, groups in self.pairs),
            dtype=np.bool_,
            count=len(self.pairs),
        )
        mask: NDArray[np.bool_] = allowed[self.pair_of] if len(self.pairs) else allowed[:0]
        if not include_pending:
            mask = mask & ~self.pending
        excluded = [self.position[c] for c in exclude_chunk_ids if c in self.position]
        if excluded:
            mask = mask.copy()
            mask[excluded] = False
        return mask


def keyword_mask(
    chunks: Sequence[Chunk],
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> NDArray[np.bool_]:
    """True where the principal may see the chunk; aligned with ``chunks``."""
    return AccessColumns.of(chunks).mask(
        principal, levels, include_pending=include_pending, exclude_chunk_ids=exclude_chunk_ids
    )
