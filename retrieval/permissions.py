"""The asker's permissions as the two shapes the retrieval legs need: a Qdrant ``Filter``
object for the vector leg and a boolean mask over the keyword index's chunks. Both run
*inside* their leg, before top-k, never as a post-filter (a post-filter starves the asker
of results and leaks ranks). Both say exactly what ``docent.access.visible`` says, plus
the time rule: ``pending`` chunks only when asked for. Default deny: an unknown clearance
yields a filter that matches nothing and an all-false mask.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

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


def keyword_mask(
    chunks: Sequence[Chunk],
    principal: Principal,
    levels: Sequence[str],
    *,
    include_pending: bool,
    exclude_chunk_ids: Collection[str] = (),
) -> NDArray[np.bool_]:
    """True where the principal may see the chunk; aligned with ``chunks``."""
    excluded = frozenset(exclude_chunk_ids)
    if not readable_levels(principal, levels):
        return np.zeros(len(chunks), dtype=np.bool_)
    # The rule depends only on (level, groups); a corpus has few distinct pairs, so ask
    # ``visible`` once per pair rather than once per chunk.
    verdicts: dict[tuple[str, tuple[str, ...]], bool] = {}
    mask = np.zeros(len(chunks), dtype=np.bool_)
    for i, chunk in enumerate(chunks):
        key = (chunk.access_level, chunk.groups)
        seen = verdicts.get(key)
        if seen is None:
            seen = verdicts[key] = visible(principal, chunk.access_level, chunk.groups, levels)
        mask[i] = (
            seen and (include_pending or chunk.status != PENDING) and chunk.chunk_id not in excluded
        )
    return mask
