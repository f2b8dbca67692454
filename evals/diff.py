"""Compare two runs case by case: which questions moved between the three columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from evals.errors import IndexVersionMismatch, PromptMismatch


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
    """Runs over different indexes measure different corpora, and runs with different
    prompts different systems: refuse unless forced. The index is judged by its fingerprint
    (chunk ids and texts), not its version counter; a run without a fingerprint or a prompt
    hash (made before they were recorded) cannot be shown to match."""
    if force:
        return
    fa, fb = meta_a.get("index_fingerprint"), meta_b.get("index_fingerprint")
    if fa is None or fb is None or fa != fb:
        raise IndexVersionMismatch(
            f"the runs were made over different indexes (fingerprint {_short(fa)} vs "
            f"{_short(fb)}); re-run both over the same index, or pass --force to compare anyway"
        )
    pa, pb = meta_a.get("prompt_hash"), meta_b.get("prompt_hash")
    if pa is None or pb is None or pa != pb:
        raise PromptMismatch(
            f"the runs were made with different prompts (prompt hash {_short(pa)} vs "
            f"{_short(pb)}); re-run both with the same prompt, or pass --force to compare anyway"
        )


def _short(value: object) -> str:
    return "none recorded" if not value else str(value)[:12]


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
        f"A: index {_short(meta_a.get('index_fingerprint'))} (version "
        f"{meta_a.get('index_version')}), prompt {_short(meta_a.get('prompt_hash'))}, "
        f"{_config(meta_a)}",
        f"B: index {_short(meta_b.get('index_fingerprint'))} (version "
        f"{meta_b.get('index_version')}), prompt {_short(meta_b.get('prompt_hash'))}, "
        f"{_config(meta_b)}",
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
