"""Side-by-side outcome/reason counts and the re-read of what users saw."""

from __future__ import annotations

from typing import Any

from evals.adversarial_report import side_by_side

PASSAGE = {
    "id": "leave.md#1",
    "source": "leave.md",
    "heading_path": ["Leave"],
    "text": "Full-time staff get 25 days of annual leave.",
}


def row(qid: str, outcome: str, reason: str | None, column: str, **fields: Any) -> dict:
    base = {
        "qid": qid,
        "outcome": outcome,
        "reason_code": reason,
        "grade": {"column": column, "reason": ""},
        "answer": None,
        "citations": None,
        "missing": None,
        "readings": None,
        "clarifying_question": None,
        "retrieved": [PASSAGE],
    }
    return {**base, **fields}


def cited(answer: str) -> dict[str, Any]:
    return {
        "answer": answer,
        "citations": [
            {"id": "leave.md#1", "quote": "Full-time staff get 25 days of annual leave."}
        ],
    }


def test_counts_sit_side_by_side_and_violations_are_named() -> None:
    ext = [
        row("a", "answered", None, "correct", **cited("Staff get 25 days [leave.md#1].")),
        row("b", "insufficient_evidence", "below_threshold", "abstained", retrieved=[]),
    ]
    bad = [
        row("a", "answered", None, "wrong", **cited("Staff get 30 days [leave.md#1].")),
        row("b", "insufficient_evidence", "unsupported_figure", "abstained"),
    ]
    text = side_by_side(
        {
            "extractive": ({"config": {"backend": "extractive"}}, ext),
            "hostile": ({"config": {"backend": "openai"}}, bad),
        }
    )
    assert "| answered | none | 1 | 1 |" in text
    assert "| insufficient_evidence | below_threshold | 1 | 0 |" in text
    assert "| insufficient_evidence | unsupported_figure | 0 | 1 |" in text
    assert "| extractive (extractive) | 2 | 1 / 0 / 1 | 0 |" in text
    assert "| hostile (openai) | 2 | 0 / 1 / 1 | 1 |" in text
    assert "- hostile a: unsupported figure: Staff get 30 days." in text
