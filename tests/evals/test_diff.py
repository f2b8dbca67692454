"""Per-case transitions between two runs, and the refusal to compare different indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.diff import check_comparable, diff_runs, format_diff
from evals.errors import CaseFileError, IndexVersionMismatch
from evals.results import meta_path, read_results, write_results


def row(qid: str, column: str) -> dict[str, object]:
    return {"qid": qid, "stratum": "answerable", "grade": {"column": column, "reason": ""}}


A = [
    row("q1", "wrong"),
    row("q2", "wrong"),
    row("q3", "correct"),
    row("q4", "abstained"),
    row("gone", "correct"),
]
B = [
    row("q1", "abstained"),
    row("q2", "abstained"),
    row("q3", "correct"),
    row("q4", "correct"),
    row("new", "wrong"),
]


def test_transitions_name_the_qids_that_moved() -> None:
    d = diff_runs(A, B)
    assert d.moved == {("abstained", "correct"): ("q4",), ("wrong", "abstained"): ("q1", "q2")}
    assert d.unchanged == 1
    assert d.only_in_a == ("gone",)
    assert d.only_in_b == ("new",)
    text = format_diff(d, {"index_version": 3}, {"index_version": 3})
    assert "| wrong | abstained | 2 | q1, q2 |" in text
    assert "only in A: gone" in text


def test_runs_over_different_index_versions_are_refused_unless_forced() -> None:
    check_comparable({"index_version": 4}, {"index_version": 4})
    with pytest.raises(IndexVersionMismatch, match=r"different index versions \(4 vs 5\)"):
        check_comparable({"index_version": 4}, {"index_version": 5})
    check_comparable({"index_version": 4}, {"index_version": 5}, force=True)


def test_results_round_trip_with_their_meta_sidecar(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    write_results(path, A, {"index_version": 7, "config": {"backend": "extractive"}})
    assert meta_path(path) == tmp_path / "run.meta.json"
    meta, rows = read_results(path)
    assert meta["index_version"] == 7
    assert [r["qid"] for r in rows] == [r["qid"] for r in A]


def test_a_results_file_without_grades_or_sidecar_is_named(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text('{"qid": "q1", "outcome": "answered"}\n', encoding="utf-8")
    with pytest.raises(CaseFileError, match=r"run.jsonl line 1: result 'q1' has no 'grade.column'"):
        read_results(path)
    write_results(path, A, {})
    meta_path(path).unlink()
    with pytest.raises(CaseFileError, match="run.meta.json: cannot read"):
        read_results(path)
