"""The default backend: no LLM. It answers by quoting the block sentence (or, for a table,
the header and matching rows) that best supports an answer, followed by its ``[id]``, and
abstains when no sentence does.

Units: the sentences / list items ingest recorded for a block, or for a Markdown table its
rows (each read together with the header).

Support test, per unit:
- ``coverage`` = (question content words in the unit — for a table row, in the row or the
  header — + ½ × those only in the heading path) / question content words;
- ``relevance`` = the reranker's score of the hit, less ``non_best_penalty`` unless the unit
  is the sentence the reranker itself found best (``hit.best_sentence``);
- supported iff the unit shares at least one question word, ``coverage`` ≥ ``min_coverage``,
  ``relevance + coverage_weight × coverage`` ≥ ``min_support``, and the unit has the kind of
  fact the question asks for: a figure for how many / how much / how long / what rate, a
  date, time or deadline for when.
The defaults were chosen on the project's labelled questions (``evals/cases/sample.jsonl``)
with the offline reranker's scores; a CrossEncoder's scores need their own ``min_support``.

The best supported unit answers; a second unit of the same block joins it when it scores
within ``second_margin``. A lead-in sentence ending in ":" brings its list items with it.

Ambiguity: when the question matches two or more rows of a table equally (it names none of
the row-specific cells), or a quantity question lands on a lead-in whose items give different
figures, the outcome is ``ambiguous`` with those rows or items as the readings.

Status: blocks are tried in tiers — current, then pending, then superseded — and the first
tier with a supported unit answers. A superseded block whose successor (its
``superseded_by`` source) is among the hits is never quoted at all.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docent.contracts import Ambiguous, Hit, InsufficientEvidence, Outcome
from generate.figures import answer_figures, block_figures
from generate.outcomes import answered
from generate.protocols import Generation
from generate.text import addresses_model, chunk_sentences, content_words, split_sentences
from render.prompt import RenderedPrompt

WHEN_QUESTION = re.compile(
    r"\b(when\b|by when|what (time|date|day)|which (date|day)|deadline|how (soon|early|late))",
    re.IGNORECASE,
)
QUANTITY_QUESTION = re.compile(
    r"\b(how (many|much|long|often|far|old|big|large|fast)|what percent|percentage|"
    r"(what is|what's|what are) the (\w+ ){0,3}(rate|cap|limit|price|cost|fee|amount|maximum|"
    r"minimum|allowance|budget|number))",
    re.IGNORECASE,
)
RELATIVE_TIME = re.compile(
    r"\b(within|before|after|until|by|every|each|monday|tuesday|wednesday|thursday|friday|"
    r"saturday|sunday|daily|weekly|monthly|annually|immediately)\b",
    re.IGNORECASE,
)
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
NOT_FOUND = "None of the passages found states an answer to this question."
TIERS = ("current", "pending", "superseded")
MAX_LIST_ITEMS = 4


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a block: a sentence, list item, or a table row with its header."""

    hit: Hit
    text: str
    context: str  # heading path (and title)
    index: int  # position among the block's units
    header: str | None = None  # the table header (with its rule line) for a row


@dataclass(frozen=True)
class Scored:
    unit: Unit
    coverage: float
    score: float
    supported: bool
    own: frozenset[str] = frozenset()


def table_rows(text: str) -> tuple[str, list[str]] | None:
    """``(header, rows)`` of a Markdown pipe table, or None when ``text`` is not one. The
    header keeps its rule line (``|---|---|``) when the table has one, so a quote of header
    and rows is still a Markdown table."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    piped = [line for line in lines if line.startswith("|") or line.count("|") >= 2]
    if len(piped) < 2:
        return None
    body = [line for line in piped if not _TABLE_RULE.match(line)]
    rules = [line for line in piped if _TABLE_RULE.match(line)]
    if len(body) < 2:
        return None
    header = f"{body[0]}\n{rules[0]}" if rules else body[0]
    return header, body[1:]


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def units_of(hit: Hit) -> list[Unit]:
    chunk = hit.chunk
    heading = " ".join([*chunk.heading_path, chunk.title or ""])
    table = table_rows(chunk.text) if chunk.kind == "table" or "|" in chunk.text else None
    if table is None:
        # A sentence addressing the model is the document's text, not an answer to quote.
        sentences = enumerate(chunk_sentences(chunk))
        return [Unit(hit, s, heading, n) for n, s in sentences if not addresses_model(s)]
    header, rows = table
    units = [Unit(hit, row, heading, n, header) for n, row in enumerate(rows)]
    prose = "\n".join(line for line in chunk.text.splitlines() if line.strip() and "|" not in line)
    for sentence in split_sentences(prose) if prose.strip() else ():
        units.append(Unit(hit, sentence, heading, len(units)))
    return units


def has_fact(text: str, wants_when: bool, wants_quantity: bool) -> bool:
    """Does ``text`` hold the kind of fact the question asks for?"""
    if wants_when:
        keys = answer_figures(text)
        dated = any(k.split(":", 1)[0] in {"date", "day", "month", "time"} for k in keys)
        return dated or (bool(block_figures(text)) and bool(RELATIVE_TIME.search(text)))
    if wants_quantity:
        return bool(block_figures(text))
    return True


class ExtractiveGenerator:
    backend = "extractive"

    def __init__(
        self,
        *,
        min_support: float = 0.7,
        coverage_weight: float = 0.3,
        min_coverage: float = 0.3,
        non_best_penalty: float = 0.05,
        second_margin: float = 0.05,
        model: str = "extractive-v1",
    ) -> None:
        if not 0 <= min_coverage <= 1:
            raise ValueError(f"min_coverage must be in [0, 1], got {min_coverage}")
        if coverage_weight < 0 or non_best_penalty < 0 or second_margin < 0:
            raise ValueError("coverage_weight, non_best_penalty and second_margin must be >= 0")
        self.min_support = min_support
        self.coverage_weight = coverage_weight
        self.min_coverage = min_coverage
        self.non_best_penalty = non_best_penalty
        self.second_margin = second_margin
        self.model = model

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation:
        question = prompt.question
        words = content_words(question)
        wants_when = bool(WHEN_QUESTION.search(question))
        wants_quantity = bool(QUANTITY_QUESTION.search(question))
        successors = {hit.chunk.source for hit in hits if hit.chunk.status != "superseded"}
        eligible = [
            hit
            for hit in sorted(hits, key=lambda h: h.rank)
            if not (hit.chunk.status == "superseded" and hit.chunk.superseded_by in successors)
        ]
        considered: list[Scored] = []
        for tier in TIERS:
            scored = [
                self._score(unit, words, wants_when, wants_quantity)
                for hit in eligible
                if _tier(hit) == tier
                for unit in units_of(hit)
            ]
            considered += scored
            supported = [s for s in scored if s.supported]
            if supported:
                outcome = self._answer(supported, scored, hits, wants_quantity or wants_when)
                return Generation(outcome, _raw(outcome, considered), self.model)
        abstain = InsufficientEvidence(NOT_FOUND)
        return Generation(abstain, _raw(abstain, considered), self.model)

    def _score(self, unit: Unit, words: set[str], wants_when: bool, wants_qty: bool) -> Scored:
        if not words:
            return Scored(unit, 0.0, 0.0, False)
        # A table row means "header: value", so its header words are its own words.
        own = words & content_words(f"{unit.header or ''} {unit.text}")
        context_only = (words & content_words(unit.context)) - own
        coverage = (len(own) + 0.5 * len(context_only)) / len(words)
        hit = unit.hit
        relevance = hit.rerank_score if hit.rerank_score is not None else hit.score
        relevance = max(min(relevance, 1.0), 0.0)
        if hit.best_sentence and not _is_best_sentence(unit):
            relevance -= self.non_best_penalty
        support = relevance + self.coverage_weight * coverage
        lead_in = unit.text.rstrip().endswith(":")
        supported = (
            bool(own)
            and coverage >= self.min_coverage
            and support >= self.min_support
            and (lead_in or has_fact(unit.text, wants_when, wants_qty))
        )
        return Scored(unit, coverage, support - 0.01 * (hit.rank - 1), supported, frozenset(own))

    def _answer(
        self,
        supported: list[Scored],
        scored: list[Scored],
        hits: Sequence[Hit],
        wants_figure: bool,
    ) -> Outcome:
        best = max(supported, key=lambda s: s.score)
        block = [s for s in scored if s.unit.hit is best.unit.hit]
        cid = best.unit.hit.chunk.chunk_id
        if best.unit.header is not None:
            return self._table_answer(best, block, hits)
        if best.unit.text.rstrip().endswith(":"):
            items = [s for s in block if s.unit.index > best.unit.index][:MAX_LIST_ITEMS]
            # An item naming something the lead-in does not ("Tier 1") picks itself out.
            specific = {id(s): len(s.own - best.own) for s in items}
            top = max(specific.values(), default=0)
            chosen = [s for s in items if top and specific[id(s)] == top]
            if len(chosen) == 1:
                items = chosen
            texts = [s.unit.text for s in items]
            if wants_figure and len(texts) >= 2 and _differ_in_figures(texts):
                return _ambiguous(texts, [t.split(":", 1)[0] for t in texts])
            quote = "\n".join([best.unit.text, *texts])
            return answered(f"{quote} [{cid}]", [(cid, quote)], hits)
        extra = [
            s
            for s in supported
            if s.unit.hit is best.unit.hit
            and s is not best
            and s.score >= best.score - self.second_margin
        ]
        picked = sorted([best, *sorted(extra, key=lambda s: -s.score)[:1]], key=_position)
        quote = " ".join(s.unit.text for s in picked)
        answer = " ".join(_cite(s.unit.text, cid) for s in picked)
        return answered(answer, [(cid, quote)], hits)

    def _table_answer(self, best: Scored, block: list[Scored], hits: Sequence[Hit]) -> Outcome:
        rows = [s for s in block if s.unit.header is not None]
        header = best.unit.header or ""
        header_words = content_words(header)
        # Rows matching the question exactly as well as the best row does, on words of their
        # own cells (not the header's): when several tie, the question did not pick a row.
        specific = best.own - header_words
        ties = [s for s in rows if s.own - header_words == specific and s.own == best.own]
        if not specific and len(ties) >= 2:
            readings = [_row_reading(header, s.unit.text) for s in ties[:3]]
            return _ambiguous(readings, [cells(s.unit.text)[0] for s in ties[:3]])
        matched = sorted([s for s in ties if specific][:2] or [best], key=_position)
        cid = best.unit.hit.chunk.chunk_id
        quote = "\n".join([header, *(s.unit.text for s in matched)])
        return answered(f"{quote} [{cid}]", [(cid, quote)], hits)


def _position(scored: Scored) -> int:
    return scored.unit.index


def _differ_in_figures(items: Sequence[str]) -> bool:
    figures = [frozenset(answer_figures(item)) for item in items]
    return len({f for f in figures if f}) >= 2


def _row_reading(header: str, row: str) -> str:
    names = cells(header.splitlines()[0])
    values = cells(row)
    return "; ".join(f"{n}: {v}" for n, v in zip(names, values, strict=False) if v)


def _ambiguous(readings: Sequence[str], labels: Sequence[str]) -> Ambiguous:
    """Up to three readings; the clarifying question names them by ``labels`` (a row's first
    cell, an item's text before its colon) when those are short and distinct."""
    labels = [label.strip() for label in labels[:3]]
    if len(set(labels)) == len(labels) and all(0 < len(label) <= 40 for label in labels):
        question = "Which one do you mean: " + ", ".join(labels[:-1]) + f" or {labels[-1]}?"
    else:
        question = "Which of these do you mean?"
    return Ambiguous(tuple(readings[:3]), question)


def _is_best_sentence(unit: Unit) -> bool:
    """Is ``unit`` the sentence the reranker found best? A table row matches its
    "Header: value; …" form by its words."""
    best = unit.hit.best_sentence
    if not best:
        return False
    if unit.header is None:
        return best.strip() == unit.text.strip()
    words = content_words(unit.text)
    return bool(words) and words <= content_words(best)


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
