"""The report's dev/test section, from hand-made rows and cases."""

from __future__ import annotations

import pytest

from evals.cases import Case
from evals.metrics import Rate, wilson
from evals.report import build_report
from evals.split_report import gap_points, graded_by_split, split_section


def test_wilson_of_3_in_4_by_hand() -> None:
    # p = 0.75, n = 4, z = 1.96, z² = 3.8416; denominator 1 + z²/n = 1.9604
    # centre = (0.75 + 3.8416/8) / 1.9604 = 1.2302 / 1.9604 = 0.62753
    # half = 1.96 · sqrt(0.75·0.25/4 + 3.8416/64) / 1.9604 = 1.96 · 0.32696 / 1.9604 = 0.32689
    assert wilson(3, 4) == pytest.approx((0.30063, 0.95441), abs=5e-5)
    assert str(Rate(3, 4)) == "3/4 75% [30%–95%]"


def case(qid: str, stratum: str, split: str | None, phrasing: str | None = None) -> Case:
    fact = None if split is None else f"fact-{qid}"
    expect = ("x",) if stratum == "answerable" else ()
    return Case(qid, "?", stratum, "employee", expect, fact=fact, phrasing=phrasing, split=split)


CASES = {
    c.qid: c
    for c in (
        case("d1", "answerable", "dev", "doc"),
        case("d2", "answerable", "dev", "scenario"),
        case("t1", "answerable", "test", "doc"),
        case("t2", "answerable", "test", "paraphrase"),
        case("t3", "answerable", "test", "scenario"),
        case("t4", "out_of_corpus", "test"),
    )
}


def row(qid: str, stratum: str, column: str) -> dict[str, object]:
    return {
        "qid": qid,
        "stratum": stratum,
        "outcome": "answered" if column != "abstained" else "insufficient_evidence",
        "answer": "x",
        "grade": {"column": column, "reason": ""},
        "leaks": [],
        "latency_ms": 1.0,
    }


ROWS = [
    row("d1", "answerable", "correct"),
    row("d2", "answerable", "correct"),
    row("t1", "answerable", "correct"),
    row("t2", "answerable", "wrong"),
    row("t3", "answerable", "abstained"),
    row("t4", "out_of_corpus", "correct"),
    row("t3~unretrieved", "unretrieved", "correct"),
]


def test_rows_are_grouped_by_the_split_of_their_case_and_derived_rows_follow_theirs() -> None:
    by_split = graded_by_split(ROWS, CASES)
    assert by_split["dev"] == [
        ("answerable", "doc", "correct"),
        ("answerable", "scenario", "correct"),
    ]
    assert ("unretrieved", "scenario", "correct") in by_split["test"]
    assert len(by_split["test"]) == 5


def test_gap_is_dev_minus_test_in_points() -> None:
    assert gap_points(Rate(2, 2), Rate(1, 3)) == pytest.approx(66.667, abs=1e-3)
    assert gap_points(Rate(0, 0), Rate(1, 3)) is None


def test_section_tables_by_split_stratum_and_phrasing() -> None:
    text = "\n".join(split_section(ROWS, CASES))
    # side by side: answerable dev 2/2, test 1/3, gap +67 points, flagged
    assert "| answerable | 2/2 100% [34%–100%] | 1/3 33% [6%–79%] | +67 ⚠ |" in text
    assert "| answerable, paraphrase | – | 0/1 0% [0%–79%] | – |" in text
    assert text.index("### test: by stratum") < text.index("### dev: by stratum")
    test_part = text.split("### test: by stratum")[1].split("### dev")[0]
    assert (
        "| answerable | 3 | 1/3 33% [6%–79%] | 1/3 33% [6%–79%] | 1/3 33% [6%–79%] |" in test_part
    )
    assert "| unretrieved | 1 | 1/1 100% [21%–100%] |" in test_part
    paraphrase = "| paraphrase | 1 | 0/1 0% [0%–79%] | 1/1 100% [21%–100%] | 0/1 0% [0%–79%] |"
    assert paraphrase in test_part


def test_a_case_file_without_splits_gets_no_section() -> None:
    plain = {"a": case("a", "answerable", None)}
    rows = [row("a", "answerable", "correct")]
    assert split_section(rows, plain) == []
    report = build_report(rows, plain, {"config": {}})
    assert "Dev and test" not in report and "| answerable | 1 | 1/1 100%" in report
    assert "Dev and test" in build_report(ROWS, CASES, {"config": {}})
