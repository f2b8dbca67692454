"""The order the reranked candidates are passed on in: the reranker's relevance blended with
what the two first-stage legs saw and how much of the question's wording the passage covers.

The offline reranker reads one question against each passage's stored vectors; on a
paraphrased or scenario question its best passage is often a near-topic one, while the
passage holding the answer sits a few places lower with a strong vector-leg rank, a second
unit that also matches, or more of the question's words (or their paraphrases: "washing my
clothes", "laundry") among its own (``retrieval/terms.py``). A linear blend of
those signals, fitted as a pairwise ranker on four corpora's dev splits and checked leave
one corpus out (``python -m evals.order_fit``, ``evals/reports/retrieval_order.md``), puts
the answer-bearing passage in the top three more often than the reranker on the corpora it
was not fitted on, but one: 18F's (51 → 50 of 62 dev questions; GitHub's 50 → 61 of 72).

Only the order changes: ``score`` and ``rerank_score`` stay the reranker's, so the relevance
threshold is read as before, and the answerer reads each block's new rank. For a question
that names a code (``RC-77``, ``7.3(b)``), a passage holding more of the codes comes first,
whatever the blend says: the embedder cannot tell ``RC-77`` from ``RC-75``, and a
look-alike's units and vector-leg rank would otherwise outvote the passage that holds the
code (beside the term coverage's weights, a bonus scaled like the reranker's no longer did).
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields, replace

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Hit
from retrieval.codes import passage_coverage, query_codes
from retrieval.terms import WordVectors, term_coverage

# A leg rank r enters as 1 / (RANK_OFFSET + r): the first few places of a leg differ, the
# tail of a 100-deep leg hardly does.
RANK_OFFSET = 10


@dataclass(frozen=True)
class OrderSignals:
    """What the blend reads of one reranked candidate."""

    rerank: float  # the reranker's relevance (what the threshold is compared with)
    best_unit: float  # its best unit's cosine to the question
    next_unit: float  # its second-best unit's (the best's, for a one-unit passage)
    keyword: float  # 1 / (RANK_OFFSET + its BM25 rank); 0 where that leg missed it
    vector: float  # 1 / (RANK_OFFSET + its vector rank); 0 where that leg missed it
    units: float  # log(1 + its number of units): a long passage has more chances to match
    terms: float  # the share of the question's words it covers (``retrieval/terms.py``)


ORDER_SIGNALS = tuple(f.name for f in fields(OrderSignals))


def order_signals(hit: Hit) -> OrderSignals:
    """One hit's signals by itself: the term coverage, read over a pool, reads 0 here."""
    return OrderSignals(*signal_row(hit), 0.0)


def pool_signals(query: str, hits: Sequence[Hit], words: WordVectors | None) -> NDArray[np.float64]:
    """``OrderSignals`` of one question's candidates, one row each; the term coverage is read
    over the whole pool (its word weights are), 0 without word vectors."""
    if not hits:
        return np.zeros((0, len(ORDER_SIGNALS)))
    rows = np.array([signal_row(h) for h in hits], dtype=np.float64)
    terms = term_coverage(query, hits, words) if words is not None else np.zeros(len(hits))
    return np.column_stack([rows, terms])


def signal_row(hit: Hit) -> tuple[float, float, float, float, float, float]:
    """The ``OrderSignals`` one hit holds by itself (all but the term coverage, which is read
    over the pool), as a plain tuple: the blend reads 50 per question."""
    relevance = hit.rerank_score if hit.rerank_score is not None else hit.score
    best, runner_up = _two_best(hit.unit_scores, relevance)
    return (
        relevance,
        best,
        runner_up,
        _leg(hit.bm25_rank),
        _leg(hit.vector_rank),
        math.log1p(len(hit.chunk.sentences)),
    )


def _two_best(scores: Sequence[float], fallback: float) -> tuple[float, float]:
    """The best and second-best unit scores; a passage without them reads ``fallback``, one
    with a single unit reads its best twice."""
    if not scores:
        return fallback, fallback
    if len(scores) == 1:
        return scores[0], scores[0]
    first, second = heapq.nlargest(2, scores)
    return first, second


def _leg(rank: int | None) -> float:
    return 1.0 / (RANK_OFFSET + rank) if rank else 0.0


@dataclass(frozen=True)
class EvidenceOrder:
    """``order score = Σ weight · signal``; only differences within one question's
    candidates matter, so there is no intercept."""

    rerank: float
    best_unit: float
    next_unit: float
    keyword: float
    vector: float
    units: float
    terms: float = 0.0

    def __post_init__(self) -> None:
        for name, value in zip(ORDER_SIGNALS, astuple(self), strict=True):
            if not math.isfinite(value):
                raise ValueError(f"order weight {name} must be a finite number, got {value}")

    def order(self, query: str, hits: Sequence[Hit], words: WordVectors | None = None) -> list[Hit]:
        """The hits best first by the blend (ties keep the reranker's order), ranks
        renumbered from 1; scores unchanged. Without ``words`` the term coverage reads 0."""
        if not hits:
            return []
        values = pool_signals(query, hits, words if self.terms else None) @ np.array(astuple(self))
        codes = query_codes(query)
        if not codes:
            order = np.argsort(-values, kind="stable")  # ties keep the incoming order
        else:
            # The offline reranker read it for this question already; a CrossEncoder or a
            # hit built by hand did not.
            held = np.array(
                [
                    h.code_coverage
                    if h.code_coverage is not None
                    else passage_coverage(codes, h.chunk)
                    for h in hits
                ]
            )
            # More of the named codes first, then the blend, then the incoming order.
            order = np.lexsort((np.arange(len(hits)), -values, -held))
        return [replace(hits[i], rank=rank) for rank, i in enumerate(order.tolist(), start=1)]


# Fitted on the dev splits of the sample corpus and the three organisations of
# ../shared/corpora (evals/reports/retrieval_order.md); scale is immaterial, only ratios.
# The keyword leg's weight is below 0 beside the term coverage, which reads the same shared
# words and their paraphrases: of two passages that cover the question alike, the one the
# keyword leg ranked high on a word or two alone is the likelier near-topic one.
DEFAULT_ORDER = EvidenceOrder(
    rerank=1.0,
    best_unit=2.181,
    next_unit=1.0322,
    keyword=-0.57,
    vector=4.8921,
    units=0.2215,
    terms=2.3159,
)
