"""The order reranked candidates are passed on in: a blend of the reranker's relevance
with what the two legs saw (pure, over hits)."""

import math
from dataclasses import replace
from pathlib import Path

import pytest

from docent.contracts import Hit
from retrieval.codes import passage_coverage, query_codes
from retrieval.order import DEFAULT_ORDER, RANK_OFFSET, EvidenceOrder, order_signals
from retrieval.rerank import SentenceReranker
from store.edge import EdgeIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import CORPUS, hits_for, make_chunk, write_chunks

RERANK_ONLY = EvidenceOrder(
    rerank=1.0, best_unit=0.0, next_unit=0.0, keyword=0.0, vector=0.0, units=0.0
)


def hit(
    name: str,
    relevance: float,
    units: tuple[float, ...] = (),
    *,
    bm25: int | None = None,
    vector: int | None = None,
    rank: int = 1,
) -> Hit:
    sentences = tuple(f"Sentence {i} of {name}." for i in range(max(len(units), 1)))
    chunk = make_chunk(name, 0, " ".join(sentences))
    return Hit(
        chunk=chunk,
        rank=rank,
        score=relevance,
        rerank_score=relevance,
        bm25_rank=bm25,
        vector_rank=vector,
        unit_scores=units,
    )


QUESTION = "How long may I stay?"


def names(hits: list[Hit]) -> list[str]:
    return [h.chunk.source for h in hits]


def test_signals_read_the_legs_ranks_and_the_two_best_units() -> None:
    signals = order_signals(hit("a.md", 0.6, (0.2, 0.7, 0.5), bm25=1, vector=None))
    assert signals.rerank == 0.6
    assert (signals.best_unit, signals.next_unit) == (0.7, 0.5)
    assert signals.keyword == pytest.approx(1 / (RANK_OFFSET + 1))
    assert signals.vector == 0.0  # that leg missed it
    assert signals.units == pytest.approx(math.log1p(3))


def test_a_passage_without_unit_scores_reads_its_relevance_as_its_units() -> None:
    signals = order_signals(hit("a.md", 0.42))
    assert signals.best_unit == signals.next_unit == 0.42


def test_a_strong_keyword_rank_lifts_a_passage_the_reranker_placed_just_below() -> None:
    near_topic = hit("near.md", 0.62, (0.62,), bm25=None, vector=40, rank=1)
    answer = hit("answer.md", 0.60, (0.60,), bm25=1, vector=5, rank=2)
    assert names(DEFAULT_ORDER.order(QUESTION, [near_topic, answer])) == ["answer.md", "near.md"]
    # By relevance alone the reranker's order stands.
    assert names(RERANK_ONLY.order(QUESTION, [near_topic, answer])) == ["near.md", "answer.md"]


def test_a_clear_relevance_lead_is_not_overturned_by_leg_ranks() -> None:
    best = hit("best.md", 0.80, (0.80,), bm25=None, vector=30)
    weak = hit("weak.md", 0.45, (0.45,), bm25=1, vector=1)
    assert names(DEFAULT_ORDER.order(QUESTION, [weak, best])) == ["best.md", "weak.md"]


def test_order_renumbers_ranks_keeps_scores_and_breaks_ties_by_incoming_order() -> None:
    hits = [hit(f"d{i}.md", 0.5, (0.5,), bm25=3, vector=3, rank=i + 7) for i in range(4)]
    ordered = DEFAULT_ORDER.order(QUESTION, hits)
    assert names(ordered) == ["d0.md", "d1.md", "d2.md", "d3.md"]
    assert [h.rank for h in ordered] == [1, 2, 3, 4]
    assert all(h.rerank_score == 0.5 and h.score == 0.5 for h in ordered)
    assert DEFAULT_ORDER.order(QUESTION, []) == []


def test_a_passage_holding_the_code_the_question_names_keeps_its_lead() -> None:
    holder = make_chunk("records.md", 0, "Code RC-77: keep for seven years.")
    code = Hit(chunk=holder, rank=1, score=0.55, rerank_score=0.55, bm25_rank=1, unit_scores=(0.5,))
    look_alike = hit("codes.md", 0.5, (0.62, 0.60), vector=1, rank=2)
    question = "What is retention code RC-77?"
    assert names(DEFAULT_ORDER.order(question, [code, look_alike])) == ["records.md", "codes.md"]
    # The same two passages for a question naming no code: the look-alike's units lead.
    assert names(DEFAULT_ORDER.order(QUESTION, [code, look_alike])) == ["codes.md", "records.md"]


def test_the_code_coverage_a_reranker_recorded_is_read_instead_of_the_text() -> None:
    holder = make_chunk("records.md", 0, "Code RC-77: keep for seven years.")
    code = Hit(chunk=holder, rank=1, score=0.55, rerank_score=0.55, bm25_rank=1, unit_scores=(0.5,))
    look_alike = hit("codes.md", 0.5, (0.62, 0.60), vector=1, rank=2)
    question = "What is retention code RC-77?"
    recorded = [replace(code, code_coverage=1.0), replace(look_alike, code_coverage=0.0)]
    assert names(DEFAULT_ORDER.order(question, recorded)) == ["records.md", "codes.md"]
    # Recorded, it is not read again: a coverage of 0 for the holder loses it the lead.
    wrong = [replace(code, code_coverage=0.0), look_alike]
    assert names(DEFAULT_ORDER.order(question, wrong)) == ["codes.md", "records.md"]


@pytest.mark.parametrize(
    "query",
    [
        "What is retention code RC-77?",
        "Which retention codes apply to RC-12 or RC-75 records?",
        "Under Clause 7.3(b), who approves?",
        "How long is paid parental leave?",  # no code: nothing recorded, nothing read
    ],
)
def test_the_order_of_reranked_hits_is_the_same_with_or_without_their_coverage(
    tmp_path: Path, query: str
) -> None:
    embedder = HashingEmbedder(64)
    index = EdgeIndex(tmp_path / "order", embedder.model_name, embedder.dimension)
    try:
        write_chunks(index, embedder, CORPUS)
        reranked = SentenceReranker(embedder, index).rerank(
            query, hits_for(*[c.chunk_id for c in CORPUS])
        )
    finally:
        index.close()
    codes = query_codes(query)
    assert [h.code_coverage for h in reranked] == [
        passage_coverage(codes, h.chunk) if codes else None for h in reranked
    ]
    assert not codes or any(h.code_coverage for h in reranked)  # a passage names one
    recorded = DEFAULT_ORDER.order(query, reranked)
    read_again = DEFAULT_ORDER.order(query, [replace(h, code_coverage=None) for h in reranked])
    assert [(h.chunk.chunk_id, h.rank, h.score) for h in recorded] == [
        (h.chunk.chunk_id, h.rank, h.score) for h in read_again
    ]


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_weight_that_is_not_a_finite_number_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="keyword must be a finite number"):
        EvidenceOrder(rerank=1.0, best_unit=1.0, next_unit=0.0, keyword=bad, vector=0.0, units=0.0)
