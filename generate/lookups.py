"""One of several labelled rules picked by what a table row says of the thing the question
names: "an extra night in Berlin" — the per diem table's row for Berlin says "Tier 1", so of
"Tier 1 cities: up to €220 per night" and "Tier 2 cities: up to €160 per night" the first
holds (a user pass found the Tier 2 cap marked, and "a hotel in Porto" answered with the
Porto row beside the Tier 1 cap).

Only a sure pick: a row whose own cell is a word or phrase of the question, another cell of
which is word for word in the label (the text before the colon) of exactly one rule; rows
naming the thing that point at different rules ("in Germany": Berlin is Tier 1, Hamburg Tier
2) pick none. A thing no row names is not looked up in a row; what a non-answer marks for it
is the block's rule for things not listed ("a hotel in Zurich": "Any city not listed in the
per diem table counts as Tier 2", not the Tier 1 cap it marked first by meaning).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docent.contracts import Hit, Outcome
from generate.lists import chosen_first, list_of, siblings
from generate.names import capitalised_names, holds_name
from generate.outcomes import answered
from generate.tables import cells
from generate.text import content_words
from generate.unit_scoring import Scored

_LABEL = re.compile(r"^\s*(?:[-*•]\s*)?([^:]{2,60}):\s")
_WORD = re.compile(r"[^\W_]+(?:['’.-][^\W_]+)*")
# A rule for what a list or table leaves out: "Any city not listed … counts as Tier 2".
_UNLISTED = re.compile(r"\b(?:not (?:listed|named|shown|included) in|unlisted)\b", re.I)
MAX_NAME_WORDS = 3


def label_of(text: str) -> str | None:
    """The label a rule is written under ("Tier 1 cities" of "Tier 1 cities: up to €220"),
    casefolded; None for a sentence with no label before a colon."""
    match = _LABEL.match(text)
    if match is None or len(match.group(1).split()) > 6:
        return None
    return " ".join(match.group(1).casefold().split())


def _phrases(question: str) -> set[str]:
    words = [w.casefold() for w in _WORD.findall(question)]
    return {
        " ".join(words[i : i + n])
        for n in range(1, MAX_NAME_WORDS + 1)
        for i in range(len(words) - n + 1)
    }


def _within(value: str, label: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", label) is not None


def looked_up(
    rules: Sequence[Scored], rows: Sequence[Scored], question: str
) -> tuple[Scored, Scored] | None:
    """The one of ``rules`` (units written under labels) whose label a row of ``rows``
    names, where the row's key (its first cell: "Berlin") is a word or phrase of
    ``question``, and the first such row; None unless exactly one rule is picked so. Only the
    key names a row: a cell many rows share ("Germany", "Included") or a word like "it"
    ("IT") would pick a row the question is not about (a review)."""
    labelled = [(s, label) for s in rules if (label := label_of(s.unit.text)) is not None]
    if len(labelled) < 2:
        return None
    asked = _phrases(question)
    picked: dict[int, tuple[Scored, Scored]] = {}
    for row in rows:
        values = [" ".join(v.casefold().split()) for v in cells(row.unit.text)]
        if not values or values[0] not in asked or not content_words(values[0]):
            continue
        for value in values[1:]:
            if not any(ch.isalpha() for ch in value):
                continue
            for rule, label in labelled:
                if _within(value, label):
                    picked.setdefault(id(rule), (rule, row))
    return next(iter(picked.values())) if len(picked) == 1 else None


def table_rows(scored: Sequence[Scored]) -> list[Scored]:
    return [s for s in scored if s.unit.header is not None]


def lookup_first(ranked: Sequence[Scored], question: str) -> list[Scored]:
    """``ranked`` (units, best first) with, in each block of labelled rules, the rule a row
    among ``ranked`` picks for the thing the question names moved to just before that
    block's best unit: what a non-answer highlights in the passage."""
    rows = table_rows(ranked)
    unnamed = unlisted_names(question, ranked)

    def choose(top: Scored, block: list[Scored]) -> Scored | None:
        if top.unit.header is not None:
            return None
        rules = siblings(top, block)
        found = looked_up(rules, rows, question) if rows else None
        if found is not None:
            return found[0]
        return unlisted_rule(rules, question) if unnamed else None

    return chosen_first(ranked, choose)


def unlisted_names(question: str, considered: Sequence[Scored]) -> list[str]:
    """The places the question names ("in Zurich", "to Lyon": a capitalised word after a
    preposition of place, not an acronym such as "HR" or "PTO") that no unit considered
    holds, in their passages' headings either: things the documents do not list."""
    places = [
        n
        for n in capitalised_names(question)
        if not n.isupper() and re.search(rf"\b(?:in|to|at|from)\s+{re.escape(n)}\b", question)
    ]
    if not places:  # most questions: the passages' text need not be read
        return []
    text = " ".join(f"{s.unit.text} {' '.join(s.unit.hit.chunk.heading_path)}" for s in considered)
    return sorted(n for n in places if not holds_name(text, n))


def unlisted_rule(rules: Sequence[Scored], question: str) -> Scored | None:
    """The one of ``rules`` (a block's siblings) that says what applies to things not
    listed; None when none or several do, or when the question names one of the rules by
    its label or the label's first words (the asker who says "Tier 1" knows the tier)."""
    named = [p for p in _phrases(question) if " " in p]
    for rule in rules:
        label = label_of(rule.unit.text)
        if label is not None and any(f"{label} ".startswith(f"{p} ") for p in named):
            return None
    found = [s for s in rules if _UNLISTED.search(s.unit.text)]
    return found[0] if len(found) == 1 else None


def rule_for(unit: Scored, scored: Sequence[Scored], question: str) -> Scored:
    """``unit``, or the rule of its block that a row among ``scored`` picks for the thing the
    question names when ``unit`` is another of those rules."""
    block = [s for s in scored if s.unit.hit is unit.unit.hit]
    rules = siblings(unit, block)
    found = looked_up(rules, table_rows(scored), question) if unit in rules else None
    return unit if found is None else found[0]


def lookup_answer(
    best: Scored,
    block: Sequence[Scored],
    scored: Sequence[Scored],
    hits: Sequence[Hit],
    question: str,
) -> Outcome | None:
    """When ``best`` is one of a list's labelled rules (or its lead-in), the rule a row picks
    for the thing the question names, under the lead-in, with that row cited as the reason
    ("Tier 1 cities: up to €220 per night" and the per diem table's Berlin row); None when
    no row picks one."""
    lead = list_of(best, block)[0]
    found = looked_up(siblings(best, block), table_rows(scored), question)
    if found is None:
        return None
    rule, row = found
    cid, row_id = rule.unit.hit.chunk.chunk_id, row.unit.hit.chunk.chunk_id
    quote = "\n".join(s.unit.text for s in (lead, rule) if s is not None)
    row_quote = "\n".join([row.unit.header or "", row.unit.text])
    return answered(
        f"{quote} [{cid}]\n{row_quote} [{row_id}]", [(cid, quote), (row_id, row_quote)], hits
    )
