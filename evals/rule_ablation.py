"""Does each question-phrase rule earn its place? Leave one corpus out, one rule at a time.

    python -m evals.rule_ablation --corpus NAME=DATA_DIR=CASES.jsonl [--corpus …] \
        [--split dev] [--rules a,b] [--target 0.01] [--out REPORT.md]

Every case of the split (with its derived ``unretrieved`` twin) is searched once; then it is
asked with every rule of ``generate.question_types.RULES`` (the deployment's reading) and
without each rule in turn, gate open and shut, recorded as ``evals/transfer_record.py``
records. Per reading, each fold fits the answer gate on the other corpora's dev rows and
chooses its bar there (``evals.transfer.fold``), and the held-out corpus is scored:
wrong-and-confident, first screen, answered right. A rule earns its place when reading
without it makes some fold worse (more wrong answers shown, or fewer first screens or right
answers) — on a corpus the gate never saw; a rule whose absence changes nothing anywhere,
or only helps, does not. Each data dir must already hold its corpus's index.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Row = dict[str, Any]
EVERY = "(every rule)"


@dataclass(frozen=True)
class FoldScore:
    """One held-out corpus under one reading."""

    wrong: int
    cases: int
    first_screen: int
    must_answer: int
    right: int
    answerable: int

    def worse_than(self, other: FoldScore) -> bool:
        return (
            self.wrong > other.wrong
            or self.first_screen < other.first_screen
            or self.right < other.right
        )

    def text(self) -> str:
        return (
            f"{self.wrong}/{self.cases} · {self.first_screen}/{self.must_answer} · "
            f"{self.right}/{self.answerable}"
        )


def fold_scores(rows: Sequence[Row], split: str, target: float) -> dict[str, FoldScore]:
    """Each corpus held out in turn (the gate fitted on the others' dev rows)."""
    from evals.transfer import fold
    from generate.answer_gate import FITTED_SIGNALS

    out: dict[str, FoldScore] = {}
    for held in sorted({r["corpus"] for r in rows}):
        _, shown = fold(rows, held, split, FITTED_SIGNALS, target)
        must = [c for c in shown if c.row["must_answer"]]
        answerable = [c for c in shown if c.row["stratum"] == "answerable"]
        out[held] = FoldScore(
            wrong=sum(c.wrong for c in shown),
            cases=len(shown),
            first_screen=sum(c.first_screen for c in must),
            must_answer=len(must),
            right=sum(c.answered and c.column == "correct" for c in answerable),
            answerable=len(answerable),
        )
    return out


def verdict(without: Mapping[str, FoldScore], every: Mapping[str, FoldScore]) -> str:
    hurt = [c for c in every if without[c].worse_than(every[c])]
    helped = [c for c in every if every[c].worse_than(without[c])]
    if hurt:
        return "keep: without it " + ", ".join(hurt) + " get(s) worse"
    if helped:
        return "drop: better without it on " + ", ".join(helped) + ", worse nowhere"
    return "drop: changes no fold"


def report(scores: Mapping[str, Mapping[str, FoldScore]], split: str) -> str:
    corpora = sorted(scores[EVERY])
    lines = [
        f"Split: {split}. Each cell: wrong-and-confident / all cases · first screen / "
        "must-answer · answered right / answerable, the gate fitted on the other corpora.",
        "",
        f"| reading | {' | '.join(corpora)} | verdict |",
        "|---" * (len(corpora) + 2) + "|",
    ]
    every = scores[EVERY]
    for name, by_fold in scores.items():
        cells = " | ".join(by_fold[c].text() for c in corpora)
        said = "—" if name == EVERY else verdict(by_fold, every)
        label = name if name == EVERY else f"without `{name}`"
        lines.append(f"| {label} | {cells} | {said} |")
    return "\n".join(lines) + "\n"


def record_corpus(
    name: str, data_dir: Path, cases_file: Path, split: str, readings: Mapping[str, frozenset[str]]
) -> dict[str, list[Row]]:
    """One corpus's rows under every reading: one search per case, replayed for each."""
    from docent.settings import Settings
    from docent.wiring import open_services
    from evals.cases import load_cases, select_split
    from evals.transfer_record import record_readings

    services = open_services(Settings(data_dir=data_dir))
    try:
        cases = load_cases(cases_file, services.settings.access_levels)
        # A derived unretrieved twin keeps its case's split: choosing first is the same.
        return record_readings(services, select_split(cases, split), name, readings)
    finally:
        services.close()  # the embedded index has one owner at a time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", action="append", required=True, help="NAME=DATA_DIR=CASES")
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--rules", default="", help="only these rules (default: every rule)")
    parser.add_argument("--target", type=float, default=0.01)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    from generate.question_types import ALL_RULES, RULES

    chosen = [r for r in args.rules.split(",") if r] or list(RULES)
    unknown = set(chosen) - ALL_RULES
    if unknown:
        parser.error(f"unknown rule(s): {', '.join(sorted(unknown))}; known: {', '.join(RULES)}")
    readings = {EVERY: ALL_RULES, **{r: ALL_RULES - {r} for r in chosen}}
    rows: dict[str, list[Row]] = {label: [] for label in readings}
    for spec in args.corpus:
        name, data_dir, cases_file = spec.split("=", 2)
        recorded = record_corpus(name, Path(data_dir), Path(cases_file), args.split, readings)
        for label, corpus_rows in recorded.items():
            rows[label].extend(corpus_rows)
    scores = {label: fold_scores(r, args.split, args.target) for label, r in rows.items()}
    text = report(scores, args.split)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
