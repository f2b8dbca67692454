"""The retrieval order's fit and its leave-one-corpus-out check, over candidate rows as
``python -m evals.order_fit record`` writes them."""

from __future__ import annotations

from typing import Any

import pytest

from evals.order_fit import fit_order, pairs, placed, report, within
from retrieval.order import EvidenceOrder

Row = dict[str, Any]


def candidate(rank: int, relevance: float, keyword: float, holds: bool) -> dict[str, Any]:
    return {
        "id": f"d{rank}.md#0",
        "rerank_rank": rank,
        "signals": [relevance, relevance, relevance, keyword, 0.0, 0.7, 0.5],
        "holds": holds,
    }


def question(corpus: str, n: int, split: str = "dev") -> Row:
    """The reranker puts a near-topic passage first; the answer, second, is the one the
    keyword leg ranked first."""
    return {
        "corpus": corpus,
        "qid": f"{corpus}-{n}",
        "phrasing": "paraphrase",
        "split": split,
        "candidates": [
            candidate(1, 0.62 + 0.001 * n, 0.0, False),
            candidate(2, 0.60, 1 / 11, True),
            candidate(3, 0.58, 1 / 12, False),
            candidate(4, 0.50, 0.0, False),
        ],
    }


def test_the_fit_finds_the_keyword_rank_that_separates_the_answer() -> None:
    order = fit_order([question("a", n) for n in range(20)])
    assert order.rerank == pytest.approx(1.0)  # the unit: weights are ratios to it
    assert order.keyword > 0
    row = question("a", 0)
    assert placed(row, None) == 2  # the reranker's order
    assert placed(row, order) == 1


def test_pairs_are_answer_bearing_against_the_rest_both_ways() -> None:
    x, y = pairs([question("a", 0)])
    assert len(x) == 6 and y.tolist() == [1, 1, 1, 0, 0, 0]
    assert (x[:3] == -x[3:]).all()
    no_answer = question("a", 1)
    for c in no_answer["candidates"]:
        c["holds"] = False
    with pytest.raises(ValueError, match="no question has both"):
        pairs([no_answer])


def test_a_question_whose_candidates_hold_no_answer_is_never_counted_placed() -> None:
    row = question("a", 0)
    for c in row["candidates"]:
        c["holds"] = False
    assert placed(row, None) is None and within([row], None, 5) == 0


def test_the_report_holds_each_corpus_out_and_reads_one_split() -> None:
    rows = [question(c, n) for c in ("a", "b", "c") for n in range(10)]
    rows += [question("a", n, split="test") for n in range(5)]
    text = report(rows, "dev")
    for corpus in ("a", "b", "c"):
        assert f"| {corpus} | 10 |" in text  # the test rows are not read
    assert "top 5 by phrasing" in text and "paraphrase 10 → 10/10" in text
    assert "Fitted on every corpus's dev rows: rerank 1.0" in text


def test_a_fitted_order_is_an_evidence_order() -> None:
    assert isinstance(fit_order([question("a", n) for n in range(5)]), EvidenceOrder)


def test_rows_recorded_with_another_set_of_signals_are_refused_with_what_to_do() -> None:
    old = question("a", 0)
    for c in old["candidates"]:
        c["signals"] = c["signals"][:6]  # recorded before the term coverage
    with pytest.raises(ValueError, match="record them again"):
        fit_order([old])
    with pytest.raises(ValueError, match="record them again"):
        report([old], "dev")
