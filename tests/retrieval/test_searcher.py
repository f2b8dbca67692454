"""The whole retrieval stage over the synthetic corpus, real model, Qdrant local mode."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path

import pytest

from docent.contracts import Chunk, Embedder, Hit, Principal
from docent.errors import InvalidInput
from docent.wiring import Services
from retrieval.searcher import Searcher, SearchResult
from tests.retrieval.conftest import bump, services_over, variant
from tests.retrieval.corpus import BONUS_QUERY, CORPUS, make_chunk, write_chunks

PUBLIC = Principal("p", "public")
EMPLOYEE = Principal("e", "employee")
LEGAL_EMPLOYEE = Principal("l", "employee", frozenset({"legal"}))
HR_EMPLOYEE = Principal("h", "employee", frozenset({"hr"}))
CONFIDENTIAL = Principal("c", "confidential")
CONFIDENTIAL_IDS = {c.chunk_id for c in CORPUS if c.access_level == "confidential"}


def everywhere(result: SearchResult) -> set[str]:
    """Every chunk id the result mentions, in any stage, kept or cut."""
    ids = {cid for stage in result.stages.values() for cid in stage}
    return ids | {h.chunk.chunk_id for h in (*result.hits, *result.cut)}


def ids(hits: Sequence[Hit]) -> list[str]:
    return [h.chunk.chunk_id for h in hits]


def test_confidential_text_is_invisible_to_an_employee_in_every_stage(
    searcher: Searcher, caplog: pytest.LogCaptureFixture
) -> None:
    # The query is the confidential chunks' own first sentence, word for word.
    cleared = searcher.search(BONUS_QUERY, CONFIDENTIAL)
    assert cleared.hits and cleared.hits[0].chunk.chunk_id in CONFIDENTIAL_IDS
    assert CONFIDENTIAL_IDS <= set(cleared.stages["bm25"]) & set(cleared.stages["vector"])

    result = searcher.search(BONUS_QUERY, EMPLOYEE, threshold=-1.0)
    for stage in ("bm25", "vector", "fused", "reranked"):
        assert result.stages[stage], stage
        assert not CONFIDENTIAL_IDS & set(result.stages[stage]), stage
    assert not CONFIDENTIAL_IDS & everywhere(result)
    for hit in (*result.hits, *result.cut):
        assert "executive bonus pool" not in hit.chunk.text.lower()
        assert hit.chunk.access_level in ("public", "employee")
    # No starvation: the employee still gets a full top-k from what they may read.
    assert len(result.hits) == searcher.top_k
    # The filters inside the legs did the work; the searcher's last check caught nothing.
    assert "permission filter let chunk" not in caplog.text


def test_no_starvation_when_hidden_chunks_fill_a_leg(corpus_services: Services) -> None:
    # Six confidential chunks match best, and each leg keeps only five: filtering after
    # top-k would leave an employee's BM25 leg empty. Filtering inside keeps it full.
    narrow = variant(corpus_services, leg_top_n=5, fused_top_m=10, threshold=-1.0)
    cleared = narrow.search(BONUS_QUERY, CONFIDENTIAL)
    assert set(cleared.stages["bm25"]) <= CONFIDENTIAL_IDS
    assert set(cleared.stages["vector"]) <= CONFIDENTIAL_IDS

    result = narrow.search(BONUS_QUERY, EMPLOYEE)
    assert len(result.stages["bm25"]) >= 3 and len(result.stages["vector"]) == 5
    assert len(result.hits) == 5
    assert not CONFIDENTIAL_IDS & everywhere(result)


def test_groups_restrict_as_specified(searcher: Searcher) -> None:
    query = "Which custodians must preserve email under litigation hold LH-2026-014?"
    assert "litigation-hold.md#0" not in everywhere(searcher.search(query, EMPLOYEE))
    assert "litigation-hold.md#0" not in everywhere(searcher.search(query, HR_EMPLOYEE))
    # A higher level does not stand in for a missing group.
    assert "litigation-hold.md#0" not in everywhere(searcher.search(query, CONFIDENTIAL))
    legal = searcher.search(query, LEGAL_EMPLOYEE)
    assert ids(legal.hits)[0] == "litigation-hold.md#0"

    # A chunk naming two groups is open to either.
    query = "How long are workplace investigation interview notes kept?"
    for principal in (HR_EMPLOYEE, LEGAL_EMPLOYEE):
        assert ids(searcher.search(query, principal).hits)[0] == "investigations.md#0"
    assert "investigations.md#0" not in everywhere(searcher.search(query, EMPLOYEE))


def test_a_superseded_chunk_ranks_below_its_successor(searcher: Searcher) -> None:
    # The archived 2022 refunds text matches this wording best; it must still come second.
    result = searcher.search("Can I request a refund within 14 days?", PUBLIC)
    by_id = {h.chunk.chunk_id: h for h in (*result.hits, *result.cut)}
    new, old = by_id["refunds.md#0"], by_id["refunds-2022.md#0"]
    # Its successor being a candidate, the old version is not passed on (``retrieval.cut``).
    assert "refunds.md#0" in ids(result.hits) and "refunds-2022.md#0" not in ids(result.hits)
    assert old.rerank_score is not None and new.rerank_score is not None
    assert old.rerank_score > new.rerank_score  # the reranker alone would put it first
    assert new.rank < old.rank
    assert (new.chunk.status, new.chunk.effective_date) == ("current", date(2025, 3, 1))
    assert (old.chunk.status, old.chunk.superseded_by) == ("superseded", "refunds.md")
    reranked = list(result.stages["reranked"])
    assert reranked.index("refunds.md#0") < reranked.index("refunds-2022.md#0")


def test_an_exact_code_is_found_by_bm25_when_the_vector_leg_misses(
    corpus_services: Services, searcher: Searcher
) -> None:
    # RC-77 sits in a long chunk among look-alike codes (RC-12, RC-70, RC-75, RC-78): the
    # embedder ranks the look-alikes first; BM25 matches the code exactly.
    query = "What is retention code RC-77?"
    narrow = variant(corpus_services, leg_top_n=3)
    result = narrow.search(query, EMPLOYEE)
    assert result.stages["bm25"][0] == "records.md#0"
    assert "records.md#0" not in result.stages["vector"]
    assert "records.md#0" in result.stages["fused"]

    full = searcher.search(query, EMPLOYEE)
    hit = next(h for h in (*full.hits, *full.cut) if h.chunk.chunk_id == "records.md#0")
    assert hit.bm25_rank == 1 and hit.vector_rank is not None and hit.vector_rank > 3
    assert ids(full.hits)[0] == "records.md#0"
    assert hit.best_sentence is not None and "RC-77" in hit.best_sentence


@pytest.mark.parametrize(
    "question",
    [
        "What is the boiling point of mercury on Jupiter?",
        "Who won the football world cup in 1998?",
        "Give me a recipe for chocolate cake.",
    ],
)
def test_an_off_topic_question_returns_nothing(searcher: Searcher, question: str) -> None:
    result = searcher.search(question, EMPLOYEE)
    assert result.hits == ()
    assert result.cut  # there were candidates; none was relevant enough
    assert all((h.rerank_score or 0.0) < searcher.threshold for h in result.cut)


def test_on_topic_questions_clear_the_threshold(searcher: Searcher) -> None:
    for question, expected in [
        ("How many days of annual leave do I get?", "leave.md#0"),
        ("What is the hotel cap per night?", "expenses.md#0"),
        ("Does the company match 401(k) contributions?", "benefits.md#0"),
        ("What does clause 7.3(b) require of suppliers?", "procurement.md#0"),
    ]:
        result = searcher.search(question, EMPLOYEE)
        assert ids(result.hits)[:1] == [expected], question


def test_pending_documents_only_for_a_later_year_or_when_asked_for(
    corpus_services: Services,
) -> None:
    searcher = variant(corpus_services, today=lambda: date(2026, 12, 7))
    today = "What is the hotel cap per night?"
    assert "travel-2027.md#0" not in everywhere(searcher.search(today, EMPLOYEE, threshold=-1.0))
    asked = searcher.search(today, EMPLOYEE, include_pending=True)
    hit = next(h for h in asked.hits if h.chunk.chunk_id == "travel-2027.md#0")
    assert hit.chunk.status == "pending" and hit.chunk.effective_date == date(2027, 6, 1)
    # A question naming a year after today's reads the versions not yet in force too.
    for later in (
        "What will the hotel cap per night be in 2027?",
        "Hotel cap per night from 2028?",
    ):
        assert "travel-2027.md#0" in ids(searcher.search(later, EMPLOYEE).hits), later
        unasked = searcher.search(later, EMPLOYEE, include_pending=False, threshold=-1.0)
        assert "travel-2027.md#0" not in everywhere(unasked)
    # Not for a period before the version takes effect (a user pass: "in February 2027" was
    # shown the rate that applies from June).
    early = searcher.search("What is the hotel cap per night in February 2027?", EMPLOYEE)
    assert "travel-2027.md#0" not in ids([*early.hits, *early.cut])
    # Nor for the rest of this year (searched: a version may take effect before its end), nor
    # for a past year (not searched at all).
    this_year = searcher.search(
        "What is the hotel cap per night in 2026?", EMPLOYEE, threshold=-1.0
    )
    assert "travel-2027.md#0" not in ids([*this_year.hits, *this_year.cut])
    past = searcher.search("What is the hotel cap per night in 2024?", EMPLOYEE, threshold=-1.0)
    assert "travel-2027.md#0" not in everywhere(past)


def test_a_later_year_opens_no_pending_document_above_the_askers_access(
    corpus_services: Services,
) -> None:
    """The pending versions a later year brings in pass the same permission filter: the
    employee-level 2027 travel policy stays out of a public asker's every stage."""
    searcher = variant(corpus_services, today=lambda: date(2026, 12, 7))
    result = searcher.search(
        "What will the hotel cap per night be in 2027?", PUBLIC, threshold=-1.0
    )
    assert "travel-2027.md#0" not in everywhere(result)
    assert all(h.chunk.access_level == "public" for h in (*result.hits, *result.cut))


def test_unknown_clearance_is_denied_everything(searcher: Searcher) -> None:
    for principal in (Principal("x", "god-mode", frozenset({"legal", "hr"})), Principal("y", "")):
        result = searcher.search("annual leave", principal, threshold=-1.0)
        assert result.hits == () and result.cut == ()
        assert all(stage == () for stage in result.stages.values())
        assert set(result.stages) == {"bm25", "vector", "fused", "reranked"}


def test_hits_carry_every_stage_score(searcher: Searcher) -> None:
    result = searcher.search("How many days of annual leave do I get?", EMPLOYEE)
    assert result.index_version == searcher.current_version() >= 1
    top = result.hits[0]
    assert top.rank == 1 and top.bm25_rank is not None and top.vector_rank is not None
    assert top.fused_score == pytest.approx(1 / (60 + top.bm25_rank) + 1 / (60 + top.vector_rank))
    assert top.rerank_score is not None and top.score == top.rerank_score
    assert top.best_sentence in top.chunk.sentences
    assert "25 days" in top.best_sentence
    assert top.chunk.status == "current" and top.chunk.effective_date == date(2024, 1, 1)
    scores = [h.rerank_score for h in result.hits]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    for stage in (
        "version",
        "keyword_refresh",
        "bm25",
        "embed",
        "vector",
        "fuse",
        "rerank",
        "cut",
        "total",
    ):
        assert result.timings_ms[stage] >= 0.0
    # The stages are consistent with each other.
    assert set(result.stages["fused"]) <= set(result.stages["bm25"]) | set(result.stages["vector"])
    assert set(result.stages["reranked"]) == set(result.stages["fused"])
    assert ids(result.hits) == list(result.stages["reranked"][: len(result.hits)])


def test_per_call_overrides(searcher: Searcher) -> None:
    query = "How many days of annual leave do I get?"
    assert len(searcher.search(query, EMPLOYEE, top_k=2, threshold=-1.0).hits) == 2
    assert searcher.search(query, EMPLOYEE, threshold=1.01).hits == ()
    excluded = searcher.search(query, EMPLOYEE, exclude_chunk_ids={"leave.md#0"})
    assert "leave.md#0" not in everywhere(excluded)
    with pytest.raises(InvalidInput, match="top_k"):
        searcher.search(query, EMPLOYEE, top_k=0)


@pytest.mark.parametrize("query", ["", "   ", "\n\t "])
def test_an_empty_query_is_invalid_input(searcher: Searcher, query: str) -> None:
    with pytest.raises(InvalidInput, match="empty"):
        searcher.search(query, EMPLOYEE)


def test_an_overlong_query_is_invalid_input(searcher: Searcher) -> None:
    with pytest.raises(InvalidInput, match="characters"):
        searcher.search("leave " * 1000, EMPLOYEE)


class LeakyReranker:
    """A misbehaving reranker (a real implementation of the Protocol) that slips a
    confidential chunk into its output: the searcher's last check must drop it."""

    def __init__(self, inner: object, smuggled: Hit) -> None:
        self.inner = inner
        self.smuggled = smuggled

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        return [self.smuggled, *self.inner.rerank(query, hits)]  # type: ignore[attr-defined]

    def warm(self, chunks: Sequence[Chunk]) -> None:
        pass  # keeps nothing


def test_a_leak_from_a_later_component_is_dropped(
    corpus_services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    secret = next(c for c in CORPUS if c.access_level == "confidential")
    smuggled = Hit(chunk=secret, rank=1, score=9.0, rerank_score=9.0, best_sentence=secret.text)
    leaky = Searcher(
        corpus_services.index,
        corpus_services.embedder,
        corpus_services.keyword_index,
        LeakyReranker(corpus_services.reranker, smuggled),
        corpus_services.sessions,
        levels=corpus_services.settings.access_levels,
        leg_top_n=100,
        fused_top_m=50,
        rrf_k=60,
        top_k=5,
        threshold=0.0,
        include_pending=False,
    )
    result = leaky.search(BONUS_QUERY, EMPLOYEE)
    assert secret.chunk_id not in everywhere(result)
    assert len(result.hits) == 5
    assert f"permission filter let chunk {secret.chunk_id} through" in caplog.text
    assert secret.text not in caplog.text


def test_constructor_checks_its_arguments(corpus_services: Services) -> None:
    for bad in ({"top_k": 0}, {"leg_top_n": 0}, {"fused_top_m": -1}, {"rrf_k": -1}, {"levels": ()}):
        with pytest.raises(ValueError):
            variant(corpus_services, **bad)


def test_a_new_ingest_is_seen_by_a_long_lived_searcher(
    tmp_path: Path, bundled_embedder: Embedder
) -> None:
    with services_over(tmp_path / "data", bundled_embedder, CORPUS[:8]) as services:
        searcher = services.searcher
        assert searcher.keyword.version is None
        assert searcher.warm() == 1 and searcher.keyword.version == 1
        query = "Who issues staff parking permits?"
        before = searcher.search(query, EMPLOYEE)
        assert "parking.md#0" not in everywhere(before)

        # Another process ingests a document: Qdrant gets the points, the version moves.
        parking = make_chunk(
            "parking.md",
            0,
            "Staff parking permits are issued by Facilities each January.",
            heading=("Office Guide", "Parking"),
        )
        write_chunks(services.index, bundled_embedder, [parking])
        version = bump(services)

        after = searcher.search(query, EMPLOYEE)
        assert after.index_version == version == before.index_version + 1
        assert ids(after.hits)[0] == "parking.md#0"
        assert after.stages["bm25"][0] == "parking.md#0"
        assert (tmp_path / "data" / "keyword" / f"docent-v{version}.pkl").exists()


def test_a_question_during_a_keyword_rebuild_runs_on_the_previous_version_without_leaks(
    tmp_path: Path, bundled_embedder: Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    from retrieval.keyword import KeywordIndex

    with services_over(tmp_path / "data", bundled_embedder, CORPUS) as services:
        s = services.settings
        keyword = KeywordIndex(services.index, s.data_dir, inline_max_chunks=0)
        searcher = Searcher(
            services.index,
            services.query_embedder,
            keyword,
            services.reranker,
            services.sessions,
            levels=s.access_levels,
            leg_top_n=s.leg_top_n,
            fused_top_m=s.fused_top_m,
            rrf_k=s.rrf_k,
            top_k=s.top_k,
            threshold=s.relevance_threshold,
            include_pending=s.include_pending,
        )
        assert searcher.warm() == 1
        leave = searcher.search("How many days of annual leave do I get?", EMPLOYEE)
        leave_ids = {cid for cid in leave.stages["bm25"] if cid.startswith("leave.md")}
        assert leave_ids
        # An ingest re-marks the leave policy confidential; the version moves.
        services.index.set_payload("leave.md", {"access_level": "confidential"})
        version = bump(services)
        during = searcher.search("How many days of annual leave do I get?", EMPLOYEE)
        # The question did not wait: BM25 ran on version 1 (it still lists leave.md as
        # employee), yet nothing of leave.md reaches the employee from any stage.
        assert during.index_version == version
        assert keyword.snapshot.version in (1, version)
        assert not leave_ids & everywhere(during)
        assert "permission filter let chunk" not in caplog.text  # filtered, not caught late
        keyword.wait_built(timeout=120)
        assert keyword.snapshot.version == version
        after = searcher.search("How many days of annual leave do I get?", CONFIDENTIAL)
        assert leave_ids & set(after.stages["bm25"])
        keyword.close()
