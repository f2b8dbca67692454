"""What a verdict's case expects: the quote's shortest distinctive figure, else the quote; and
the verdicts that say no case. (Real traces through the export: tests/api/test_feedback.py.)"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from docent.db.feedback import JudgedAsk, Verdict
from evals.feedback_cases import case_of, expect_of

QUOTES = [
    (
        "Employees may work from home up to three days per week.",
        "How often from home?",
        "three days",
    ),
    ("Refunds over €1,000 need approval; up to €500 a lead approves.", "refunds?", "€500"),
    ("Since 2025, the refund window is 30 days.", "refund window?", "30 days"),
    ("Carry-over leave must be used by 31 March.", "carry-over?", "31 March"),
    ("A 15% discount applies to 3 or more seats.", "discount?", "15%"),
    # A figure the question names is not what the answer adds.
    ("Receipts are needed over 25 euros, not for 20 euros.", "a 20 euro taxi?", "25 euros"),
    # A figure said twice is not distinctive; with none left, the quote itself.
    ("Notice is 30 days, paid 30 days after.", "notice?", "Notice is 30 days, paid 30 days after."),
    ("Managers approve  home working.", "who approves?", "Managers approve home working."),
    ("The nearest sentence, cut at a word …", "q", "The nearest sentence, cut at a word"),
]


@pytest.mark.parametrize(("quote", "question", "expected"), QUOTES)
def test_expect_is_the_shortest_distinctive_figure(
    quote: str, question: str, expected: str
) -> None:
    assert expect_of(quote, question) == expected


def judged(verdict: str, chunk_id: str | None, payload: dict) -> JudgedAsk:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return JudgedAsk(Verdict("t1", "ada", verdict, chunk_id, None, when), "q?", payload)


def test_verdicts_that_say_no_case() -> None:
    asker = {"principal": {"clearance": "employee", "groups": []}}
    non_answer = {**asker, "outcome": {"kind": "insufficient_evidence"}, "hits": []}
    assert "none of these" in str(case_of(judged("not_answered", None, non_answer)))
    assert "no excerpt" in str(case_of(judged("answered", "a.md#0", non_answer)))
    no_asker = {"outcome": {"kind": "answered", "citations": []}}
    assert "clearance" in str(case_of(judged("answered", None, no_asker)))
