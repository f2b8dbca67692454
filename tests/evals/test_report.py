"""The run report and the retrieval-stage table, from hand-made rows."""

from __future__ import annotations

from evals.cases import Case, GoldRef
from evals.report import build_report, retrieval_stage_table

GOLD = (GoldRef.parse("leave.md#Leave > Vacation"),)
CASES = {
    "a1": Case("a1", "?", "answerable", "employee", expect=("25 days",), gold=GOLD),
    "a2": Case("a2", "?", "answerable", "employee", expect=("25 days",), gold=GOLD),
    "p1": Case("p1", "?", "permission", "employee", forbidden=("Bluebird",)),
}
VACATION = {"id": "leave.md#1", "source": "leave.md", "heading_path": ["Leave", "Vacation"]}
SICK = {"id": "leave.md#2", "source": "leave.md", "heading_path": ["Leave", "Sick"]}


def row(qid: str, stratum: str, outcome: str, column: str, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "qid": qid,
        "stratum": stratum,
        "outcome": outcome,
        "answer": None,
        "citations": None,
        "retrieved": [],
        "ranked": [],
        "latency_ms": 10.0,
        "timings_ms": {"retrieval": 8.0},
        "grade": {"column": column, "reason": "because"},
        "leaks": [],
    }
    return base | extra


ROWS = [
    row(
        "a1",
        "answerable",
        "answered",
        "correct",
        answer="25 days [leave.md#1]",
        citations=[{"id": "leave.md#1", "quote": "25 days"}],
        retrieved=[{**VACATION, "text": "You get 25 days."}, {**SICK, "text": "Sick: 10 days."}],
        ranked=[VACATION, SICK],
    ),
    row("a2", "answerable", "insufficient_evidence", "abstained", ranked=[SICK, VACATION]),
    row("p1", "permission", "answered", "wrong", leaks=["forbidden text 'Bluebird' in output"]),
]


def test_report_tables_by_hand() -> None:
    text = build_report(ROWS, CASES, {"index_version": 3, "chunks": 9, "config": {"top_k": 5}})
    assert "| answerable | 2 | 1/2 50% [9%–91%] | 0/2 0% [0%–66%] | 1/2 50% [9%–91%] |" in text
    assert "| **all** | 3 | 1/3 " in text
    assert "| false abstention (non-answer on must-answer strata) | 1/2 50%" in text
    assert "| answered a must-abstain question | 1/1 100%" in text
    # Section: a1 has gold at rank 1, a2 at rank 2 -> R@1 0.5, MRR 0.75.
    assert "| section | 2 | 0.50 | 1.00 | 1.00 | 0.75 |" in text
    assert "Context precision (share of passages sent to the model that are gold): 0.50" in text
    assert "| cases leaking text above the asker's level (must be 0) | 1 |" in text
    assert "| leak in p1 | forbidden text 'Bluebird' in output |" in text
    assert (
        "| figures in answers absent from the cited text | 0 of 1 | guaranteed by the checks"
        in (text)
    )
    extractive = build_report(ROWS, CASES, {"config": {"backend": "extractive"}})
    assert (
        "| answers with at least one citation | 1/2 50% [9%–91%] | guaranteed by construction"
        in (extractive)
    )
    assert "| leak in p1 | forbidden text 'Bluebird' in output | measured |" in extractive
    assert "| answered | none | 2 |" in text and "| insufficient_evidence | none | 1 |" in text
    assert "| retrieval | 8.0 | 8.0 | 3 |" in text
    assert "| a2 | answerable | abstained | because |" in text


def test_retrieval_stage_table_by_hand() -> None:
    stages = {
        "bm25": [("leave.md", ["Leave", "Sick"]), ("leave.md", ["Leave", "Vacation"])],
        "vector": [("leave.md", ["Leave", "Vacation"])],
        "fused": [],
        "reranked": [("leave.md", ["Leave", "Vacation"])],
    }
    table = retrieval_stage_table([(CASES["a1"], stages)])
    assert "| BM25 only | 1 | 0.00 | 1.00 | 1.00 | 0.50 | 1.00 | 1.00 | 1.00 |" in table
    assert "| fused (RRF) | 1 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 | 0.00 |" in table
    assert "| fused + rerank | 1 | 1.00 |" in table


def test_the_report_counts_non_answers_that_offered_the_right_passage() -> None:
    offered = [
        row("a1", "answerable", "insufficient_evidence", "abstained", closest=[SICK, VACATION]),
        # The right section was retrieved, but not among the passages offered.
        row(
            "a2",
            "answerable",
            "insufficient_evidence",
            "abstained",
            retrieved=[SICK, VACATION],
            closest=[SICK],
        ),
        # An ambiguous outcome offers readings, not passages: not counted.
        row("a3", "answerable", "ambiguous", "abstained", closest=[]),
    ]
    cases = CASES | {"a3": Case("a3", "?", "answerable", "employee", gold=GOLD)}
    text = build_report(offered, cases, {"config": {}})
    assert "hold the right section | 1/2 50%" in text


def test_the_report_counts_non_answers_whose_excerpt_holds_the_answer() -> None:
    vacation = {**VACATION, "excerpt": "Full-time staff get 25 DAYS of paid leave."}
    sick = {**SICK, "excerpt": "You have 10 days of paid sick leave."}
    rows = [
        row("a1", "answerable", "insufficient_evidence", "abstained", closest=[sick, vacation]),
        row("a2", "answerable", "insufficient_evidence", "abstained", closest=[sick]),
        # An answer is not counted: its citations are what the asker reads.
        row("a3", "answerable", "answered", "correct", closest=[]),
    ]
    cases = CASES | {"a3": Case("a3", "?", "answerable", "employee", expect=("x",), gold=GOLD)}
    text = build_report(rows, cases, {"config": {}})
    assert "holds the expected answer | 1/2 50%" in text
