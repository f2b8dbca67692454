"""How the extractive answerer scores each quotable unit of a block.

A unit is a sentence, a list item, or a table row read with its header. Its score is one
documented linear function of six signals:

    score = semantic·s + block·b + lexical·c + fit·t + title·d − meta·m − rank·(r − 1)

- ``s``: the cosine between the question and the unit, from the vectors ingest stored
  for each unit read under its heading path (``Chunk.unit_embed_texts``; recorded on the
  hit by the offline reranker as ``unit_scores``; a CrossEncoder records none); without
  them, the hit's own relevance (less a little for a unit that is not the reranker's best
  sentence);
- ``b``: the block's rerank score (how well the whole passage matches);
- ``c``: lexical coverage — the share of the question's content words the unit holds (a
  table row's header words count as its own; heading-path words count half);
- ``t``: ``answer_types.type_fit`` — does the unit carry what the question asks for (a
  number of days for "how many days", a rule for a yes/no question);
- ``d``: the share of the question's subject words in the document's title (the
  Severance Guidelines answer "what is the severance policy", not a plan that mentions
  it). Its fitted weight is 0 on the sample corpus since ``s`` reads the heading path; it
  is kept as a signal a fit on another corpus may weigh;
- ``m``: 1 for a sentence about the document itself ("This policy sets out …"), which
  describes a policy without stating any of it.

where ``r`` is the block's rank. A unit answers when its score reaches
``Weights.min_score``. The weights were fitted (a conditional logit over each question's
units) and the threshold swept on the dev split of ``evals/cases/`` only, by
``docent eval fit-answerer`` (``evals/reports/answerer_fit.md``); the test split is
reported, never fitted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from docent.contracts import Hit
from docent.list_items import item_parents
from generate.answer_types import type_fit
from generate.question_types import Expectation
from generate.tables import table_rows
from generate.text import (
    addresses_model,
    best_overlap_sentence,
    chunk_sentences,
    collapse_space,
    content_words,
    split_sentences,
)

_META = re.compile(
    r"^in (this|our) (handbook|document|guide|page|section),? (you'll|you will|we|you can) "
    r"(find|learn|see|read|describe|explain|set out|cover)\b|"
    r"^(this|these|the following|our) (policy|policies|guidelines?|document|page|"
    r"handbook|section|statement|guide|procedure|standard)\b|\b(this|these) (policy|guidelines?|"
    r"document|handbook) (sets? out|describes?|explains?|applies|covers?|lists?|is|are)\b",
    re.IGNORECASE,
)


# Words that name the kind of document, not its subject: "the severance policy" is about
# severance, whatever the document calls itself.
GENERIC_WORDS = frozenset(
    content_words("policy policies rule rules guideline guidelines handbook document procedure")
)


@dataclass(frozen=True)
class Weights:
    semantic: float = 1.0
    block: float = 0.237
    lexical: float = 0.632
    fit: float = 0.261
    title: float = 0.0
    meta: float = 0.222
    rank: float = 0.012
    min_score: float = 1.022
    # Units whose score is this close to the best unit's are quoted with it: of the same
    # block (up to two), of another block (one) — when the scores cannot tell them apart,
    # the answer shows both, each with its citation. Hand-set, not fitted.
    same_block_margin: float = 0.1
    other_block_margin: float = 0.05
    # How far below ``min_score`` a unit of the asked type may score and still answer, when
    # another unit of its document clears ``min_score`` (but is not of that type).
    # Hand-set, not fitted or swept (an earlier comment said "swept on dev"; it was not).
    same_document_slack: float = 0.15

    def __post_init__(self) -> None:
        if (
            min(
                self.same_block_margin, self.other_block_margin, self.same_document_slack, self.rank
            )
            < 0
        ):
            raise ValueError("answerer margins and the rank penalty must be >= 0")


@dataclass(frozen=True)
class Unit:
    """One quotable piece of a block: a sentence, list item, or a table row with its header."""

    hit: Hit
    text: str
    context: str  # heading path (and title), and a nested list item's parent items
    index: int  # position among the block's units
    header: str | None = None  # the table header (with its rule line) for a row


@dataclass(frozen=True)
class Scored:
    unit: Unit
    score: float
    semantic: float
    coverage: float
    fit: float
    own: frozenset[str] = frozenset()


def units_of(hit: Hit) -> list[Unit]:
    chunk = hit.chunk
    heading = " ".join([*chunk.heading_path, chunk.title or ""])
    table = table_rows(chunk.text) if chunk.kind == "table" or "|" in chunk.text else None
    if table is None:
        # A sentence addressing the model is the document's text, not an answer to quote.
        # A nested list item is read under the items above it, as ingest embeds it.
        parents = item_parents(chunk.text)
        return [
            Unit(hit, s, " ".join([heading, *parents.get(s, ())]), n)
            for n, s in enumerate(chunk_sentences(chunk))
            if not addresses_model(s)
        ]
    header, rows = table
    units = [Unit(hit, row, heading, n, header) for n, row in enumerate(rows)]
    prose = "\n".join(line for line in chunk.text.splitlines() if line.strip() and "|" not in line)
    for sentence in split_sentences(prose) if prose.strip() else ():
        units.append(Unit(hit, sentence, heading, len(units)))
    return units


def relevance(hit: Hit) -> float:
    value = hit.rerank_score if hit.rerank_score is not None else hit.score
    return max(min(value, 1.0), 0.0)


def semantic(unit: Unit) -> float:
    """The question–unit cosine the reranker recorded; rows are found among the stored
    units by their words (ingest stores a row as "Header: value; …")."""
    hit = unit.hit
    sentences = hit.chunk.sentences
    if hit.unit_scores and len(hit.unit_scores) == len(sentences):
        scores = dict(zip(sentences, hit.unit_scores, strict=True))
        if unit.text in scores:
            return scores[unit.text]
        match = best_overlap_sentence(sentences, f"{unit.header or ''} {unit.text}")
        if match is not None and content_words(match) & content_words(unit.text):
            return scores[match]
    base = relevance(hit)
    best = hit.best_sentence
    return base if best and best.strip() == unit.text.strip() else base - 0.05


# Sections that say what a document is for, not what it rules, or that only point to other
# pages (a handbook's list of its sections: "Severance Packages" names a page, it is no answer).
FRAMING_HEADINGS = frozenset(
    {"scope", "purpose", "introduction", "about", "overview", "background"}
    | {"sections", "contents", "table of contents", "see also", "related", "related pages"}
    | {"further reading", "links", "useful links"}
)


# A paragraph that opens so is a worked example: its figures are someone's case ("You will
# earn 104 more sick leave hours (26 pay periods x 4 …)"), not the rule (a user pass).
_EXAMPLE = re.compile(r"^\W*(for example|for instance|example\b|e\.g\.)", re.IGNORECASE)


def in_example(unit: Unit) -> bool:
    """Is the unit a sentence of a paragraph that opens as a worked example?"""
    text = collapse_space(unit.text)
    for paragraph, example in _paragraphs(unit.hit.chunk.text):
        if text in paragraph:
            return example
    return False


@lru_cache(maxsize=4096)  # asked of every scored unit of a block, several times a question
def _paragraphs(text: str) -> tuple[tuple[str, bool], ...]:
    """A chunk's paragraphs (whitespace runs made single), each with whether it opens as a
    worked example."""
    return tuple((collapse_space(p), bool(_EXAMPLE.match(p))) for p in re.split(r"\n\s*\n", text))


def is_meta(text: str, heading_path: tuple[str, ...] = ()) -> bool:
    """A sentence about the document itself ("This policy sets out …", "In this handbook,
    you'll find …"), or any sentence of its scope or purpose section or of a list of the
    sections it holds."""
    leaf = heading_path[-1].strip().lower() if len(heading_path) > 1 else ""
    return leaf in FRAMING_HEADINGS or bool(_META.search(text))


@dataclass(frozen=True)
class Features:
    """The signals of one unit, each a number; ``score`` weighs them."""

    semantic: float
    block: float
    lexical: float
    fit: float
    title: float
    meta: float
    rank: int

    def vector(self) -> tuple[float, ...]:
        return (self.semantic, self.block, self.lexical, self.fit, self.title, self.meta)


def features(
    unit: Unit, words: set[str], expectation: Expectation
) -> tuple[Features, frozenset[str]]:
    """The unit's signals, and the question words it holds itself."""
    # A table row means "header: value", so its header words are its own words.
    own = words & content_words(f"{unit.header or ''} {unit.text}")
    context_only = (words & content_words(unit.context)) - own
    coverage = (len(own) + 0.5 * len(context_only)) / len(words) if words else 0.0
    body = f"{unit.header.splitlines()[0] if unit.header else ''} {unit.text}"
    chunk = unit.hit.chunk
    topic = words - GENERIC_WORDS
    named = content_words(chunk.title or (chunk.heading_path[0] if chunk.heading_path else ""))
    return (
        Features(
            semantic=semantic(unit),
            block=relevance(unit.hit),
            lexical=coverage,
            fit=type_fit(expectation, body, row=unit.header is not None),
            title=len(topic & named) / len(topic) if topic else 0.0,
            meta=1.0 if unit.header is None and is_meta(unit.text, chunk.heading_path) else 0.0,
            rank=unit.hit.rank,
        ),
        frozenset(own),
    )


def weigh(f: Features, weights: Weights) -> float:
    return (
        weights.semantic * f.semantic
        + weights.block * f.block
        + weights.lexical * f.lexical
        + weights.fit * f.fit
        + weights.title * f.title
        - weights.meta * f.meta
        - weights.rank * (f.rank - 1)
    )


def score_unit(unit: Unit, words: set[str], expectation: Expectation, weights: Weights) -> Scored:
    f, own = features(unit, words, expectation)
    return Scored(unit, weigh(f, weights), f.semantic, f.lexical, f.fit, own)


# A later version's unit shares at least this share of a superseded unit's words to count
# as its counterpart in the same section, and ACROSS_SECTIONS_SHARE in another (hand-set: the
# sample's reworded rules share 0.4-0.7 of their words, figures aside; a review found a
# business-accounts sentence of another section at 0.56 with its figures, 0.3 without).
COUNTERPART_SHARE = 0.25
ACROSS_SECTIONS_SHARE = 0.6


def _words_not_figures(unit: Unit) -> set[str]:
    """A unit's words without its figures: the figures are what changes between versions."""
    words = content_words(f"{unit.header or ''} {unit.text}")
    return {w for w in words if not any(ch.isdigit() for ch in w)}


def counterpart(
    old: Scored, candidates: Sequence[Scored], least: float = COUNTERPART_SHARE
) -> Scored | None:
    """The candidate that says what ``old`` says, by the most words shared (Jaccard, figures
    aside): the current rule beside a superseded one quotes "within 30 days of a purchase"
    beside "within 14 days of a purchase", not whichever sentence is nearest the question.
    None when none shares ``least`` of their words."""
    words = _words_not_figures(old.unit)

    def share(s: Scored) -> float:
        theirs = _words_not_figures(s.unit)
        union = words | theirs
        return len(words & theirs) / len(union) if union else 0.0

    best = max(candidates, key=lambda s: (share(s), s.score), default=None)
    return best if best is not None and share(best) >= least else None
