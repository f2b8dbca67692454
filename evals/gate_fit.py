"""Fit the extractive answerer's answer gate on a case split: every case asked once with the
gate open, each answered case's signals (``generate.answer_gate.Signals``) and grade a row,
a plain logistic regression over the relative signals, and the threshold rule (fewer wrong
answers, at most ``max_answer_loss`` of the right ones). ``evals/transfer.py`` fits the same
gate leave one corpus out (``gate_from``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from evals.answerer_fit import Progress, cost
from evals.cases import MUST_ANSWER, Case
from evals.metrics import Column

if TYPE_CHECKING:
    from docent.wiring import Services
    from generate.answer_gate import AnswerGate
    from generate.unit_scoring import Weights


@dataclass(frozen=True)
class GateRow:
    """One case the answerer answered with the gate open: its signals and how the answer
    grades (correct or wrong)."""

    case: Case
    signals: tuple[float, ...]
    column: Column


def gate_rows(
    services: Services,
    cases: Sequence[Case],
    weights: Weights,
    progress: Progress | None = None,
) -> tuple[list[GateRow], dict[str, tuple[Case, Column]]]:
    """Every case asked with the gate open (one retrieval each): the answered ones as
    ``GateRow``s, and the column of every case (what the chain gives with no gate)."""
    import json

    from evals.runner import Grader, chunk_refs, principal_for, replay_asker, replay_search
    from generate.answer_gate import SIGNALS, AnswerGate
    from generate.ask import ask_json
    from generate.extractive import ExtractiveGenerator

    grader = Grader(chunk_refs(services), services.settings.access_levels)
    generator = ExtractiveGenerator(weights=weights, gate=AnswerGate(threshold=0.0))
    threshold = services.settings.relevance_threshold
    rows: list[GateRow] = []
    columns: dict[str, tuple[Case, Column]] = {}
    for case in cases:
        asker = replay_asker(services, replay_search(services, case), generator)
        # The replay applies no relevance cut unless given one: the shipped chain's.
        result = asker.ask(case.q, principal_for(case), threshold=threshold)
        output = ask_json(result)
        column, _, _ = grader.grade_output(case, output)
        columns[case.qid] = (case, column)
        raw = json.loads(result.generation.raw_output) if result.generation else {}
        gate = raw.get("answer_gate")
        if output["outcome"] == "answered" and gate:
            vector = tuple(float(gate["signals"][name]) for name in SIGNALS)
            rows.append(GateRow(case, vector, column))
        if progress:
            progress(case.qid)
    return rows, columns


def fit_logistic(
    x: NDArray[np.float64], y: NDArray[np.float64], *, l2: float = 0.01, steps: int = 5000
) -> tuple[float, NDArray[np.float64]]:
    """Plain logistic regression (gradient ascent on standardised inputs, small L2 penalty),
    returned as an intercept and coefficients on the raw inputs."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-9
    z = np.c_[(x - mean) / scale, np.ones(len(x))]
    w = np.zeros(z.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        w += 0.1 * (z.T @ (y - p) / len(y) - l2 * np.r_[w[:-1], 0.0])
    coefficients = w[:-1] / scale
    return float(w[-1] - coefficients @ mean), coefficients


def gated_columns(
    rows: Sequence[GateRow], columns: dict[str, tuple[Case, Column]], gate: AnswerGate
) -> list[tuple[Case, Column]]:
    """Every case's column once ``gate`` holds back the answers it does not trust."""
    from generate.answer_gate import Signals

    held = {r.case.qid for r in rows if not gate.passes(Signals(*r.signals))}
    return [
        (case, ("abstained" if case.stratum in MUST_ANSWER else "correct"))
        if qid in held
        else (case, column)
        for qid, (case, column) in columns.items()
    ]


def fit_gate(rows: Sequence[GateRow]) -> AnswerGate | None:
    """The gate's coefficients (threshold 0.5 until one is chosen); None when the answered
    cases are all right or all wrong (nothing to tell apart)."""
    if len({r.column for r in rows}) < 2:
        return None
    return gate_from([r.signals for r in rows], [r.column == "correct" for r in rows])


def gate_from(
    signals: Sequence[Sequence[float]], right: Sequence[bool], names: Sequence[str] | None = None
) -> AnswerGate:
    """A logistic gate (threshold 0.5) over the answers' ``signals`` (every one of
    ``SIGNALS``, in order), labelled right or not. Only ``names`` (default: the signals that
    carry across corpora) are fitted; the others weigh 0."""
    from generate.answer_gate import FITTED_SIGNALS, SIGNALS, AnswerGate

    chosen = tuple(names or FITTED_SIGNALS)
    read = [SIGNALS.index(name) for name in chosen]
    x = np.asarray([[row[i] for i in read] for row in signals], dtype=np.float64)
    y = np.asarray(right, dtype=np.float64)
    intercept, c = fit_logistic(x, y)
    fitted = dict.fromkeys(SIGNALS, 0.0)
    fitted.update({name: round(float(v), 3) for name, v in zip(chosen, c, strict=True)})
    return AnswerGate(intercept=round(intercept, 3), threshold=0.5, **fitted)


GATE_THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(0, 17))  # 0.00 … 0.80


def answerable_counts(columns: Sequence[tuple[Case, Column]]) -> tuple[int, int]:
    """Answerable cases graded correct, and answerable cases."""
    answerable = [column for case, column in columns if case.stratum == "answerable"]
    return sum(c == "correct" for c in answerable), len(answerable)


def answerable_correct(columns: Sequence[tuple[Case, Column]]) -> float:
    right, total = answerable_counts(columns)
    return right / total if total else 0.0


def choose_gate_threshold(
    graded: dict[float, list[tuple[Case, Column]]], wrong_cost: float, max_answer_loss: float
) -> float:
    """The least-cost threshold (at ``wrong_cost``) among those that keep the answerable
    cases' correct rate within ``max_answer_loss`` of the open gate's: the gate spends what
    it tells apart on fewer wrong answers, not on answering fewer questions. Ties go to the
    lower threshold. The floor covers the ``answerable`` stratum only; the other
    must-answer strata (superseded, past_version, permission_allowed) enter through the
    cost."""
    floor = answerable_correct(graded[min(graded)]) - max_answer_loss
    allowed = [t for t in graded if answerable_correct(graded[t]) >= floor - 1e-9]
    return min(allowed, key=lambda t: (cost(graded[t], wrong_cost), t))


def gate_report(
    gate: AnswerGate, graded: dict[float, list[tuple[Case, Column]]], wrong_cost: float
) -> str:
    """The fitted gate and its threshold table, as Markdown."""
    lines = ["Fitted answer gate (`generate/answer_gate.py` `AnswerGate`):", "", "```"]
    lines += [f"{name} = {value}" for name, value in asdict(gate).items()]
    lines += [
        "```",
        "",
        "| threshold | answerable correct | wrong-and-confident | abstained (must answer) | "
        f"cost (wrong × {wrong_cost:g} + abstained) |",
        "|---|---|---|---|---|",
    ]
    for t, rows in sorted(graded.items()):
        mark = " ◀ chosen" if t == gate.threshold else ""
        wrong = sum(column == "wrong" for _, column in rows)
        held = sum(column == "abstained" for _, column in rows)
        right, total = answerable_counts(rows)
        lines.append(
            f"| {t:.2f}{mark} | {right}/{total} {answerable_correct(rows):.0%} "
            f"| {wrong} | {held} | {cost(rows, wrong_cost):g} |"
        )
    return "\n".join(lines)


def gate_section(
    rows: Sequence[GateRow],
    columns: dict[str, tuple[Case, Column]],
    cases: int,
    everything: int,
    wrong_cost: float,
    max_answer_loss: float,
) -> tuple[AnswerGate | None, str]:
    """The gate fitted on ``rows`` at the threshold the rule chooses (None when nothing
    could be fitted), and its part of the report."""
    text = (
        f"\n\nThe answer gate, over the same {cases} cases and each again with its "
        f"gold passages withheld ({everything} in all), min_score as chosen above; "
        f"threshold: least cost among those keeping answerable correct within "
        f"{max_answer_loss:.0%} of the open gate's. The setting "
        "(`DOCENT_ANSWER_CONFIDENCE`) is the deployment's choice along this curve.\n\n"
    )
    gate = fit_gate(rows)
    if gate is None:
        return None, text + (
            f"Not fitted: the {len(rows)} answered cases were all graded alike, so there is "
            "nothing for the gate to tell apart; it keeps its coefficients."
        )
    by_threshold = {
        t: gated_columns(rows, columns, replace(gate, threshold=t)) for t in GATE_THRESHOLDS
    }
    gate = replace(gate, threshold=choose_gate_threshold(by_threshold, wrong_cost, max_answer_loss))
    return gate, text + gate_report(gate, by_threshold, wrong_cost)
