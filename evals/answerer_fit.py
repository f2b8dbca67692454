"""Fit the extractive answerer's unit weights on a case split, and sweep its threshold.

Fitting: for every must-answer case, each quotable unit of the blocks retrieval passes on
becomes a row of ``generate.unit_scoring.Features``, labelled 1 when the unit holds one of
the case's expected strings. A conditional logit — one softmax over the units of each case —
learns weights under which a labelled unit scores highest: exactly the answerer's choice
(it quotes the top unit), unlike a per-unit classifier. Plain numpy gradient ascent with a
small L2 penalty; a few seconds for a few hundred cases.

Sweep: the fitted weights fixed, the chain is re-run per ``min_score`` over one retrieval per
case (``ReplaySearcher``), graded as ``eval run`` grades, and the threshold chosen at the
exchange rate ``wrong_cost`` (one wrong-and-confident answer costs that many abstentions).
Both run on the dev split only; the test split is reported, never fitted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from evals.cases import MUST_ANSWER, Case, normalise
from evals.metrics import Column

if TYPE_CHECKING:
    from docent.wiring import Services
    from generate.answer_gate import AnswerGate
    from generate.unit_scoring import Weights

FEATURES = ("semantic", "block", "lexical", "fit", "title", "meta", "rank")
Progress = Callable[[str], None]


@dataclass(frozen=True)
class CaseUnits:
    """One case's candidate units: a feature row each, and which hold an expected string."""

    qid: str
    rows: NDArray[np.float64]  # (units, len(FEATURES))
    labels: NDArray[np.bool_]


def case_units(services: Services, cases: Sequence[Case]) -> list[CaseUnits]:
    """The candidate units of every must-answer case with expected strings, as the answerer
    sees them (current and pending blocks; superseded ones only for a past-version case)."""
    from evals.runner import principal_for
    from generate.answer_types import expect
    from generate.text import content_words
    from generate.unit_scoring import features, units_of

    out: list[CaseUnits] = []
    for case in cases:
        if case.stratum not in MUST_ANSWER or not case.expect:
            continue
        found = services.searcher.search(case.q, principal_for(case))
        words, expectation = content_words(case.q), expect(case.q)
        wanted = [normalise(e) for e in case.expect]
        rows: list[tuple[float, ...]] = []
        labels: list[bool] = []
        for hit in found.hits:
            if hit.chunk.status == "superseded" and case.stratum != "past_version":
                continue
            for unit in units_of(hit):
                f, _ = features(unit, words, expectation)
                rows.append((*f.vector(), float(f.rank - 1)))
                text = normalise(f"{unit.header or ''} {unit.text}")
                labels.append(any(w in text for w in wanted))
        if rows:
            out.append(CaseUnits(case.qid, np.asarray(rows), np.asarray(labels)))
    return out


def fit_conditional_logit(
    data: Sequence[CaseUnits], *, l2: float = 0.01, steps: int = 2000, rate: float = 0.5
) -> NDArray[np.float64]:
    """Weights maximising, over the cases that have a labelled unit, the log-probability that
    the softmax over a case's units lands on a labelled one (minus ``l2`` · |w|²)."""
    usable = [d for d in data if d.labels.any()]
    if not usable:
        raise ValueError("no case has a unit holding its expected string: nothing to fit")
    weights = np.zeros(len(FEATURES))
    for _ in range(steps):
        grad = -l2 * weights
        for d in usable:
            scores = d.rows @ weights
            p = np.exp(scores - scores.max())
            p /= p.sum()
            q = p * d.labels
            q /= q.sum()
            grad += d.rows.T @ (q - p)
        weights += rate * grad / len(usable)
    return weights


def top1_accuracy(data: Sequence[CaseUnits], weights: NDArray[np.float64]) -> tuple[int, int]:
    """Cases whose best-scoring unit holds an expected string, of the cases that have one."""
    usable = [d for d in data if d.labels.any()]
    hits = sum(bool(d.labels[int(np.argmax(d.rows @ weights))]) for d in usable)
    return hits, len(usable)


def as_weights(vector: NDArray[np.float64], min_score: float) -> Weights:
    """The fitted vector as the answerer's ``Weights`` (meta and rank enter as penalties),
    scaled so the semantic weight is 1: scores, the threshold and the margins then read in
    units of question–sentence cosine. ``min_score`` is in those units too."""
    from generate.unit_scoring import Weights

    scale = float(vector[FEATURES.index("semantic")])
    if scale <= 0:
        raise ValueError("the fit gave meaning (semantic) no positive weight; check the cases")
    named = dict(zip(FEATURES, (float(v) / scale for v in vector), strict=True))
    return Weights(
        semantic=round(named["semantic"], 3),
        block=round(named["block"], 3),
        lexical=round(named["lexical"], 3),
        fit=round(named["fit"], 3),
        # The title only ever vouches for a unit (the units' vectors read their heading
        # path, so it may add nothing): a fit that would hold it against one is clamped at 0.
        title=round(max(named["title"], 0.0), 3),
        # Penalties only ever lower a score: a fit that would reward them is clamped at 0.
        meta=round(max(-named["meta"], 0.0), 3),
        rank=round(max(-named["rank"], 0.0), 3),
        min_score=min_score,
    )


def sweep_min_score(
    services: Services,
    cases: Sequence[Case],
    weights: Weights,
    min_scores: Sequence[float],
    progress: Progress | None = None,
) -> dict[float, list[tuple[Case, Column]]]:
    """min_score -> (case, column) for every case, over one retrieval per case (the
    weights' margins as given)."""
    from evals.runner import Grader, chunk_refs, principal_for, replay_asker, replay_search
    from generate.ask import ask_json
    from generate.extractive import ExtractiveGenerator

    s = services.settings
    grader = Grader(chunk_refs(services), s.access_levels)
    generators = {m: ExtractiveGenerator(weights=replace(weights, min_score=m)) for m in min_scores}
    graded: dict[float, list[tuple[Case, Column]]] = {m: [] for m in min_scores}
    for case in cases:
        principal = principal_for(case)
        replay = replay_search(services, case)
        for m, generator in generators.items():
            asker = replay_asker(services, replay, generator)
            output = ask_json(asker.ask(case.q, principal, threshold=s.relevance_threshold))
            column, _, _ = grader.grade_output(case, output)
            graded[m].append((case, column))
        if progress:
            progress(case.qid)
    return graded


def cost(graded: Sequence[tuple[Case, Column]], wrong_cost: float) -> float:
    """Wrong-and-confident answers at ``wrong_cost`` each, plus one per must-answer case not
    answered correctly for another reason (abstained)."""
    wrong = sum(column == "wrong" for _, column in graded)
    abstained = sum(column == "abstained" for case, column in graded if case.stratum in MUST_ANSWER)
    return wrong_cost * wrong + abstained


def choose_min_score(graded: dict[float, list[tuple[Case, Column]]], wrong_cost: float) -> float:
    """The threshold of least cost; ties go to the higher (more careful) threshold."""
    return min(graded, key=lambda m: (cost(graded[m], wrong_cost), -m))


def min_score_grid(data: Sequence[CaseUnits], weights: Weights, steps: int = 15) -> list[float]:
    """Candidate thresholds: evenly spaced between the 2nd and 60th percentile of each
    must-answer case's best unit score under ``weights``."""
    w = np.asarray(
        [
            weights.semantic,
            weights.block,
            weights.lexical,
            weights.fit,
            weights.title,
            -weights.meta,
            -weights.rank,
        ]
    )
    best = np.asarray([float((d.rows @ w).max()) for d in data])
    low, high = np.percentile(best, 2), np.percentile(best, 60)
    return [round(float(v), 3) for v in np.linspace(low, high, steps)]


def fit_report(
    weights: Weights,
    top1: tuple[int, int],
    graded: dict[float, list[tuple[Case, Column]]],
    wrong_cost: float,
    header: str,
) -> str:
    """The fitted weights, the top-1 unit accuracy and the threshold table, as Markdown."""
    lines = [header, "", "Fitted weights (`generate/unit_scoring.py` `Weights`):", "", "```"]
    lines += [f"{name} = {value}" for name, value in asdict(weights).items()]
    lines += [
        "```",
        "",
        f"Best unit holds an expected string: {top1[0]} of {top1[1]} cases.",
        "",
        f"| min_score | correct | wrong-and-confident | abstained | cost (wrong × {wrong_cost:g} "
        "+ abstained) |",
        "|---|---|---|---|---|",
    ]
    chosen = choose_min_score(graded, wrong_cost)
    for m, rows in sorted(graded.items()):
        counts = {c: sum(col == c for _, col in rows) for c in ("correct", "wrong", "abstained")}
        mark = " ◀ chosen" if m == chosen else ""
        lines.append(
            f"| {m:.3f}{mark} | {counts['correct']} | {counts['wrong']} | {counts['abstained']} "
            f"| {cost(rows, wrong_cost):g} |"
        )
    return "\n".join(lines)


# --- the answer gate: does the chosen unit answer at all? --------------------------------
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
