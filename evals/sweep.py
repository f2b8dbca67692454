"""The threshold sweep: the operating-point table (false abstention vs wrong-and-confident
per relevance threshold), the choice of a threshold from it, and its plot. Pure except for
``plot_operating_points``, which writes a PNG."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.cases import MUST_ABSTAIN, MUST_ANSWER
from evals.metrics import Column, Rate


def parse_thresholds(spec: str) -> list[float]:
    """``"0.2:0.7:0.05"`` -> [0.2, 0.25, …, 0.7] (both ends included); ``"0.3,0.4"`` -> a list."""
    try:
        if ":" in spec:
            start, stop, step = (float(p) for p in spec.split(":"))
            if step <= 0 or stop < start:
                raise ValueError("need start <= stop and step > 0")
            count = math.floor((stop - start) / step + 1e-9) + 1
            return [round(start + i * step, 6) for i in range(count)]
        values = sorted({float(p) for p in spec.split(",") if p.strip()})
        if not values:
            raise ValueError("no thresholds")
        return values
    except ValueError as exc:
        raise ValueError(
            f"--thresholds {spec!r}: expected START:STOP:STEP or a comma list ({exc})"
        ) from exc


@dataclass(frozen=True)
class OperatingPoint:
    threshold: float
    false_abstention: Rate  # non-answers among must-answer cases
    wrong: Rate  # wrong-and-confident among all cases
    answered_must_abstain: Rate  # answers among must-abstain cases
    correct: Rate  # correct among all cases


def operating_point(threshold: float, graded: Sequence[tuple[str, str, Column]]) -> OperatingPoint:
    """From (stratum, outcome, column) triples of one threshold."""
    must_answer = [(o, c) for s, o, c in graded if s in MUST_ANSWER]
    must_abstain = [(o, c) for s, o, c in graded if s in MUST_ABSTAIN]
    return OperatingPoint(
        threshold=threshold,
        false_abstention=Rate(sum(o != "answered" for o, _ in must_answer), len(must_answer)),
        wrong=Rate(sum(c == "wrong" for _, _, c in graded), len(graded)),
        answered_must_abstain=Rate(
            sum(o == "answered" for o, _ in must_abstain), len(must_abstain)
        ),
        correct=Rate(sum(c == "correct" for _, _, c in graded), len(graded)),
    )


def choose_threshold(
    points: Sequence[OperatingPoint], max_false_abstention: float | None = None
) -> OperatingPoint:
    """The lowest wrong-and-confident rate among thresholds whose false-abstention rate is
    acceptable: at most ``max_false_abstention``, or by default no more than the lowest in
    the sweep (the floor the generator sets by abstaining on its own — the gate may add
    none). Ties go to the lower false abstention, then to the median of the tied
    thresholds: at equal measured cost, the middle keeps a margin both below the weakest
    question answered correctly and above the noise, where an edge keeps none."""
    if not points:
        raise ValueError("no operating points to choose from")
    limit = (
        min(p.false_abstention.value for p in points)
        if max_false_abstention is None
        else max_false_abstention
    )
    acceptable = [p for p in points if p.false_abstention.value <= limit + 1e-12]
    pool = acceptable or [min(points, key=lambda p: p.false_abstention.value)]
    best = min((p.wrong.value, p.false_abstention.value) for p in pool)
    tied = sorted(
        (p for p in pool if (p.wrong.value, p.false_abstention.value) == best),
        key=lambda p: p.threshold,
    )
    return tied[(len(tied) - 1) // 2]


def sweep_table(points: Sequence[OperatingPoint], chosen: float | None = None) -> str:
    lines = [
        "| threshold | false abstention | wrong-and-confident | answered must-abstain | correct |",
        "|---|---|---|---|---|",
    ]
    for p in points:
        mark = " ◀ chosen" if chosen is not None and math.isclose(p.threshold, chosen) else ""
        lines.append(
            f"| {p.threshold:.3f}{mark} | {p.false_abstention} | {p.wrong} | "
            f"{p.answered_must_abstain} | {p.correct} |"
        )
    return "\n".join(lines)


def plot_operating_points(
    points: Sequence[OperatingPoint], out: Path, chosen: float | None = None
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fa = [p.false_abstention.value for p in points]
    wrong = [p.wrong.value for p in points]
    thresholds = [p.threshold for p in points]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    left.plot(fa, wrong, marker="o")
    for p in points:
        left.annotate(
            f"{p.threshold:g}",
            (p.false_abstention.value, p.wrong.value),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=7,
        )
    left.set_xlabel("false-abstention rate (must-answer cases)")
    left.set_ylabel("wrong-and-confident rate (all cases)")
    left.set_title("Operating points")
    right.plot(thresholds, fa, marker="o", label="false abstention")
    right.plot(thresholds, wrong, marker="s", label="wrong-and-confident")
    right.plot(thresholds, [p.correct.value for p in points], marker="^", label="correct")
    if chosen is not None:
        right.axvline(chosen, color="grey", linestyle="--", label=f"chosen {chosen:g}")
        for p in points:
            if math.isclose(p.threshold, chosen):
                left.scatter([p.false_abstention.value], [p.wrong.value], s=120, color="red")
    right.set_xlabel("relevance threshold")
    right.set_ylabel("rate")
    right.legend(fontsize=8)
    right.set_title("Rates by threshold")
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)


def rows_by_threshold(
    graded: Mapping[float, Sequence[tuple[str, str, Column]]],
) -> list[OperatingPoint]:
    return [operating_point(t, graded[t]) for t in sorted(graded)]
