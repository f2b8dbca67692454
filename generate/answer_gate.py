"""Does the chosen unit answer the question at all? A check on the whole case, after the
answerer has picked its best unit.

A unit's own score says how well it matches the question; it cannot say whether the
documents hold an answer. A question they do not answer still has a best unit, and its
score is often as high as a paraphrased question's right answer. What tells them apart is
how the evidence is spread: an answered question usually has one block and one unit that
stand out; an unanswered one has several blocks and units scoring alike. Three signals,
one logistic function:

    confidence = σ(intercept + block·b + lead·l + margin·g)

- ``b``: its block's relevance (the rerank score);
- ``l``: the lead of the most relevant block over the next one;
- ``g``: the lead of the best unit's score (``generate/unit_scoring.py``) over the best
  unit of any other block that could have answered in its place (of the asked type, when
  the answerer required it).

The unit's own score is not a signal: ``Weights.min_score`` has already required it (fitted
with it, its weight came out at zero).

The answer stands when ``confidence`` reaches ``threshold``; otherwise the outcome is
``insufficient_evidence`` with the reason ``unclear_evidence``. The coefficients are fitted
(plain logistic regression, label: the answer would be graded correct) on the dev split of
``evals/cases/`` only, by ``docent eval fit-answerer``, which also prints the threshold
curve (``evals/reports/answerer_fit.md``).

Where it applies: the ordinary answer path (current, then pending, then superseded tiers),
its table and overview answers included. A question that names a past version is answered
from that version without the gate (it is asked for by name; ``docent.versions``). With a
single block the lead is that block's relevance, and with no rival unit the margin is the
unit's whole score.

The coefficients hold for the offline reranker's scores (``retrieval/rerank.py``): a
CrossEncoder reranker scores on another scale and needs its own fit (``fit-answerer`` prints
them; they are the ``AnswerGate`` defaults here) before any threshold above 0 means anything.

The gate is open by default (``DOCENT_ANSWER_CONFIDENCE=0``). On the sample corpus the
threshold its rule chooses (0.35: one right answer of the ``answerable`` stratum lost on
dev) removes 4 of 61 wrong answers, within noise, and sits near real questions' confidence
(the holiday-days and per-diem questions of issue 13 score 0.40). On a real corpus of
three organisations' handbooks (../shared/corpora) it removed almost nothing. Its use is
the curve: a deployment that would rather hand a question to a person than risk a wrong
answer sets 0.5 (dev: wrong answers 61 → 37, right answers 63 % → 57 %).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields

from generate.unit_scoring import Scored, relevance


@dataclass(frozen=True)
class Signals:
    block: float
    lead: float
    margin: float

    def vector(self) -> tuple[float, ...]:
        return astuple(self)


SIGNALS = tuple(f.name for f in fields(Signals))  # each has its coefficient in AnswerGate


@dataclass(frozen=True)
class AnswerGate:
    """The fitted logistic function over ``Signals`` and the confidence an answer needs."""

    intercept: float = -3.15
    block: float = 5.371
    lead: float = 2.191
    margin: float = 1.003
    threshold: float = 0.0  # open; see the module docstring

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"the answer gate's threshold must be within [0, 1], got {self}")

    def confidence(self, signals: Signals) -> float:
        z = self.intercept + sum(
            c * v for c, v in zip(self.coefficients(), signals.vector(), strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    def coefficients(self) -> tuple[float, ...]:
        return tuple(getattr(self, name) for name in SIGNALS)

    def passes(self, signals: Signals) -> bool:
        return self.confidence(signals) >= self.threshold


def case_signals(
    best: Scored, considered: Sequence[Scored], candidates: Sequence[Scored]
) -> Signals:
    """The signals of one case: the chosen unit among every unit the answerer scored
    (``considered``, for the blocks' relevance) and among the units that could have
    answered in its place (``candidates``: of the asked type when the choice required it)."""
    relevances = sorted({id(s.unit.hit): relevance(s.unit.hit) for s in considered}.values())
    lead = relevances[-1] - relevances[-2] if len(relevances) > 1 else relevances[-1]
    chosen = best.unit.hit.chunk.chunk_id
    rivals = [s.score for s in candidates if s.unit.hit.chunk.chunk_id != chosen]
    return Signals(
        block=relevance(best.unit.hit),
        lead=lead,
        margin=best.score - max(rivals, default=0.0),
    )
