"""A real, in-memory implementation of ``SearcherLike`` over a fixed list of hits.

For tests and demos of the answer stage without an index: it applies the same contract a
real searcher does — the visibility rule, the threshold on ``score``, ``exclude_chunk_ids``,
``top_k``, pending documents left out unless asked for — and ranks by the order given.
It does not judge relevance: every hit is a candidate for every query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Hit, Principal


@dataclass(frozen=True)
class FixedSearchResult:
    hits: tuple[Hit, ...]
    cut: tuple[Hit, ...] = ()
    index_version: int = 0
    timings_ms: Mapping[str, float] = field(default_factory=dict)
    stages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    scope: str | None = None
    asked: str | None = None


class FixedSearcher:
    def __init__(
        self,
        hits: Sequence[Hit],
        *,
        top_k: int = 5,
        threshold: float = 0.0,
        include_pending: bool = False,
        levels: Sequence[str] = DEFAULT_LEVELS,
        index_version: int = 1,
    ) -> None:
        if top_k < 1:
            raise ValueError(f"top_k must be at least 1, got {top_k}")
        self.hits = tuple(hits)
        self.top_k = top_k
        self.threshold = threshold
        self.include_pending = include_pending
        self.levels = tuple(levels)
        self.index_version = index_version
        self.queries: list[str] = []

    def search(
        self,
        query: str,
        principal: Principal,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        include_pending: bool | None = None,
        exclude_chunk_ids: Sequence[str] = (),
    ) -> FixedSearchResult:
        self.queries.append(query)
        k = self.top_k if top_k is None else top_k
        floor = self.threshold if threshold is None else threshold
        pending = self.include_pending if include_pending is None else include_pending
        excluded = set(exclude_chunk_ids)
        candidates = [
            hit
            for hit in self.hits
            if visible(principal, hit.chunk.access_level, hit.chunk.groups, self.levels)
            and hit.chunk.chunk_id not in excluded
            and (pending or hit.chunk.status != "pending")
        ]
        ranked = [replace(hit, rank=n) for n, hit in enumerate(candidates, start=1)]
        passed = [hit for hit in ranked if hit.score >= floor]
        failed = [hit for hit in ranked if hit.score < floor]
        ids = tuple(hit.chunk.chunk_id for hit in ranked)
        return FixedSearchResult(
            hits=tuple(passed[:k]),
            cut=tuple(failed),
            index_version=self.index_version,
            timings_ms={"fixed": 0.0},
            stages={"fixed": ids},
        )
