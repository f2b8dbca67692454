"""Is the drafted answer right? A calibrated probability for the whole case, after the
answerer has picked its best unit; the answer is shown (tier ``answer``) only when it
reaches the bar, else the case is handed back with the closest passages (``probably_here``).

A unit's own score says how well it matches the question; it cannot say whether the
documents hold an answer. A question they do not answer still has a best unit, often
scoring as high as a paraphrased question's right answer, and absolute levels move with a
corpus's size (a large corpus offers every question near-matching sentences). What carries
from one corpus to another is how the evidence is spread within the question's own
candidates — ten signals (``Signals``), one logistic function:

    confidence = σ(intercept + Σ coefficient · signal)

read by ``case_signals``: the best block's lead over the next, the unit's lead over the best
unit of any rival block and over the next unit of its own block, its place above the pool's
median (in the pool's deviations), its block's rank after the rerank and in the two
retrieval legs, whether it carries what the question asks for, and the share of the
question's words it holds. The block's relevance and the unit's score are recorded too but
weigh 0 (``FITTED_SIGNALS``): fitted with them, the gate held on the corpora it saw and
let wrong answers through on the one it did not.

The coefficients and the bar (``threshold``, ``DOCENT_ANSWER_CONFIDENCE``) are fitted leave
one corpus out (``python -m evals.transfer``, ``evals/reports/transfer.md``): plain
logistic regression on four corpora's dev splits (label: the draft is graded correct), the
bar the lowest at which every corpus stays at or under 1 % wrong-and-confident with room
for one more wrong answer. On the held-out test splits that procedure gave 0–1.7 %
wrong-and-confident answers per corpus (change set 30).

Where it applies: the ordinary answer path (current, then pending, then superseded tiers),
its table and overview answers included. A question that names a past version is answered
from that version without the gate where its rule changed since (it is asked for by name;
``docent.versions``; the gate reads such drafts low, right or wrong: its quote is checked
instead, ``generate.version_answers.quotable``); a rule that reads the same today is judged
as today's answer. With a
single block the lead is that block's relevance, and with no rival unit the margin is the
unit's whole score. The coefficients hold for the offline reranker: a CrossEncoder reranker
needs its own fit (``docent eval fit-answerer``) before the bar means anything.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields

from generate.unit_scoring import Scored, relevance


@dataclass(frozen=True)
class Signals:
    """One case's evidence, each read against the question's own candidate pool where it
    can be (absolute levels move with a corpus's size; leads and ranks carry across)."""

    block: float  # the chosen unit's block relevance (the rerank score)
    lead: float  # that relevance's lead over the next block's
    margin: float  # the unit's score lead over the best unit of any rival block
    score: float = 0.0  # the unit's own score (``generate/unit_scoring.py``)
    spread: float = 0.0  # its lead over the pool's median unit, in the pool's deviations
    within: float = 0.0  # its lead over the next unit of its own block
    rank: float = 0.0  # 1 / its block's rank after the rerank
    legs: float = 0.0  # mean reciprocal rank of its block in the BM25 and vector legs
    fit: float = 0.0  # does it carry what the question asks for (``answer_types``)
    coverage: float = 0.0  # share of the question's content words it holds

    def vector(self) -> tuple[float, ...]:
        return astuple(self)


SIGNALS = tuple(f.name for f in fields(Signals))  # each has its coefficient in AnswerGate
# The signals a fit weighs: leads, ranks and shares, read within the question's own pool.
# ``block`` and ``score`` are absolute levels, which move with a corpus's size: fitted with
# them, the gate held on the corpora it saw and not on the one left out
# (evals/reports/transfer.md), so they are recorded and weigh 0.
FITTED_SIGNALS = ("lead", "margin", "spread", "within", "rank", "legs", "fit", "coverage")


@dataclass(frozen=True)
class AnswerGate:
    """The fitted logistic function over ``Signals`` and the confidence an answer needs."""

    intercept: float = -5.362
    block: float = 0.0
    lead: float = 4.265
    margin: float = 0.713
    score: float = 0.0
    spread: float = 0.02
    within: float = -0.313
    rank: float = 1.231
    legs: float = 0.553
    fit: float = 2.35
    coverage: float = 2.572
    threshold: float = 0.85  # the bar; see the module docstring

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
    (``considered``, for the blocks' relevance and the pool) and among the units that could
    have answered in its place (``candidates``: of the asked type when the choice required
    it)."""
    relevances = sorted({id(s.unit.hit): relevance(s.unit.hit) for s in considered}.values())
    lead = relevances[-1] - relevances[-2] if len(relevances) > 1 else relevances[-1]
    hit = best.unit.hit
    chosen = hit.chunk.chunk_id
    rivals = [s.score for s in candidates if s.unit.hit.chunk.chunk_id != chosen]
    pool = [s.score for s in considered]
    centre = statistics.median(pool)
    deviation = statistics.pstdev(pool) if len(pool) > 1 else 0.0
    own = [s.score for s in considered if s.unit.hit is hit and s is not best]
    legs = sum(1.0 / r for r in (hit.bm25_rank, hit.vector_rank) if r) / 2.0
    return Signals(
        block=relevance(hit),
        lead=lead,
        margin=best.score - max(rivals, default=0.0),
        score=best.score,
        spread=(best.score - centre) / deviation if deviation > 1e-9 else 0.0,
        within=best.score - max(own, default=0.0),
        rank=1.0 / max(hit.rank, 1),
        legs=legs,
        fit=best.fit,
        coverage=best.coverage,
    )
