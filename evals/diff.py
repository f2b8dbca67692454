"""Compare two runs case by case: which questions moved between the three columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.errors import IndexVersionMismatch


@dataclass(frozen=True)
class RunDiff:
    # (from column, to column) -> qids that moved, sorted; unchanged cases are left out.
    moved: Mapping[tuple[str, str], tuple[str, ...]]
    unchanged: int
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]


def check_comparable(
    meta_a: Mapping[str, Any], meta_b: Mapping[str, Any], force: bool = False
) -> None:
    """Runs over different index versions measure different corpora; refuse unless forced."""
    va, vb = meta_a.get("index_version"), meta_b.get("index_version")
    if va != vb and not force:
        raise IndexVersionMismatch(
            f"the runs were made over different index versions ({va} vs {vb}); "
            "re-run both over the same index, or pass --force to compare anyway"
        )


def diff_runs(rows_a: Sequence[Mapping[str, Any]], rows_b: Sequence[Mapping[str, Any]]) -> RunDiff:
    col_a = {str(r["qid"]): str(r["grade"]["column"]) for r in rows_a}
    col_b = {str(r["qid"]): str(r["grade"]["column"]) for r in rows_b}
    moved: dict[tuple[str, str], list[str]] = {}
    unchanged = 0
    for qid in sorted(col_a.keys() & col_b.keys()):
        if col_a[qid] == col_b[qid]:
            unchanged += 1
        else:
            moved.setdefault((col_a[qid], col_b[qid]), []).append(qid)
    return RunDiff(
        moved={k: tuple(v) for k, v in sorted(moved.items())},
        unchanged=unchanged,
        only_in_a=tuple(sorted(col_a.keys() - col_b.keys())),
        only_in_b=tuple(sorted(col_b.keys() - col_a.keys())),
    )


def format_diff(diff: RunDiff, meta_a: Mapping[str, Any], meta_b: Mapping[str, Any]) -> str:
    lines = [
        f"A: index_version {meta_a.get('index_version')}, {_config(meta_a)}",
        f"B: index_version {meta_b.get('index_version')}, {_config(meta_b)}",
        "",
        "| from | to | cases | qids |",
        "|---|---|---|---|",
    ]
    for (src, dst), qids in diff.moved.items():
        lines.append(f"| {src} | {dst} | {len(qids)} | {', '.join(qids)} |")
    if not diff.moved:
        lines.append("| – | – | 0 | no case changed column |")
    lines.append("")
    lines.append(f"unchanged: {diff.unchanged}")
    if diff.only_in_a:
        lines.append(f"only in A: {', '.join(diff.only_in_a)}")
    if diff.only_in_b:
        lines.append(f"only in B: {', '.join(diff.only_in_b)}")
    return "\n".join(lines)


def _config(meta: Mapping[str, Any]) -> str:
    config = meta.get("config") or {}
    return f"backend {config.get('backend')}, threshold {config.get('threshold')}"
