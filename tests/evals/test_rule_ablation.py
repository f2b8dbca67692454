"""The rule ablation's scoring and verdicts, over rows shaped as ``evals/transfer_record.py``
writes them (the command records them from real searches: ``evals/rule_ablation.py``)."""

from __future__ import annotations

from evals.rule_ablation import EVERY, FoldScore, fold_scores, report, verdict
from tests.evals.test_transfer import corpus_rows


def score(wrong: int = 0, first: int = 10, right: int = 5) -> FoldScore:
    return FoldScore(wrong, 100, first, 20, right, 15)


def test_a_rule_is_kept_when_some_fold_gets_worse_without_it() -> None:
    every = {"a": score(), "b": score()}
    assert verdict({"a": score(wrong=1), "b": score()}, every).startswith("keep: without it a")
    assert verdict({"a": score(), "b": score(first=9)}, every).startswith("keep: without it b")
    assert verdict({"a": score(right=4), "b": score()}, every).startswith("keep")


def test_a_rule_whose_absence_changes_nothing_or_only_helps_is_dropped() -> None:
    every = {"a": score(), "b": score()}
    assert verdict(dict(every), every) == "drop: changes no fold"
    better = verdict({"a": score(right=6), "b": score()}, every)
    assert better == "drop: better without it on a, worse nowhere"


def test_a_mixed_rule_is_kept_and_says_where_it_hurts() -> None:
    every = {"a": score(), "b": score()}
    said = verdict({"a": score(right=7), "b": score(wrong=2)}, every)
    assert said == "keep: without it b get(s) worse"


def test_fold_scores_hold_each_corpus_out_and_count_what_the_cells_say() -> None:
    rows = [r for c in ("one", "two", "three") for r in corpus_rows(c)]
    scores = fold_scores(rows, "dev", 0.05)
    assert sorted(scores) == ["one", "three", "two"]
    for corpus, s in scores.items():
        mine = [r for r in rows if r["corpus"] == corpus]
        assert s.cases == len(mine)
        assert s.must_answer == sum(r["must_answer"] for r in mine)
        assert 0 <= s.wrong <= s.cases and 0 <= s.right <= s.answerable
    text = report({EVERY: scores, "frequency": scores}, "dev")
    assert "| (every rule) |" in text and "| without `frequency` |" in text
    assert "drop: changes no fold" in text
