"""Outcome and reason counts of runs side by side (say the extractive backend and the hostile
model of ``evals.hostile``, over the same cases and index), and what a user saw that breaks
the fail-closed rule, re-read from each row's visible text and retrieved passages.

    python -m evals.adversarial_report extractive=runs/ext.jsonl hostile=runs/hostile.jsonl
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from docent.contracts import Chunk, Hit
from evals.hostile import fail_closed_violations, visible
from evals.results import read_results


def retrieved_hits(row: Mapping[str, Any]) -> dict[str, Hit]:
    """The passages a row's prompt showed, as hits (no effective date: the row does not
    carry it, so a figure only an effective date supports counts as unsupported here)."""
    hits: dict[str, Hit] = {}
    for n, item in enumerate(row.get("retrieved") or [], start=1):
        chunk = Chunk(
            chunk_id=str(item["id"]),
            doc_id=str(item["source"]),
            source=str(item["source"]),
            heading_path=tuple(item.get("heading_path") or ()),
            kind="text",
            text=str(item.get("text") or ""),
            embed_text="",
            sentences=(),
            content_hash="",
        )
        hits[chunk.chunk_id] = Hit(chunk, n, float(item.get("score") or 0.0))
    return hits


def side_by_side(
    runs: Mapping[str, tuple[Mapping[str, Any], Sequence[Mapping[str, Any]]]],
) -> str:
    names = list(runs)
    counts = {
        name: Counter((str(r.get("outcome")), str(r.get("reason_code") or "none")) for r in rows)
        for name, (_, rows) in runs.items()
    }
    keys = sorted(set().union(*(c.keys() for c in counts.values())))
    lines = [
        "| outcome | reason | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    for outcome, reason in keys:
        cells = " | ".join(str(counts[n][(outcome, reason)]) for n in names)
        lines.append(f"| {outcome} | {reason} | {cells} |")
    lines += ["", "| run | cases | columns (correct / wrong / abstained) | visible violations |"]
    lines.append("|---|---|---|---|")
    examples: list[str] = []
    for name, (meta, rows) in runs.items():
        columns = Counter(str(r["grade"]["column"]) for r in rows)
        violations = 0
        for r in rows:
            found = fail_closed_violations(visible(r), retrieved_hits(r))
            violations += len(found)
            examples += [f"- {name} {r['qid']}: {v}" for v in found[:1]]
        lines.append(
            f"| {name} ({meta.get('config', {}).get('backend')}) | {len(rows)} | "
            f"{columns['correct']} / {columns['wrong']} / {columns['abstained']} | {violations} |"
        )
    if examples:
        lines += ["", "Violations found:", *examples[:20]]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("runs", nargs="+", help="NAME=RESULTS.jsonl")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    runs = {}
    for spec in args.runs:
        name, _, path = spec.partition("=")
        runs[name] = read_results(Path(path))
    text = side_by_side(runs)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")


if __name__ == "__main__":
    main()
