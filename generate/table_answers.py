"""Answers from a table: the row a question names, or the row a superlative or a
comparison picks ("the fastest charger", "the bigger of Lisbon and Porto"), quoted with the
table's header."""

from __future__ import annotations

from collections.abc import Sequence

from docent.contracts import Hit, Outcome
from generate.bands import band_pick
from generate.outcomes import answered
from generate.question_types import Expectation, Superlative
from generate.quoting import ambiguous
from generate.tables import cells, row_reading, superlative_row
from generate.text import content_words
from generate.unit_scoring import Scored


def table_answer(
    best: Scored,
    block: list[Scored],
    hits: Sequence[Hit],
    expectation: Expectation,
    question: str,
) -> Outcome:
    """The answer when the best unit is a table row: the row a superlative or comparison
    picks, else the rows matching the question as well as the best one does (or, when the
    question names none of them, a clarifying question)."""
    rows = [s for s in block if s.unit.header is not None]
    header = best.unit.header or ""
    cid = best.unit.hit.chunk.chunk_id
    if expectation.superlative is not None:
        quote = superlative_quote(rows, header, expectation.superlative, question)
        if quote is not None:
            return answered(f"{quote} [{cid}]", [(cid, quote)], hits)
    named, ties = _asked_rows(best, rows, question)
    if not named and len(ties) >= 2:
        return which_row(best, rows)
    quote = "\n".join([header, *(s.unit.text for s in named or [best])])
    return answered(f"{quote} [{cid}]", [(cid, quote)], hits)


def which_row(best: Scored, block: Sequence[Scored]) -> Outcome:
    """A clarifying question among the first three rows of ``best``'s table that match the
    question alike."""
    _, ties = _matching_rows(best, [s for s in block if s.unit.header is not None])
    header = best.unit.header or ""
    readings = [row_reading(header, s.unit.text) for s in ties[:3]]
    return ambiguous(readings, [cells(s.unit.text)[0] for s in ties[:3]])


MAX_LISTED_ROWS = 12


def rows_asked(best: Scored, block: Sequence[Scored], question: str) -> list[Scored] | None:
    """For a past version's table ("Which plans were offered in 2024?"): the rows of
    ``best``'s table the question asks about, in table order — those it names or picks by
    a quantity, else, when it names none and several match it alike, every such row (the
    question asks for the table, not one row of it; up to ``MAX_LISTED_ROWS``); None when
    more than that many do (no quote of a part would be the answer)."""
    named, ties = _asked_rows(best, [s for s in block if s.unit.header is not None], question)
    if named:
        return named
    if len(ties) > MAX_LISTED_ROWS:
        return None
    return sorted(ties, key=lambda s: s.unit.index) if len(ties) >= 2 else [best]


def _asked_rows(
    best: Scored, rows: Sequence[Scored], question: str
) -> tuple[list[Scored], list[Scored]]:
    """``_matching_rows``, and when the question names no row, the row whose band holds a
    quantity it states ("a purchase of about €12,000" → "€5,000 to €25,000";
    ``generate.bands``)."""
    named, ties = _matching_rows(best, rows)
    if not named and (picked := band_pick(question, rows)) is not None:
        return [picked], ties
    return named, ties


def _matching_rows(best: Scored, rows: Sequence[Scored]) -> tuple[list[Scored], list[Scored]]:
    """``(named, ties)``: ties = the rows matching the question exactly as well as the best
    row does, on words of their own cells (not the header's) and in all; named = up to two
    of them in table order when those words are any (the question picked them), else none
    (when several tie, the question did not pick a row); but when none of the best row's
    words is its own alone, the rows whose label (first cell) the question names."""
    header_words = content_words(best.unit.header or "")
    specific = best.own - header_words
    ties = [s for s in rows if s.own - header_words == specific and s.own == best.own]
    named = sorted(ties[:2], key=lambda s: s.unit.index) if specific else []
    others = [s.own for s in rows if s is not best]
    if not any(all(w not in own for own in others) for w in specific):
        # The best row matched only on words other rows share ("monthly price" against
        # "€49/month" and "€179/month") while the question names a row by its label ("the
        # Starter plan"): that row is the one asked about.
        labelled = _label_named(rows, header_words)
        named = sorted(labelled[:2], key=lambda s: s.unit.index) if labelled else named
    return named, ties


def _label_named(rows: Sequence[Scored], header_words: set[str]) -> list[Scored]:
    """The rows whose first cell (the row's label) holds the most question words that are
    not the header's, best score first; none when no label holds one."""
    counts = [len((s.own & content_words(cells(s.unit.text)[0])) - header_words) for s in rows]
    most = max(counts, default=0)
    named = [s for s, n in zip(rows, counts, strict=True) if most and n == most]
    return sorted(named, key=lambda s: -s.score)


def superlative_table(
    best: Scored, scored: Sequence[Scored], question: str, superlative: Superlative
) -> tuple[str, list[tuple[str, str]]] | None:
    """For "which charger is the fastest": the row a superlative picks from a table of the
    best unit's document (the best unit may be prose that only mentions the chargers)."""
    source = best.unit.hit.chunk.source
    tables: dict[str, list[Scored]] = {}
    for s in scored:
        if s.unit.header is not None and s.unit.hit.chunk.source == source:
            tables.setdefault(s.unit.hit.chunk.chunk_id, []).append(s)
    for cid, rows in sorted(tables.items(), key=lambda kv: -max(s.score for s in kv[1])):
        quote = superlative_quote(rows, rows[0].unit.header or "", superlative, question)
        if quote is not None:
            return f"{quote} [{cid}]", [(cid, quote)]
    return None


def superlative_quote(
    rows: list[Scored], header: str, superlative: Superlative, question: str
) -> str | None:
    """The header and the row a superlative or comparison picks among ``rows``, or None."""
    compared = compared_rows(rows, superlative, header)
    pick = superlative_row(header, [s.unit.text for s in compared], superlative, question)
    return None if pick is None else "\n".join([header, compared[pick].unit.text])


def compared_rows(rows: list[Scored], superlative: Superlative, header: str) -> list[Scored]:
    """The rows a superlative ranks: all of them, or for a comparison ("the bigger of Lisbon
    and Porto") the rows the question names in their own cells — none unless two are."""
    if not superlative.between:
        return rows
    named = [s for s in rows if s.own - content_words(header)]
    return named if len(named) >= 2 else []
