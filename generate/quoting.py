"""How quoted units become answer text: a citation marker placed before the final full
stop, a bare list's item under its heading, and the ``ambiguous`` outcome when the question
picks none of several readings."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from docent.contracts import Ambiguous
from docent.list_items import ITEM_LINE
from generate.figures import answer_figures

if TYPE_CHECKING:
    from generate.unit_scoring import Unit


def cite(sentence: str, cid: str) -> str:
    """``sentence`` with its marker before the final full stop: "… 14 days [id]."."""
    body = sentence.rstrip()
    if body.endswith((".", "!", "?")):
        return f"{body[:-1]} [{cid}]{body[-1]}"
    return f"{body} [{cid}]"


def differ_in_figures(items: Sequence[str]) -> bool:
    figures = [frozenset(answer_figures(item)) for item in items]
    return len({f for f in figures if f}) >= 2


def ambiguous(readings: Sequence[str], labels: Sequence[str] | None = None) -> Ambiguous:
    """Up to three readings; the clarifying question names them by ``labels`` (a row's first
    cell; by default, an item's text before its colon) when those are short and distinct."""
    if labels is None:
        labels = [reading.split(":", 1)[0] for reading in readings]
    labels = [label.strip() for label in labels[:3]]
    if len(set(labels)) == len(labels) and all(0 < len(label) <= 40 for label in labels):
        question = "Which one do you mean: " + ", ".join(labels[:-1]) + f" or {labels[-1]}?"
    else:
        question = "Which of these do you mean?"
    return Ambiguous(tuple(readings[:3]), question)


# A sentence opening so refers back to one before it (capitalised as a sentence opens:
# "IT asset tags …" names a department); a label ("This: …") does not.
REFERS_BACK = re.compile(r"^\W*(?:It|Its|They|Their|These|This|He|She)\b(?!\s*\w*:)")


def refers_back(first: Unit) -> bool:
    """Does the unit open by referring to something before it in its passage?"""
    return first.index > 0 and bool(REFERS_BACK.match(first.text))


# A heading's letter or number ("A. How Does This Actually Work?"): before an answer it would
# end a sentence of its own ("… (effective 2020-02-10): A."), which the checks drop — and
# with it a past version's label (a user pass). Not an abbreviation ("E. coli testing").
_ENUMERATOR = re.compile(r"^\s*(?:[A-Za-z]|\d{1,3}|[ivxIVX]{1,5})[.)]\s+(?=[A-Z0-9\"“(])")


def under_heading(answer: str, first: Unit) -> str:
    """A passage that is a bare list under its heading ("Non-reimbursable expenses" over
    "- Alcohol, except at a client dinner approved in advance.") means what its heading
    says: the answer names it, or the item reads as the opposite. So does an answer opening
    "It includes …" (a user pass: "It" named nothing)."""
    chunk = first.hit.chunk
    heading = _ENUMERATOR.sub("", chunk.heading_path[-1]) if chunk.heading_path else ""
    if refers_back(first) and len(chunk.heading_path) >= 2:
        return f"{heading}: {answer}"
    lines = [line for line in chunk.text.splitlines() if line.strip()]
    if chunk.kind != "list" or len(chunk.heading_path) < 2 or not lines:
        return answer
    if not ITEM_LINE.match(lines[0]):
        return answer  # a lead-in sentence says what the items are
    return f"{heading}: {answer}"
