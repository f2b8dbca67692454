"""Does the answer gate carry to a corpus it never saw? Leave-one-corpus-out over rows
recorded by ``evals/transfer_record.py`` (one file per corpus).

Per fold: the gate (a logistic function of ``generate.answer_gate.Signals``) is fitted on
the other corpora's ``dev`` rows, its bar chosen there (the lowest bar at which every
training corpus stays at or under ``--target`` wrong-and-confident even with ``--spare``
more wrong answers than it shows), and the held-out
corpus is reported on one split. A case shows its draft answer only when the gate's
probability reaches the bar; otherwise it shows the closest passages (tier
``probably_here``) or nothing matched (``not_covered``). Figures, each with a Wilson
interval:

- wrong-and-confident: answers shown that are wrong, of all cases (every stratum);
- first screen: must-answer cases whose first screen points at the answer (a right answer
  shown, or the expected text in an excerpt under a closest passage);
- answered right: answerable cases answered right, by phrasing;

and the calibration of the held-out corpus's drafts: a reliability table and the expected
calibration error. The headline is the worst fold.

    python -m evals.transfer ROWS.jsonl... [--split test] [--out REPORT.md] [--save GATE.json]
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evals.gate_fit import gate_from
from evals.metrics import wilson
from generate.answer_gate import FITTED_SIGNALS, SIGNALS, AnswerGate, Signals

Row = dict[str, Any]
BARS = tuple(round(0.05 * i, 2) for i in range(1, 20))  # 0.05 … 0.95
BINS = 5


@dataclass(frozen=True)
class Shown:
    """One case as the asker sees it under a gate and bar."""

    row: Row
    probability: float | None  # the gate's, for a draft it judged; None otherwise
    answered: bool  # the draft answer is shown
    column: str  # correct / wrong / abstained, as graded when shown

    @property
    def wrong(self) -> bool:
        return self.answered and self.column == "wrong"

    @property
    def first_screen(self) -> bool:
        if self.answered:
            return self.column == "correct"
        return bool((self.row.get("first_screen") or {}).get("excerpt"))


def load_rows(paths: Sequence[Path]) -> list[Row]:
    rows: list[Row] = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def fit_gate(rows: Sequence[Row], names: Sequence[str] = FITTED_SIGNALS) -> AnswerGate:
    """The logistic gate over ``names`` (the other signals weigh 0), fitted on the drafts
    the gate judged (label: graded correct)."""
    judged = [r for r in rows if r["gated"]]
    right = [r["draft_column"] == "correct" for r in judged]
    if len(judged) < 10 or len(set(right)) < 2:
        raise ValueError(f"{len(judged)} judged drafts, all graded alike: nothing to fit")
    signals = [[float(r["signals"][n]) for n in SIGNALS] for r in judged]
    return gate_from(signals, right, names)


def probability(gate: AnswerGate, row: Row) -> float | None:
    if not row["gated"]:
        return None
    return gate.confidence(Signals(**{n: float(row["signals"][n]) for n in SIGNALS}))


def shown(rows: Sequence[Row], gate: AnswerGate, bar: float) -> list[Shown]:
    out: list[Shown] = []
    for row in rows:
        p = probability(gate, row)
        answered = row["draft_outcome"] == "answered" and (p is None or p >= bar)
        if answered:
            column = row["draft_column"]
        else:
            column = "abstained" if row["must_answer"] else "correct"
        out.append(Shown(row, p, answered, column))
    return out


def wrong_rate(cases: Sequence[Shown]) -> float:
    return sum(c.wrong for c in cases) / len(cases) if cases else 0.0


def choose_bar(rows: Sequence[Row], gate: AnswerGate, target: float, spare: int = 1) -> float:
    """The lowest bar at which every corpus in ``rows`` stays at or under ``target`` even with
    ``spare`` more wrong answers than it shows. The spare row is the margin: without it the
    choice rested on one dev row (session 22: one past-version answer put right moved the bar
    0.85 -> 0.80, and the 18F test split to 3.4 % wrong)."""
    corpora = sorted({r["corpus"] for r in rows})
    for c in corpora:
        n = sum(r["corpus"] == c for r in rows)
        if spare and n * target < spare:
            raise ValueError(
                f"{c} has {n} dev rows: {spare} spare wrong answer(s) of {n} is over the "
                f"{target:.0%} target at every bar; add cases or lower --spare"
            )
    for bar in BARS:
        if all(
            _within(shown([r for r in rows if r["corpus"] == c], gate, bar), target, spare)
            for c in corpora
        ):
            return bar
    return BARS[-1]


def _within(cases: Sequence[Shown], target: float, spare: int) -> bool:
    if not cases:
        return True
    return (sum(c.wrong for c in cases) + spare) / len(cases) <= target


def reliability(cases: Sequence[Shown]) -> tuple[list[tuple[str, int, float, float]], float]:
    """Per probability bin of the judged drafts: (bin, n, mean probability, share right),
    and the expected calibration error."""
    judged = [c for c in cases if c.probability is not None]
    table: list[tuple[str, int, float, float]] = []
    error = 0.0
    for b in range(BINS):
        low, high = b / BINS, (b + 1) / BINS
        inside = [
            c
            for c in judged
            if c.probability is not None
            and (low <= c.probability < high or (b == BINS - 1 and c.probability == 1.0))
        ]
        if not inside:
            continue
        mean_p = float(np.mean([c.probability for c in inside]))
        right = sum(c.row["draft_column"] == "correct" for c in inside) / len(inside)
        table.append((f"{low:.1f}–{high:.1f}", len(inside), mean_p, right))
        error += len(inside) / len(judged) * abs(mean_p - right)
    return table, error


def _share(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k}/{n} = {k / n if n else 0:.1%} [{low:.1%}, {high:.1%}]"


def figures(cases: Sequence[Shown]) -> dict[str, str]:
    must = [c for c in cases if c.row["must_answer"]]
    out = {
        "wrong-and-confident (all cases)": _share(sum(c.wrong for c in cases), len(cases)),
        "first screen (must-answer)": _share(sum(c.first_screen for c in must), len(must)),
    }
    for phrasing in ("doc", "paraphrase", "scenario"):
        group = [c for c in must if c.row["phrasing"] == phrasing]
        out[f"first screen, {phrasing}"] = _share(sum(c.first_screen for c in group), len(group))
    answerable = [c for c in cases if c.row["stratum"] == "answerable"]
    for phrasing in ("doc", "paraphrase", "scenario"):
        group = [c for c in answerable if c.row["phrasing"] == phrasing]
        right = sum(c.answered and c.column == "correct" for c in group)
        out[f"answered right, {phrasing}"] = _share(right, len(group))
    strata = sorted({c.row["stratum"] for c in cases})
    for stratum in strata:
        group = [c for c in cases if c.row["stratum"] == stratum]
        out[f"wrong, {stratum}"] = f"{sum(c.wrong for c in group)}/{len(group)}"
    return out


def fold(
    rows: Sequence[Row],
    held_out: str,
    split: str,
    names: Sequence[str],
    target: float,
    spare: int = 1,
) -> tuple[AnswerGate, list[Shown]]:
    train = [r for r in rows if r["corpus"] != held_out and r["split"] == "dev"]
    gate = fit_gate(train, names)
    bar = choose_bar(train, gate, target, spare)
    test = [r for r in rows if r["corpus"] == held_out and r["split"] == split]
    return AnswerGate(**{**gate.__dict__, "threshold": bar}), shown(test, gate, bar)


def report(
    rows: Sequence[Row], split: str, names: Sequence[str], target: float, spare: int = 1
) -> str:
    corpora = sorted({r["corpus"] for r in rows})
    lines = [
        "# Transfer: leave one corpus out",
        "",
        f"Corpora: {', '.join(corpora)}. Each fold fits the gate on the other corpora's dev "
        f"split, chooses the lowest bar keeping each of them at or under {target:.0%} "
        f"wrong-and-confident with {spare} more wrong answer(s) than it shows, and reports "
        f"the held-out corpus's {split} split. "
        f"Signals: {', '.join(names)}.",
    ]
    worst: tuple[float, str] = (-1.0, "")
    for held_out in corpora:
        gate, cases = fold(rows, held_out, split, names, target, spare)
        rate = wrong_rate(cases)
        worst = max(worst, (rate, held_out))
        table, ece = reliability(cases)
        lines += ["", f"## Held out: {held_out} (bar {gate.threshold:.2f})", ""]
        lines += [f"- {name}: {value}" for name, value in figures(cases).items()]
        lines += ["", f"Calibration of the {split} drafts (ECE {ece:.3f}):", ""]
        lines += ["| P(right) bin | drafts | mean P | share right |", "|---|---|---|---|"]
        lines += [f"| {b} | {n} | {p:.2f} | {r:.2f} |" for b, n, p, r in table]
    lines += ["", f"Worst fold by wrong-and-confident: **{worst[1]}** ({worst[0]:.1%})."]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="+")
    parser.add_argument("--split", default="dev", choices=("dev", "test"))
    parser.add_argument("--signals", default=",".join(FITTED_SIGNALS))
    parser.add_argument("--target", type=float, default=0.02)
    parser.add_argument(
        "--spare", type=int, default=1, help="wrong answers a training corpus must have room for"
    )
    parser.add_argument("--out", type=Path)
    parser.add_argument("--save", type=Path, help="the gate fitted on every corpus's dev split")
    args = parser.parse_args(argv)
    rows = load_rows(args.rows)
    names = [n for n in args.signals.split(",") if n]
    text = report(rows, args.split, names, args.target, args.spare)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text)
    if args.save:
        dev = [r for r in rows if r["split"] == "dev"]
        gate = fit_gate(dev, names)
        bar = choose_bar(dev, gate, args.target, args.spare)
        body = {**gate.__dict__, "threshold": bar}
        args.save.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
