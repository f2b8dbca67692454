"""Eval metrics: pure functions over values, no I/O.

The three columns (every case lands in exactly one):

- **correct** — the outcome the stratum asks for. Must-answer strata (answerable, superseded,
  past_version — whose ``expect`` holds the named old version's value — and
  permission_allowed): ``answered``, the answer contains every ``expect`` substring
  (case-insensitive, whitespace-normalised) and, when the case lists ``stale`` figures,
  none of them. Must-abstain strata (out_of_corpus, permission, unretrieved):
  any non-answer (``insufficient_evidence``, ``ambiguous``, ``declined``). Ambiguous: any
  non-answer, or an answer that covers every one of the case's ``readings``.
- **wrong** (wrong-and-confident) — ``answered`` but not correct: an answer that misses an
  expected substring or gives a stale one, any answer on a must-abstain stratum, an answer
  to an ambiguous question that picks one reading. A case whose output leaks (see
  ``find_leaks``) is wrong whatever its outcome.
- **abstained** — a non-answer on a must-answer stratum (a false abstention). On
  must-abstain strata a non-answer is correct, so this column is 0 there by definition.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Principal
from evals.cases import AMBIGUOUS, MUST_ABSTAIN, MUST_ANSWER, Case, ChunkRef, GoldRef, normalise

Column = Literal["correct", "wrong", "abstained"]
COLUMNS: tuple[Column, ...] = ("correct", "wrong", "abstained")
Level = Literal["section", "document"]
Z95 = 1.959963984540054


# --- grading ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Grade:
    column: Column
    reason: str


def grade(case: Case, outcome: str, answer: str | None, leaked: bool = False) -> Grade:
    """Put one case's outcome in exactly one column (see the module docstring)."""
    if leaked:
        return Grade("wrong", "output leaks text the asker may not read")
    answered = outcome == "answered"
    if case.stratum == AMBIGUOUS:
        if not answered:
            return Grade("correct", f"did not pick a reading ({outcome})")
        text = normalise(answer or "")
        if case.readings and all(normalise(r) in text for r in case.readings):
            return Grade("correct", "answer covers every reading")
        return Grade("wrong", "answered an ambiguous question with one reading")
    if case.stratum in MUST_ABSTAIN:
        if answered:
            return Grade("wrong", "answered a question that must be abstained on")
        return Grade("correct", f"abstained ({outcome})")
    if case.stratum not in MUST_ANSWER:
        raise ValueError(f"case {case.qid}: unknown stratum {case.stratum!r}")
    if not answered:
        return Grade("abstained", f"abstained ({outcome}) on an answerable question")
    text = normalise(answer or "")
    missing = [e for e in case.expect if normalise(e) not in text]
    if missing:
        return Grade("wrong", "answer lacks " + ", ".join(repr(m) for m in missing))
    stale = [s for s in case.stale if normalise(s) in text]
    if stale:
        return Grade("wrong", "answer gives stale " + ", ".join(repr(s) for s in stale))
    return Grade("correct", "answer contains every expected substring")


# --- counts and intervals ----------------------------------------------------------------
@dataclass(frozen=True)
class Rate:
    """k of n, with its Wilson score 95 % interval."""

    k: int
    n: int

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.k, self.n)

    def __str__(self) -> str:
        if not self.n:
            return "–"
        low, high = self.interval
        return f"{self.k}/{self.n} {self.value:.0%} [{low:.0%}–{high:.0%}]"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials; (0, 1) when n is 0."""
    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class Tally:
    n: int
    correct: int
    wrong: int
    abstained: int

    def rate(self, column: Column) -> Rate:
        return Rate(getattr(self, column), self.n)


def tally(columns: Iterable[tuple[str, Column]]) -> dict[str, Tally]:
    """Per-stratum counts of (stratum, column) pairs, plus ``all``. Strata in first-seen order."""
    counts: dict[str, dict[Column, int]] = {}
    for stratum, column in columns:
        if column not in COLUMNS:
            raise ValueError(f"unknown column {column!r}")
        for key in (stratum, "all"):
            counts.setdefault(key, dict.fromkeys(COLUMNS, 0))[column] += 1
    out = {
        key: Tally(sum(c.values()), c["correct"], c["wrong"], c["abstained"])
        for key, c in counts.items()
        if key != "all"
    }
    if "all" in counts:
        c = counts["all"]
        out["all"] = Tally(sum(c.values()), c["correct"], c["wrong"], c["abstained"])
    return out


@dataclass(frozen=True)
class AbstentionRates:
    false_abstention: Rate  # non-answers among must-answer cases
    answered_must_abstain: Rate  # answers among must-abstain cases


def abstention_rates(outcomes: Iterable[tuple[str, str]]) -> AbstentionRates:
    """From (stratum, outcome) pairs: how often we abstain when we should answer, and answer
    when we should abstain. Judged on the outcome alone, not on the answer's content;
    ambiguous cases count in neither."""
    fa = fa_n = ans = ans_n = 0
    for stratum, outcome in outcomes:
        answered = outcome == "answered"
        if stratum in MUST_ANSWER:
            fa_n += 1
            fa += not answered
        elif stratum in MUST_ABSTAIN:
            ans_n += 1
            ans += answered
    return AbstentionRates(Rate(fa, fa_n), Rate(ans, ans_n))


# --- retrieval ---------------------------------------------------------------------------
Ranked = Sequence[tuple[str, Sequence[str]]]
"""A ranked list of (source, heading_path), best first."""


def _matches(gold: GoldRef, source: str, heading_path: Sequence[str], level: Level) -> bool:
    if level == "document":
        return gold.matches_document(source)
    return gold.matches_section(source, heading_path)


def _targets(gold: Sequence[GoldRef], level: Level) -> list[GoldRef]:
    if level == "document":
        return [GoldRef(s) for s in dict.fromkeys(g.source for g in gold)]
    return list(gold)


def recall_at_k(gold: Sequence[GoldRef], ranked: Ranked, k: int, level: Level) -> float:
    """Share of the gold targets (sections, or distinct documents) found in the top k."""
    if k <= 0:
        raise ValueError("k must be greater than 0")
    targets = _targets(gold, level)
    if not targets:
        raise ValueError("recall needs at least one gold reference")
    top = ranked[:k]
    found = sum(any(_matches(g, s, h, level) for s, h in top) for g in targets)
    return found / len(targets)


def reciprocal_rank(gold: Sequence[GoldRef], ranked: Ranked, level: Level) -> float:
    """1 / rank of the first hit that matches any gold target; 0 when none does."""
    for rank, (source, heading) in enumerate(ranked, start=1):
        if any(_matches(g, source, heading, level) for g in gold):
            return 1.0 / rank
    return 0.0


@dataclass(frozen=True)
class RetrievalScores:
    n: int
    recall: Mapping[int, float]  # k -> mean recall@k
    mrr: float


def retrieval_scores(
    items: Sequence[tuple[Sequence[GoldRef], Ranked]],
    level: Level,
    ks: Sequence[int] = (1, 5, 10),
) -> RetrievalScores:
    """Mean recall@k and MRR over (gold, ranked) pairs; pairs without gold are skipped."""
    scored = [(g, r) for g, r in items if g]
    if not scored:
        return RetrievalScores(0, dict.fromkeys(ks, 0.0), 0.0)
    n = len(scored)
    recall = {k: sum(recall_at_k(g, r, k, level) for g, r in scored) / n for k in ks}
    mrr = sum(reciprocal_rank(g, r, level) for g, r in scored) / n
    return RetrievalScores(n, recall, mrr)


def context_precision(gold: Sequence[GoldRef], passages: Ranked) -> float | None:
    """Share of the passages sent to the model that lie in a gold section; None when no
    passage was sent or the case names no gold."""
    if not passages or not gold:
        return None
    hits = sum(any(g.matches_section(s, h) for g in gold) for s, h in passages)
    return hits / len(passages)


# --- leaks -------------------------------------------------------------------------------
def hidden_sentences(
    principal: Principal,
    chunks: Iterable[ChunkRef],
    levels: Sequence[str] = DEFAULT_LEVELS,
    min_chars: int = 30,
) -> tuple[str, ...]:
    """Normalised sentences found only in chunks the principal may not read. Sentences that
    also occur in a readable chunk are not secrets (shared boilerplate); very short ones
    would match by chance."""
    hidden: set[str] = set()
    seen: set[str] = set()
    for chunk in chunks:
        units = {normalise(s) for s in chunk.sentences}
        units = {u for u in units if len(u) >= min_chars}
        if visible(principal, chunk.access_level, chunk.groups, levels):
            seen |= units
        else:
            hidden |= units
    return tuple(sorted(hidden - seen))


def output_strings(value: Any) -> list[str]:
    """Every string leaf of a JSON-like value (keys excluded)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in output_strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in output_strings(v)]
    return []


def find_leaks(
    output: Mapping[str, Any],
    principal: Principal,
    chunks: Mapping[str, ChunkRef],
    levels: Sequence[str] = DEFAULT_LEVELS,
    forbidden: Sequence[str] = (),
    hidden: Sequence[str] = (),
) -> list[str]:
    """Every way this output shows the principal something above their level: a retrieved or
    cited chunk they may not read (or one the index does not know — default deny), a
    ``forbidden`` substring anywhere in the output, or a sentence found only in unreadable
    chunks. Empty means no leak."""
    leaks = []
    ids = [("retrieved", r.get("id")) for r in output.get("retrieved") or []]
    ids += [("cited", c.get("id")) for c in output.get("citations") or []]
    for role, chunk_id in ids:
        chunk = chunks.get(str(chunk_id))
        if chunk is None:
            leaks.append(f"{role} chunk {chunk_id!r} is not in the index")
        elif not visible(principal, chunk.access_level, chunk.groups, levels):
            leaks.append(f"{role} chunk {chunk_id!r} is {chunk.access_level}")
    text = normalise("\n".join(output_strings(output)))
    leaks += [f"forbidden text {f!r} in output" for f in forbidden if normalise(f) in text]
    leaks += [f"hidden sentence {h[:40]!r}… in output" for h in hidden if h in text]
    return leaks


# --- citations -----------------------------------------------------------------------------
_BRACKETED = re.compile(r"\[[^\]]*\]")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")


def figures(text: str) -> list[str]:
    """Numbers in a text, thousands separators removed ('€5,000' -> '5000'); bracketed
    citation markers are skipped."""
    out = []
    for match in _FIGURE.findall(_BRACKETED.sub(" ", text)):
        out.append(re.sub(r"(?<=\d),(?=\d{3}\b)", "", match).rstrip(".,"))
    return out


@dataclass(frozen=True)
class CitationCheck:
    citations: int
    not_retrieved: tuple[str, ...]
    figures: int
    unsupported_figures: tuple[str, ...]


def check_citations(output: Mapping[str, Any]) -> CitationCheck:
    """On an answer: every cited id was retrieved, and every figure in the answer appears in
    the text of a cited passage (its quote or its retrieved text)."""
    citations = list(output.get("citations") or [])
    retrieved = {str(r.get("id")): str(r.get("text") or "") for r in output.get("retrieved") or []}
    cited_ids = [str(c.get("id")) for c in citations]
    not_retrieved = tuple(i for i in cited_ids if i not in retrieved)
    cited_text = " ".join(
        [str(c.get("quote") or "") for c in citations] + [retrieved.get(i, "") for i in cited_ids]
    )
    available = set(figures(cited_text))
    answer_figures = figures(str(output.get("answer") or ""))
    unsupported = tuple(f for f in answer_figures if f not in available)
    return CitationCheck(len(citations), not_retrieved, len(answer_figures), unsupported)


# --- latency -------------------------------------------------------------------------------
def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation between closest ranks (numpy's
    default method)."""
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError("q must be within 0..100")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def latency_table(timings: Iterable[Mapping[str, float]]) -> dict[str, tuple[float, float, int]]:
    """stage -> (p50, p95, number of runs that timed it), stages in first-seen order."""
    per_stage: dict[str, list[float]] = {}
    for row in timings:
        for stage, ms in row.items():
            per_stage.setdefault(stage, []).append(float(ms))
    return {stage: (percentile(v, 50), percentile(v, 95), len(v)) for stage, v in per_stage.items()}
