"""What the extractive answerer points a reader at when it shows no answer: every unit it
scored, best first, as ``(chunk id, text)`` — the passages and excerpts a non-answer lists
(``generate.ask.closest_passages``). A draft the answer gate held back leads: its quoted
units are the sentences (or table rows) the answerer would have answered with, which for a
superlative over a table is a row that no unit score ranks first."""

from __future__ import annotations

from collections.abc import Sequence

from docent.contracts import Answered, Outcome
from generate.bands import band_first
from generate.lists import is_lead_in
from generate.lookups import lookup_first
from generate.tables import row_reading
from generate.text import collapse_space
from generate.unit_scoring import Scored

Pointer = tuple[str, str]  # (chunk id, a unit as a person reads it)


def pointers(
    considered: Sequence[Scored], draft: Outcome | None = None, question: str = ""
) -> tuple[Pointer, ...]:
    """The draft's quoted units first (when ``draft`` is an answer held back), then every
    unit scored, best first (in a list, the item whose band holds a quantity ``question``
    states before the rest: ``generate.bands.band_first``; of labelled rules, the one a
    table row picks for the thing it names: ``generate.lookups.lookup_first``): a block's
    first entry is what a reader of it should see first."""
    lead = quoted(considered, draft) if isinstance(draft, Answered) else []
    ranked = band_first([*lead, *sorted(considered, key=lambda s: -s.score)], question)
    ranked = lookup_first(ranked, question)
    return tuple(dict.fromkeys((s.unit.hit.chunk.chunk_id, reading(s)) for s in ranked))


def quoted(considered: Sequence[Scored], draft: Answered) -> list[Scored]:
    """The scored units the draft's first quote (its answer, not a runner-up reading) is
    made of — a quoted table's rows, a quoted list's items — the best-scoring first, a
    lead-in after its items."""
    if not draft.citations:
        return []
    first = draft.citations[0]
    quote = collapse_space(first.quote)
    found = [
        (at, s)
        for s in considered
        if s.unit.hit.chunk.chunk_id == first.id
        and (at := quote.find(collapse_space(s.unit.text))) >= 0
    ]
    # A lead-in ("… based on how long you've worked:") only introduces the item quoted with
    # it, which holds the answer: the item comes first. Of the rest the best-scoring leads:
    # the draft was built around it ("Is travel insurance reimbursable?" marked "Alcohol, …",
    # the first item its list's quote began with: a user pass).
    return [
        s for _, s in sorted(found, key=lambda pair: (is_lead_in(pair[1]), -pair[1].score, pair[0]))
    ]


def reading(scored: Scored) -> str:
    """A unit as a person reads it: a table row as its cells under their headers."""
    unit = scored.unit
    return row_reading(unit.header, unit.text) if unit.header else unit.text
