"""The excerpt under a passage a non-answer offers (``generate.ask.closest_passages``): what
the asker reads first when no answer was quoted. Not an answer: it was not held to the
answerer's bar or its checks, and the UI and the CLI say so. Text of a passage the asker may
read (retrieval kept it): sentences verbatim, a table row as its cells under their headers.

- A short passage (text, not a table, at most ``WHOLE_PASSAGE_CHARS``) is shown whole, its
  units in the document's order, the nearest one marked.
- A longer one shows up to ``EXCERPT_UNITS`` of its units nearest the question, best first,
  each cut at a word after ``EXCERPT_CHARS``, adding units while the excerpt stays within
  ``EXCERPT_BUDGET``; then the unit that follows the nearest one in the document, right
  after it, when the excerpt stays within ``WHOLE_PASSAGE_CHARS``; a nested list item
  comes after the item it belongs to.

Why (chosen on the dev splits of the transfer report, ``evals/reports/transfer.md``, change
set 5): the sentence nearest a question often names the rule's subject and the next one
states it ("… may appeal the flag …" then "Please contact Support."); and a passage of
four or five sentences lost its answer to the three-unit cut. Units are joined by an
ellipsis where the passage has a gap between them, by a space where they are adjacent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docent.contracts import Hit
from docent.list_items import item_parents
from generate.text import collapse_space

EXCERPT_UNITS = 3
EXCERPT_CHARS = 400
EXCERPT_BUDGET = 600
WHOLE_PASSAGE_CHARS = 800
GAP = " … "


@dataclass(frozen=True)
class Excerpt:
    """The nearest unit (as it reads in ``text``, to mark) and the excerpt's text."""

    nearest: str
    text: str


def excerpt(hit: Hit, nearest: Sequence[str] = ()) -> Excerpt | None:
    """The excerpt of ``hit``'s passage: ``nearest`` is its units the answerer scored, best
    first (as a person reads them); without them, the reranker's order of its units."""
    ranked = [u for u in (collapse_space(t) for t in nearest) if u] or _reranked_units(hit)
    if not ranked:
        return None
    document = [collapse_space(u) for u in hit.chunk.sentences]
    if _shown_whole(hit, document, ranked[0]):
        return Excerpt(ranked[0], " ".join(document))
    units = _nearest_units(ranked)
    shown_first = units[0].removesuffix(" …")  # as it reads in the excerpt
    following = _following(document, ranked, units)
    if following is not None:
        units[0] = f"{units[0]} {following}"
    return Excerpt(shown_first, _joined(_under_its_item(hit, ranked[0], units)))


def _under_its_item(hit: Hit, nearest: str, units: list[str]) -> list[str]:
    """A nested list item is shown under the item it belongs to, as a table row is under
    its header: "Doing necessary benefits enrollment" means nothing without "18F Hiring /
    Onboarding - #1241: …" above it (within ``WHOLE_PASSAGE_CHARS``)."""
    parents = item_parents(hit.chunk.text).get(nearest)
    if not parents:
        return units
    parent = _cut(parents[-1])
    # The item's own sentences are in it already ("… Those include:" of its later paragraph).
    rest = [units[0], *(u for u in units[1:] if u.removesuffix(" …") not in parent)]
    if len(parent) + sum(len(u) for u in rest) > WHOLE_PASSAGE_CHARS:
        return units
    return [parent, *rest]


def _shown_whole(hit: Hit, document: Sequence[str], best: str) -> bool:
    return (
        hit.chunk.kind != "table"
        and best in document
        and len(hit.chunk.text) <= WHOLE_PASSAGE_CHARS
    )


def _nearest_units(ranked: Sequence[str]) -> list[str]:
    units: list[str] = []
    for text in ranked[:EXCERPT_UNITS]:
        cut = _cut(text)
        if units and sum(len(u) for u in units) + len(cut) > EXCERPT_BUDGET:
            break
        units.append(cut)
    return units


def _following(document: Sequence[str], ranked: Sequence[str], units: Sequence[str]) -> str | None:
    """The unit after the nearest one in the document, when the nearest is shown uncut, the
    next is not shown already, and both fit within ``WHOLE_PASSAGE_CHARS`` with the rest."""
    best = ranked[0]
    if units[0] != best or best not in document:
        return None
    at = document.index(best) + 1
    if at >= len(document) or document[at] in ranked[: len(units)]:
        return None
    after = document[at]
    if len(after) > EXCERPT_CHARS or sum(len(u) for u in units) + len(after) > WHOLE_PASSAGE_CHARS:
        return None
    return after


def _reranked_units(hit: Hit) -> list[str]:
    """A passage the answerer did not score (nothing cleared the relevance bar, or a tier
    it did not reach): its units by the reranker's score, else its closest sentence."""
    units = hit.chunk.sentences
    if hit.unit_scores and len(hit.unit_scores) == len(units):
        order = sorted(range(len(units)), key=lambda i: -hit.unit_scores[i])
        return [u for u in (collapse_space(units[i]) for i in order) if u]
    best = collapse_space(hit.best_sentence or "")
    return [best] if best else []


def _cut(text: str) -> str:
    if len(text) <= EXCERPT_CHARS:
        return text
    return text[:EXCERPT_CHARS].rsplit(" ", 1)[0] + " …"


def _joined(units: Sequence[str]) -> str:
    """Units joined by an ellipsis (a gap in the passage); a cut unit's own trailing
    ellipsis is not doubled."""
    return GAP.join([*(u.removesuffix(" …") for u in units[:-1]), units[-1]])
