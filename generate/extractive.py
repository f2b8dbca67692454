"""The default backend: no LLM. It answers by quoting the block sentence (or, for a table,
the header and matching rows) that best supports an answer, each followed by its ``[id]``,
and abstains when no sentence does.

Support test, per sentence (table row, list item) of a shown block:
- ``coverage`` = (question content words in the sentence + ½ × those only in the block's
  heading path, or for a table row only in its header) / question content words;
- supported iff at least one question word is in the sentence itself, ``coverage`` ≥
  ``min_coverage``, and — for questions asking how many / how much / how long / when / what
  percentage or rate — the sentence states a figure;
- and either ``coverage`` ≥ ``strong_coverage`` or the reranker scored the hit at least
  ``min_rerank`` (a sentence that shares half the words of the question is on the subject,
  which is not the same as answering it).
Among supported sentences the best is ``coverage`` + small bonuses for the reranker's own
best sentence, its score and a higher rank. A second sentence of the same block is added
when it also passes and scores within ``second_ratio`` of the best.

Status: blocks are tried in tiers — current, then pending, then superseded — and the first
tier with a supported sentence answers. A superseded block whose successor (its
``superseded_by`` source) is among the hits is never quoted at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docent.contracts import Hit, InsufficientEvidence, Outcome
from generate.figures import block_figures
from generate.outcomes import answered
from generate.protocols import Generation
from generate.text import chunk_sentences, content_words, split_sentences
from render.prompt import RenderedPrompt

QUANTITY_QUESTION = re.compile(
    r"\b(how (many|much|long|often|far|soon|early|late)|when\b|what (time|date|day)|"
    r"by when|what percent|percentage|what (is|are) the (rate|cap|limit|price|cost|fee|amount|"
    r"maximum|minimum|deadline)|how old)",
    re.IGNORECASE,
)
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
NOT_FOUND = "None of the passages found states an answer to this question."
TIERS = ("current", "pending", "superseded")


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a block: a sentence, list item, or a table row with its header."""

    hit: Hit
    text: str
    context: str  # heading path, plus the table header for a row
    header: str | None = None


@dataclass(frozen=True)
class Scored:
    unit: Unit
    coverage: float
    score: float
    supported: bool


def table_rows(text: str) -> tuple[str, list[str]] | None:
    """``(header, rows)`` of a Markdown pipe table, or None when ``text`` is not one."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    piped = [line for line in lines if line.startswith("|") or line.count("|") >= 2]
    if len(piped) < 2:
        return None
    body = [line for line in piped if not _TABLE_RULE.match(line)]
    return body[0], body[1:]


def units_of(hit: Hit) -> list[Unit]:
    chunk = hit.chunk
    heading = " ".join([*chunk.heading_path, chunk.title or ""])
    table = table_rows(chunk.text) if chunk.kind == "table" or "|" in chunk.text else None
    if table is not None:
        header, rows = table
        units = [Unit(hit, row, f"{heading} {header}", header) for row in rows]
        prose = [line for line in chunk.text.splitlines() if line.strip() and "|" not in line]
        units += [Unit(hit, s, heading) for s in split_sentences("\n".join(prose))]
        return units
    return [Unit(hit, sentence, heading) for sentence in chunk_sentences(chunk)]


class ExtractiveGenerator:
    backend = "extractive"

    def __init__(
        self,
        *,
        min_coverage: float = 0.5,
        strong_coverage: float = 0.75,
        min_rerank: float = 0.5,
        second_ratio: float = 0.85,
        model: str = "extractive-v1",
    ) -> None:
        if not 0 < min_coverage <= strong_coverage <= 1:
            raise ValueError("need 0 < min_coverage <= strong_coverage <= 1")
        if not 0 < second_ratio <= 1:
            raise ValueError("second_ratio must be in (0, 1]")
        self.min_coverage = min_coverage
        self.strong_coverage = strong_coverage
        self.min_rerank = min_rerank
        self.second_ratio = second_ratio
        self.model = model

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation:
        question = prompt.question
        words = content_words(question)
        wants_figure = bool(QUANTITY_QUESTION.search(question))
        successors = {hit.chunk.source for hit in hits if hit.chunk.status != "superseded"}
        eligible = [
            hit
            for hit in sorted(hits, key=lambda h: h.rank)
            if not (hit.chunk.status == "superseded" and hit.chunk.superseded_by in successors)
        ]
        considered: list[Scored] = []
        for tier in TIERS:
            tier_hits = [hit for hit in eligible if _tier(hit) == tier]
            scored = [self._score(u, words, wants_figure) for h in tier_hits for u in units_of(h)]
            considered += scored
            supported = [s for s in scored if s.supported]
            if supported:
                outcome = self._answer(supported, hits)
                return Generation(outcome, _raw(outcome, considered), self.model)
        outcome_ie = InsufficientEvidence(NOT_FOUND)
        return Generation(outcome_ie, _raw(outcome_ie, considered), self.model)

    def _score(self, unit: Unit, words: set[str], wants_figure: bool) -> Scored:
        if not words:
            return Scored(unit, 0.0, 0.0, False)
        own = words & content_words(unit.text)
        context_only = (words & content_words(unit.context)) - own
        coverage = (len(own) + 0.5 * len(context_only)) / len(words)
        hit = unit.hit
        rerank = hit.rerank_score if hit.rerank_score is not None else hit.score
        has_figure = bool(block_figures(unit.text))
        supported = (
            bool(own)
            and coverage >= self.min_coverage
            and (has_figure or not wants_figure)
            and (coverage >= self.strong_coverage or rerank >= self.min_rerank)
        )
        bonus = 0.15 if hit.best_sentence and hit.best_sentence.strip() == unit.text else 0.0
        score = coverage + bonus + 0.1 * max(min(rerank, 1.0), 0.0) - 0.02 * (hit.rank - 1)
        return Scored(unit, coverage, score, supported)

    def _answer(self, supported: list[Scored], hits: Sequence[Hit]) -> Outcome:
        best = max(supported, key=lambda s: s.score)
        same_block = [
            s
            for s in supported
            if s.unit.hit is best.unit.hit
            and s is not best
            and s.score >= self.second_ratio * best.score
        ]
        picked = [best, *sorted(same_block, key=lambda s: -s.score)[:1]]
        text = best.unit.hit.chunk.text
        picked_sorted = sorted((s.unit for s in picked), key=lambda u: text.find(u.text))
        cid = best.unit.hit.chunk.chunk_id
        if best.unit.header is not None:
            rows = [u.text for u in picked_sorted if u.header is not None]
            quote = "\n".join([best.unit.header, *rows])
            answer = "\n".join(f"{line} [{cid}]" for line in [best.unit.header, *rows])
        else:
            quote = " ".join(u.text for u in picked_sorted)
            answer = " ".join(_cite(u.text, cid) for u in picked_sorted)
        return answered(answer, [(cid, quote)], hits)


def _tier(hit: Hit) -> str:
    return hit.chunk.status if hit.chunk.status in TIERS else "current"


def _cite(sentence: str, cid: str) -> str:
    """``sentence`` with its marker before the final full stop: "… 14 days [id]."."""
    body = sentence.rstrip()
    if body.endswith((".", "!", "?")):
        return f"{body[:-1]} [{cid}]{body[-1]}"
    return f"{body} [{cid}]"


def _raw(outcome: Outcome, considered: list[Scored]) -> str:
    """The backend's working, for the trace: the best-scoring candidates and the choice."""
    top = sorted(considered, key=lambda s: -s.score)[:5]
    return json.dumps(
        {
            "kind": outcome.kind,
            "candidates": [
                {
                    "id": s.unit.hit.chunk.chunk_id,
                    "text": s.unit.text,
                    "coverage": round(s.coverage, 3),
                    "score": round(s.score, 3),
                    "supported": s.supported,
                }
                for s in top
            ],
        },
        ensure_ascii=False,
    )
