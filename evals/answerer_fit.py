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
    from generate.question_types import expect
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
