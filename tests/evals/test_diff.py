"""Per-case transitions between two runs, and the refusal to compare different indexes."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.diff import check_comparable, diff_runs, format_diff
from evals.errors import CaseFileError, IndexVersionMismatch, PromptMismatch
from evals.fingerprint import index_fingerprint, prompt_hash
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


SAME = {"index_fingerprint": "f" * 64, "prompt_hash": "p" * 64}


def test_runs_pinned_to_the_same_index_and_prompt_compare() -> None:
    # The version counter is not what pins a run: a reindex bumps it, the content stays.
    check_comparable({**SAME, "index_version": 4}, {**SAME, "index_version": 9})


@pytest.mark.parametrize(
    ("b", "error", "message"),
    [
        ({**SAME, "index_fingerprint": "g" * 64}, IndexVersionMismatch, "fingerprint ffffff"),
        ({"prompt_hash": "p" * 64}, IndexVersionMismatch, "vs none recorded"),
        ({**SAME, "prompt_hash": "q" * 64}, PromptMismatch, "prompt hash pppppp"),
        ({"index_fingerprint": "f" * 64}, PromptMismatch, "vs none recorded"),
    ],
)
def test_a_different_or_missing_fingerprint_or_prompt_hash_is_refused_unless_forced(
    b: dict[str, str], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        check_comparable(SAME, b)
    check_comparable(SAME, b, force=True)


def test_the_fingerprint_follows_chunk_content_not_order() -> None:
    chunks = [("a.md#1", "one"), ("b.md#1", "two")]
    assert index_fingerprint(chunks) == index_fingerprint(list(reversed(chunks)))
    assert index_fingerprint(chunks) != index_fingerprint([("a.md#1", "one!"), ("b.md#1", "two")])
    assert index_fingerprint(chunks) != index_fingerprint(chunks[:1])
    assert len(prompt_hash()) == 64 and prompt_hash() == prompt_hash()


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
