"""The retrieval stage end to end, for one asker:

    query ─┬─ BM25 over the keyword index (permission mask before top-N) ─┐
           └─ Qdrant query_points (permission filter inside the query) ───┴─ RRF → top-M
       → rerank → supersession order → relevance cut → SearchResult

The keyword index follows the database's ``index_version`` before every query, so a
long-lived searcher sees new ingests without a restart. Every hit is checked once more
against the visibility rule before it leaves (defence in depth: a filter bug must not
become a leak).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import date
from types import MappingProxyType

from sqlalchemy.orm import Session, sessionmaker

from docent.access import readable_levels
from docent.contracts import Chunk, Embedder, Hit, Principal
from docent.db.state import index_version
from docent.errors import InvalidInput
from docent.periods import Period, asked_periods, first_later, in_force_during
from docent.scope import Collections, NamedCollection
from docent.versions import version_request, without_year
from retrieval.cut import cut, supersession_order
from retrieval.errors import EmptyQuery
from retrieval.fusion import best_ranks, by_place, fuse_places
from retrieval.keyword import KeywordIndex
from retrieval.order import EvidenceOrder
from retrieval.permissions import access_filter
from retrieval.rerank import Reranker
from retrieval.terms import WordVectors
from store.access import AccessFilter
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 2000
STAGES = ("bm25", "vector", "fused", "reranked")
# A question scoped to one collection fetches each leg this many times as deep, so a small
# collection is not crowded out of the legs by the rest of the corpus.
SCOPED_FETCH = 4
# A question about a past version also searches the superseded passages alone, this deep
# per leg: today's wording of a section outnumbers the old one in a whole-index search
# (``tests/retrieval/test_past_version_search.py``).
PAST_FETCH = 10


@dataclass(frozen=True)
class SearchResult:
    """What one search returns: the hits passed on, the candidates cut, the index version
    searched, per-stage timings and each stage's ranked chunk ids (visible chunks only)."""

    hits: tuple[Hit, ...]
    cut: tuple[Hit, ...]
    index_version: int
    timings_ms: Mapping[str, float]
    stages: Mapping[str, tuple[str, ...]]
    scope: str | None = None  # the collection the question named (``docent.scope``)
    # The question as its passages were ranked for: without that collection's names.
    asked: str | None = None


def warm_caches(words: WordVectors | None, reranker: Reranker, chunks: Sequence[Chunk]) -> None:
    """What a question would otherwise read at first sight, read now: every passage's words
    and their vectors, then the passages' stored vectors the reranker keeps."""
    try:
        if words is not None:
            words.learn(chunks)
        reranker.warm(chunks)
    except Exception:  # caches: questions read what they need themselves meanwhile
        log.exception("warm-up: reading the index's passages failed")


@dataclass(frozen=True)
class _Question:
    """One question as the stages read it: ``asked`` without the collection it names
    (``scope``), ``later`` the first year after today's it names
    (``docent.periods.first_later``)."""

    text: str
    scope: NamedCollection | None
    asked: str | None
    later: int | None
    # Set when pending versions are searched only for the later periods the question names
    # (read once): one taking effect after every one of them is left out.
    pending_periods: Sequence[Period] | None = None

    def in_period(self, chunk: Chunk) -> bool:
        """Not a pending passage taking effect after every period the question names."""
        if self.pending_periods is None or chunk.status != "pending":
            return True
        return in_force_during(self.pending_periods, chunk)


class _Clock:
    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - start) * 1000.0


class Searcher:
    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        keyword: KeywordIndex,
        reranker: Reranker,
        sessions: sessionmaker[Session],
        *,
        levels: Sequence[str],
        leg_top_n: int,
        fused_top_m: int,
        rrf_k: int,
        top_k: int,
        threshold: float,
        include_pending: bool,
        collections: Collections | None = None,
        order: EvidenceOrder | None = None,
        words: WordVectors | None = None,
        today: Callable[[], date] = date.today,
    ) -> None:
        """``order``: how the reranked candidates are passed on (``retrieval/order.py``);
        None keeps the reranker's order. ``words``: the word vectors its term coverage
        reads (``retrieval/terms.py``); None reads it as 0. ``today``: the date a question's
        later year is read against (``include_pending``)."""
        for name, value in (("leg_top_n", leg_top_n), ("fused_top_m", fused_top_m)):
            if value <= 0:
                raise ValueError(f"{name} must be greater than 0, got {value}")
        if top_k <= 0:
            raise ValueError(f"top_k must be greater than 0, got {top_k}")
        if rrf_k < 0:
            raise ValueError(f"rrf_k must be 0 or more, got {rrf_k}")
        if not levels:
            raise ValueError("levels must name at least one access level")
        self.index = index
        self.embedder = embedder
        self.keyword = keyword
        self.reranker = reranker
        self.sessions = sessions
        self.levels = tuple(levels)
        self.leg_top_n = leg_top_n
        self.fused_top_m = fused_top_m
        self.rrf_k = rrf_k
        self.top_k = top_k
        self.threshold = threshold
        self.include_pending = include_pending
        self.collections = collections or Collections()
        self.order = order
        self.words = words
        self.today = today

    def current_version(self) -> int:
        with self.sessions() as session:
            return index_version(session)

    def warm(self, *, background: bool = True) -> int:
        """Load the keyword index for the current version now (app or worker start), so the
        first question does not pay for it, and (``background``) have the word vectors and
        the reranker read its passages on a background thread. Returns that version."""
        version = self.current_version()
        snapshot = self.keyword.refresh(version, wait=True)
        if background and snapshot.chunks:
            threading.Thread(
                target=warm_caches,
                args=(self.words, self.reranker, snapshot.chunks),
                name="warm-up",
                daemon=True,
            ).start()
        return version

    def search(
        self,
        query: str,
        principal: Principal,
        *,
        top_k: int | None = None,
        threshold: float | None = None,
        include_pending: bool | None = None,
        exclude_chunk_ids: Collection[str] = (),
    ) -> SearchResult:
        text = " ".join(query.split()) if isinstance(query, str) else ""
        if not text:
            raise EmptyQuery("query is empty: give some words to search for")
        if len(text) > MAX_QUERY_CHARS:
            raise InvalidInput(
                f"query is {len(text)} characters; at most {MAX_QUERY_CHARS} are searched"
            )
        k = self.top_k if top_k is None else top_k
        if k <= 0:
            raise InvalidInput(f"top_k must be greater than 0, got {k}")
        bar = self.threshold if threshold is None else threshold
        scope = self.collections.scope(text)
        today = self.today()
        asked_pending = self.include_pending if include_pending is None else include_pending
        # A question naming a later period reads the versions not yet in force then too (each
        # marked pending; the permission filter applies to them as to any passage).
        periods = asked_periods(text, today)
        later = first_later(periods, today)
        pending_periods = None if asked_pending or later is None else periods
        question = _Question(
            text, scope, scope.unnamed(text) if scope else None, later, pending_periods
        )
        pending = asked_pending or (include_pending is None and later is not None)
        excluded = frozenset(exclude_chunk_ids)
        clock = _Clock()
        with clock.stage("total"):
            kept, dropped, version, stages = self._run(
                question, principal, k, bar, pending, excluded, clock
            )
        return SearchResult(
            hits=tuple(kept),
            cut=tuple(dropped),
            index_version=version,
            timings_ms=MappingProxyType(dict(clock.ms)),
            stages=MappingProxyType(dict(stages)),
            scope=question.scope.label if question.scope else None,
            asked=question.asked,
        )

    def _run(
        self,
        question: _Question,
        principal: Principal,
        top_k: int,
        threshold: float,
        include_pending: bool,
        excluded: frozenset[str],
        clock: _Clock,
    ) -> tuple[list[Hit], list[Hit], int, dict[str, tuple[str, ...]]]:
        with clock.stage("version"):
            version = self.current_version()
        if not readable_levels(principal, self.levels):
            # Default deny: an unknown clearance reads nothing, so nothing is searched.
            return [], [], version, dict.fromkeys(STAGES, ())

        acl = access_filter(
            principal, self.levels, include_pending=include_pending, exclude_chunk_ids=excluded
        )
        request = version_request(question.text)
        legs = self._legs(question, acl, version, clock, past=request is not None)
        with clock.stage("fuse"):
            allowed = _Allowed(acl, principal.user_id)
            fusion = self._fuse(legs, allowed, question.scope)
        with clock.stage("rerank"):
            # Within a named collection its name tells none of its passages apart; a year
            # naming a version is read from the documents' dates, not their wording.
            meaning = without_year(question.asked or question.text, question.later)
            reranked = self.reranker.rerank(meaning, fusion.candidates)
            if self.order is not None:
                reranked = self.order.order(meaning, reranked, self.words)
        with clock.stage("cut"):
            readable = [h for h in reranked if allowed(h.chunk) and question.in_period(h.chunk)]
            ordered = supersession_order(readable, request)
            kept, dropped = cut(ordered, threshold, top_k, request)

        stages = {
            "bm25": fusion.bm25_ids,
            "vector": fusion.vector_ids,
            "fused": tuple(cid for cid, _ in fusion.fused),
            "reranked": tuple(h.chunk.chunk_id for h in ordered),
        }
        return kept, dropped, version, stages

    def _legs(
        self, question: _Question, acl: AccessFilter, version: int, clock: _Clock, *, past: bool
    ) -> _Legs:
        """The BM25 leg and the vector leg, each with the permission filter inside; for a
        question about a past version (``past``), each once more over the superseded
        passages alone (the same filter, narrowed to that status)."""
        old = replace(acl, status="superseded") if past else None
        with clock.stage("keyword_refresh"):
            snapshot = self.keyword.refresh(version)
        with clock.stage("bm25"):
            depth = self.leg_top_n * (SCOPED_FETCH if question.scope else 1)
            bm25_hits = snapshot.search(question.text, snapshot.access.mask_for(acl), depth)
            old_bm25 = (
                snapshot.search(question.text, snapshot.access.mask_for(old), PAST_FETCH)
                if old is not None
                else []
            )
            if snapshot.version != version:
                bm25_hits = self._read_back(bm25_hits, acl)
                old_bm25 = self._read_back(old_bm25, old) if old is not None else []
        with clock.stage("embed"):
            query_vector = self.embedder.embed([without_year(question.text, question.later)])[0]
        with clock.stage("vector"):
            vector_hits = self.index.search(query_vector, acl, depth)
            old_vector = self.index.search(query_vector, old, PAST_FETCH) if old is not None else []
        return _Legs(bm25_hits, vector_hits, old_bm25, old_vector)

    def _read_back(
        self, bm25_hits: list[tuple[Chunk, float]], acl: AccessFilter
    ) -> list[tuple[Chunk, float]]:
        """The previous version serves while the new one builds: read its hits back from the
        index and apply the filter to what is there now, so a deleted or re-marked chunk is
        never served stale."""
        fresh = self.index.get([c.chunk_id for c, _ in bm25_hits])
        return [
            (fresh[c.chunk_id].chunk, score)
            for c, score in bm25_hits
            if c.chunk_id in fresh and acl.allows(fresh[c.chunk_id].chunk)
        ]

    def _fuse(self, legs: _Legs, allowed: _Allowed, scope: NamedCollection | None) -> _Fusion:
        """The legs' readable ids (within the scope), fused by RRF into candidates. A
        passage found by a leg's search over the superseded passages alone counts once, at
        the better of that leg's two places (the past-version question searched both)."""

        def ids(hits: Sequence[tuple[Chunk, float]]) -> list[str]:
            # A question naming one collection is answered from its documents only; as deep
            # as an unscoped leg once the other collections are gone.
            kept = [c.chunk_id for c, _ in hits if allowed(c) and _within(scope, c.source)]
            return kept[: self.leg_top_n]

        # Each leg counts a passage once, at the better place of its two searches.
        bm25_rank = best_ranks(ids(legs.bm25), ids(legs.old_bm25))
        vector_rank = best_ranks(ids(legs.vector), ids(legs.old_vector))
        fused = fuse_places([bm25_rank, vector_rank], self.rrf_k)[: self.fused_top_m]
        chunks: dict[str, Chunk] = {c.chunk_id: c for c, _ in [*legs.bm25, *legs.old_bm25]}
        # The vector leg read Qdrant just now: its payload (status) is the fresher.
        chunks.update((c.chunk_id, c) for c, _ in [*legs.vector, *legs.old_vector])
        candidates = [
            Hit(
                chunk=chunks[cid],
                rank=rank,
                score=score,
                bm25_rank=bm25_rank.get(cid),
                vector_rank=vector_rank.get(cid),
                fused_score=score,
            )
            for rank, (cid, score) in enumerate(fused, start=1)
        ]
        return _Fusion(by_place(bm25_rank), by_place(vector_rank), fused, candidates)


@dataclass(frozen=True)
class _Legs:
    """Each first-stage leg's hits; the ``old_`` ones over the superseded passages alone
    (empty unless the question asks about a past version)."""

    bm25: list[tuple[Chunk, float]]
    vector: list[tuple[Chunk, float]]
    old_bm25: list[tuple[Chunk, float]]
    old_vector: list[tuple[Chunk, float]]


@dataclass(frozen=True)
class _Fusion:
    """The fused candidates, with each leg's ranked ids and the fused ranking they came from."""

    bm25_ids: tuple[str, ...]
    vector_ids: tuple[str, ...]
    fused: list[tuple[str, float]]
    candidates: list[Hit]


def _within(scope: NamedCollection | None, source: str) -> bool:
    return scope is None or scope.holds(source)


@dataclass(frozen=True)
class _Allowed:
    """The visibility rule once more on each candidate (``chunk_allowed``'s test, with the
    filter built once per search, not once per candidate); a refusal here means a filter
    let something through, which is logged (ids only, never text) and dropped."""

    access: AccessFilter
    user_id: str

    def __call__(self, chunk: Chunk) -> bool:
        ok = self.access.allows(chunk)
        if not ok:
            log.error(
                "permission filter let chunk %s through for user %s; dropped",
                chunk.chunk_id,
                self.user_id,
            )
        return ok
