"""The Asker end to end over a real in-memory searcher (FixedSearcher), real backends and a
real database (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from itertools import count
from pathlib import Path

import pytest
from sqlalchemy import select

from docent.contracts import Declined, Hit, Principal
from docent.db.models import TraceRecord
from docent.db.session import make_engine, migrate, session_factory
from docent.errors import InvalidInput
from generate.ask import Asker, ask_json
from generate.errors import TraceNotFound
from generate.extractive import ExtractiveGenerator
from generate.outcomes import parse_output
from generate.protocols import Generation
from generate.trace import load_trace
from generate.unit_scoring import Weights
from render.prompt import RenderedPrompt
from tests.generate.answering import hit
from tests.generate.fixed_searcher import FixedSearcher, FixedSearchResult
from tests.render.builders import make_hit
from tests.render.snapshot import assert_snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"
EMPLOYEE = Principal("ana", "employee", frozenset({"eng"}))
SECRET_SALARY = "Band L5 pays €92,000–€118,000."


def corpus() -> list[Hit]:
    return [
        make_hit(
            "refunds.md#2",
            "A support team lead may approve refunds up to €1,000. Refunds above €1,000 need "
            "finance approval from the Finance Controller before they are paid.",
            score=0.8,
            heading_path=("Refunds Policy", "Approval"),
            effective_date=date(2025, 3, 1),
            access_level="public",
            owner="Finance",
            best_sentence="A support team lead may approve refunds up to €1,000.",
        ),
        make_hit(
            "refunds-2022.md#1",
            "A support team lead may approve refunds up to €500.",
            score=0.7,
            heading_path=("Refunds Policy 2022", "Approval"),
            effective_date=date(2022, 4, 1),
            status="superseded",
            superseded_by="refunds.md",
            access_level="public",
            owner="Finance",
            best_sentence="A support team lead may approve refunds up to €500.",
        ),
        make_hit(
            "salary.md#1",
            SECRET_SALARY,
            score=0.9,
            heading_path=("Salary bands",),
            access_level="confidential",
            owner="People Ops",
            best_sentence=SECRET_SALARY,
        ),
        make_hit(
            "legal.md#1",
            "Litigation holds are set by Legal; refunds under a hold need Legal approval.",
            score=0.6,
            heading_path=("Litigation hold",),
            access_level="employee",
            groups=("legal",),
            owner="Legal",
        ),
    ]


class ScriptedGenerator:
    """A real Generator that replies with queued model outputs (parsed like a real backend)
    and counts its calls."""

    backend = "scripted"
    quotes_by_wording = False

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.prompts: list[RenderedPrompt] = []

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation:
        self.prompts.append(prompt)
        raw = self.replies.pop(0)
        outcome, _ = parse_output(raw, hits)
        return Generation(outcome, raw, "scripted-1")


class LeakySearcher(FixedSearcher):
    """A broken searcher that ignores permissions, to prove the Asker re-checks."""

    def search(self, query: str, principal: Principal, **_: object) -> FixedSearchResult:
        ranked = [replace(h, rank=n) for n, h in enumerate(self.hits, start=1)]
        return FixedSearchResult(hits=tuple(ranked[:3]), cut=tuple(ranked[3:]), index_version=7)


def asker(searcher: object, generator: object, sessions: object = None) -> Asker:
    ids = count(1)
    return Asker(
        searcher,  # type: ignore[arg-type]
        generator,  # type: ignore[arg-type]
        sessions,  # type: ignore[arg-type]
        budget_tokens=2000,
        new_trace_id=lambda: f"00000000-0000-0000-0000-{next(ids):012d}",
        clock=iter(float(n) / 1000 for n in range(10_000)).__next__,
    )


def test_answered_ask_json_snapshot() -> None:
    result = asker(FixedSearcher(corpus()), ExtractiveGenerator()).ask(
        "How much can a support team lead approve for a refund?", EMPLOYEE
    )
    body = ask_json(result)
    assert list(body) == [
        "outcome",
        "tier",
        "confidence",
        "answer",
        "citations",
        "missing",
        "readings",
        "clarifying_question",
        "reason_code",
        "handoff",
        "retrieved",
        "closest",
        "trace_id",
    ]
    assert body["outcome"] == "answered"
    assert body["citations"][0]["id"] == "refunds.md#2"
    assert_snapshot(
        SNAPSHOTS / "ask_answered.json", json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    )


def test_abstention_ask_json_snapshot_with_handoff() -> None:
    searcher = FixedSearcher(corpus(), threshold=0.95)  # nothing clears it
    generator = ScriptedGenerator()
    result = asker(searcher, generator).ask("Can I bring my dog to work?", EMPLOYEE)
    body = ask_json(result)
    assert body["outcome"] == "insufficient_evidence"
    assert generator.prompts == []  # the gate: no model call without hits
    # closest visible document: the best cut candidate the employee may read
    assert body["handoff"] == {"owner": "Finance", "source": "refunds.md"}
    assert body["citations"] is None and body["retrieved"] == []
    assert_snapshot(
        SNAPSHOTS / "ask_abstained.json", json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    )


def test_each_outcome_kind_fills_only_its_fields() -> None:
    replies = [
        '{"kind": "ambiguous", "readings": ["up to €1,000", "above €1,000"], '
        '"clarifying_question": "Which amount?"}',
        '{"kind": "declined", "reason_code": "out_of_scope"}',
    ]
    a = asker(FixedSearcher(corpus()), ScriptedGenerator(*replies))
    ambiguous = ask_json(a.ask("What is the refund limit?", EMPLOYEE))
    assert ambiguous["readings"] == ["up to €1,000", "above €1,000"]
    assert ambiguous["clarifying_question"] == "Which amount?"
    assert ambiguous["answer"] is None and ambiguous["reason_code"] == "model_ambiguous"
    declined = ask_json(a.ask("Write me a poem", EMPLOYEE))
    assert declined["outcome"] == "declined" and declined["reason_code"] == "out_of_scope"
    assert declined["handoff"] == {"owner": "Finance", "source": "refunds.md"}


def test_a_fabricated_citation_from_the_model_is_escalated() -> None:
    gen = ScriptedGenerator("Leads approve up to €1,000 [salary.md#1].")
    result = asker(FixedSearcher(corpus()), gen).ask("Refund limit?", EMPLOYEE)
    assert result.outcome.kind == "declined"
    assert ask_json(result)["reason_code"] == "fabricated_citation"
    assert result.outcome == Declined("requires_human", "fabricated citation: salary.md#1")
    assert any(c.check == "citations_known" and not c.passed for c in result.checks)


def test_permissions_are_rechecked_even_when_the_searcher_leaks() -> None:
    """A searcher that ignores permissions hands over a confidential hit and a group-only
    hit; nothing of them may reach the prompt, the answer, the JSON or the trace."""
    leaky = LeakySearcher(corpus())
    gen = ScriptedGenerator("Band L5 pays €92,000 [salary.md#1].")
    result = asker(leaky, gen).ask("What does band L5 pay?", EMPLOYEE)
    shown = json.dumps(ask_json(result), ensure_ascii=False)
    prompt = gen.prompts[0]
    for text in (SECRET_SALARY, "€92,000", "salary.md", "legal.md", "Litigation"):
        assert text not in prompt.user
        assert text not in shown
    assert result.outcome.kind == "declined"  # the model cited a block it was never shown
    assert {h.chunk.chunk_id for h in result.hits} == {"refunds.md#2", "refunds-2022.md#1"}
    recheck = next(c for c in result.checks if c.check == "permission_recheck")
    assert not recheck.passed and "dropped 2" in recheck.detail


def test_a_group_member_may_read_group_documents() -> None:
    legal = Principal("lee", "employee", frozenset({"legal"}))
    result = asker(FixedSearcher(corpus()), ExtractiveGenerator()).ask(
        "Who approves refunds under a litigation hold?", legal
    )
    assert "legal.md#1" in {h.chunk.chunk_id for h in result.hits}


def test_an_empty_question_is_invalid_input() -> None:
    with pytest.raises(InvalidInput, match="empty"):
        asker(FixedSearcher(corpus()), ExtractiveGenerator()).ask("   ", EMPLOYEE)


def test_constructor_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        Asker(FixedSearcher([]), ExtractiveGenerator(), None, budget_tokens=0)


def test_exclude_and_threshold_reach_the_searcher() -> None:
    a = asker(FixedSearcher(corpus()), ExtractiveGenerator())
    result = a.ask("Refund approval limit?", EMPLOYEE, exclude_chunk_ids=["refunds.md#2"])
    assert "refunds.md#2" not in {h.chunk.chunk_id for h in result.hits}
    result = a.ask("Refund approval limit?", EMPLOYEE, threshold=0.99)
    assert result.outcome.kind == "insufficient_evidence" and result.hits == ()


@pytest.mark.integration
def test_trace_is_persisted_and_readable(database_url: str) -> None:
    migrate(database_url)
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    try:
        a = asker(FixedSearcher(corpus(), index_version=42), ExtractiveGenerator(), sessions)
        result = a.ask("How much can a support team lead approve for a refund?", EMPLOYEE)
        with sessions() as session:
            record = session.scalars(select(TraceRecord)).one()
        assert record.id == result.trace_id
        assert record.user_id == "ana" and record.outcome == "answered"
        assert record.index_version == 42
        assert record.max_access_level == "public"
        payload = record.payload
        assert payload["principal"] == {
            "user_id": "ana",
            "clearance": "employee",
            "groups": ["eng"],
        }
        assert payload["question"] == "How much can a support team lead approve for a refund?"
        assert payload["system_prompt"].startswith("You answer employees' questions")
        assert '<doc id="refunds.md#2"' in payload["user_prompt"]
        assert payload["backend"] == "extractive" and payload["model"] == "extractive-v2"
        assert json.loads(payload["raw_output"])["kind"] == "answered"
        assert payload["outcome"]["kind"] == "answered"
        assert payload["chunks_dropped"] == 0
        top = payload["hits"][0]
        assert top["id"] == "refunds.md#2" and top["rank"] == 1
        assert top["stage_ranks"] == {"fixed": 1}
        assert {"bm25_rank", "vector_rank", "fused_score", "rerank_score"} <= set(top)
        assert {c["check"] for c in payload["checks"]} >= {"gate", "citations_known", "figures"}
        assert {"retrieval", "render", "generate", "checks", "total"} <= set(payload["timings_ms"])
        assert payload["access"] == [{"level": "public", "groups": []}]

        loaded = load_trace(sessions, result.trace_id)
        assert loaded["payload"] == payload
        # a reader who may not see a chunk of the trace gets "not found"
        assert load_trace(sessions, result.trace_id, Principal("p", "public"))
        with pytest.raises(TraceNotFound):
            load_trace(sessions, result.trace_id, Principal("x", "unknown-level"))
        with pytest.raises(TraceNotFound):
            load_trace(sessions, "no-such-trace")
    finally:
        engine.dispose()


@pytest.mark.integration
def test_trace_of_a_group_document_is_hidden_from_non_members(database_url: str) -> None:
    migrate(database_url)
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    try:
        legal = Principal("lee", "employee", frozenset({"legal"}))
        result = asker(FixedSearcher(corpus()), ExtractiveGenerator(), sessions).ask(
            "Who approves refunds under a litigation hold?", legal
        )
        with sessions() as session:
            record = session.get(TraceRecord, result.trace_id)
            assert record is not None and record.max_access_level == "employee"
        assert load_trace(sessions, result.trace_id, legal)["user_id"] == "lee"
        with pytest.raises(TraceNotFound):
            load_trace(sessions, result.trace_id, EMPLOYEE)  # employee, but not in "legal"
    finally:
        engine.dispose()


def test_a_non_answer_offers_the_closest_current_passages_the_asker_may_read() -> None:
    strict = ExtractiveGenerator(weights=Weights(min_score=9.0))  # nothing can answer
    body = ask_json(asker(FixedSearcher(corpus()), strict).ask("Refund limit?", EMPLOYEE))
    assert body["outcome"] == "insufficient_evidence"
    # The salary bands (confidential) and the legal group's page are not the asker's to
    # read; the 2022 refunds policy is left out beside its successor.
    assert [c["id"] for c in body["closest"]] == ["refunds.md#2"]
    assert body["closest"][0]["status"] == "current"
    # Each comes with its two units nearest the question, verbatim from that passage, the
    # nearest first (marked for the reader).
    assert body["closest"][0]["nearest"] == "A support team lead may approve refunds up to €1,000."
    assert body["closest"][0]["excerpt"] == (
        "A support team lead may approve refunds up to €1,000. … Refunds above €1,000 need "
        "finance approval from the Finance Controller before they are paid."
    )
    # An answer offers nothing: its citations are the passages to read.
    answered = ask_json(
        asker(FixedSearcher(corpus()), ExtractiveGenerator()).ask(
            "How much can a support team lead approve for refunds?", EMPLOYEE
        )
    )
    assert answered["outcome"] == "answered" and answered["closest"] == []


def test_closest_excerpts_come_only_from_passages_the_asker_may_read() -> None:
    # A searcher that ignores permissions hands the Asker the confidential salary bands
    # first; the Asker re-checks, so no excerpt (nor anything else) quotes them.
    strict = ExtractiveGenerator(weights=Weights(min_score=9.0))
    body = ask_json(asker(LeakySearcher(corpus()), strict).ask("Refund limit?", EMPLOYEE))
    assert body["outcome"] == "insufficient_evidence"
    assert body["closest"] and all(c["excerpt"] for c in body["closest"])
    assert "salary.md#1" not in [c["id"] for c in body["closest"]]
    assert SECRET_SALARY not in json.dumps(body, ensure_ascii=False)


def test_a_copy_of_a_passage_in_another_format_takes_no_second_slot() -> None:
    """The Word copy numbers the item the Markdown writes plainly ("1. Generally speaking,
    …"): the same nearest unit, so the next passage is shown instead (a user pass saw both)."""
    item = "Generally speaking, gifts worth more than $100 must be declined."
    markdown = hit("policies/gifts.md#0", {item: 0.6}, rank=1, score=0.6)
    word = hit("formats/policies__gifts.docx#0", {f"1. {item}": 0.6}, rank=2, score=0.6)
    other = hit(
        "policies/travel.md#0", {"Travel gifts are reported to Legal.": 0.5}, rank=3, score=0.5
    )
    strict = ExtractiveGenerator(weights=Weights(min_score=9.0))  # nothing answers
    body = ask_json(
        asker(FixedSearcher([markdown, word, other]), strict).ask("Gift limit?", EMPLOYEE)
    )
    assert [c["id"] for c in body["closest"]] == ["policies/gifts.md#0", "policies/travel.md#0"]
