"""Markdown pipe tables inside a block: rows with their header, a row read as
"Header: value; …", and the row a superlative picks ("the fastest charger" → the row with
the largest value in the column that speaks of speed or power)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation

from generate.question_types import Superlative
from generate.text import content_words

_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


def table_rows(text: str) -> tuple[str, list[str]] | None:
    """``(header, rows)`` of a Markdown pipe table, or None when ``text`` is not one. The
    header keeps its rule line (``|---|---|``) when the table has one, so a quote of header
    and rows is still a Markdown table."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    piped = [line for line in lines if is_table_line(line)]
    if len(piped) < 2:
        return None
    body = [line for line in piped if not is_rule_line(line)]
    rules = [line for line in piped if is_rule_line(line)]
    if len(body) < 2:
        return None
    header = f"{body[0]}\n{rules[0]}" if rules else body[0]
    return header, body[1:]


def cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def row_reading(header: str, row: str) -> str:
    """A row as "Header: value; …" (empty cells left out)."""
    names = cells(header.splitlines()[0])
    values = cells(row)
    return "; ".join(f"{n}: {v}" for n, v in zip(names, values, strict=False) if v)


def is_rule_line(line: str) -> bool:
    """A table's rule line (``|---|:---:|``)."""
    return _TABLE_RULE.match(line.strip()) is not None


def is_table_line(line: str) -> bool:
    stripped = line.strip()
    return stripped.startswith("|") or stripped.count("|") >= 2


def table_view(text: str) -> dict[str, list[str] | list[list[str]]] | None:
    """A Markdown pipe table as ``{"header": cells, "rows": [cells, …]}`` (rule line
    dropped), for showing it as a table; None when ``text`` is not one."""
    parsed = table_rows(text)
    if parsed is None or any(not is_table_line(line) for line in text.strip().splitlines()):
        return None
    header, rows = parsed
    return {"header": cells(header.splitlines()[0]), "rows": [cells(r) for r in rows]}


def cell_value(cell: str) -> Decimal | None:
    """The first number in a cell ("50 kW" → 50, "€1,200" → 1200), or None."""
    match = _NUMBER.search(cell)
    return _decimal(match.group(0)) if match else None


def asked_value(cell: str, asked: frozenset[str]) -> Decimal | None:
    """The number just before a word the question asks about ("16-inch laptop, 32 GB
    memory" → 32 for "the most memory"), within its own comma- or semicolon-separated part
    of the cell; None when no number there is followed by such a word."""
    for match in _NUMBER.finditer(cell):
        part = re.split(r"[,;]", cell[match.end() :], maxsplit=1)[0]
        if asked & content_words(" ".join(part.split()[:2])):  # the unit, then the word
            return _decimal(match.group(0))
    return None


def _decimal(number: str) -> Decimal | None:
    try:
        return Decimal(number.replace(",", ""))
    except InvalidOperation:
        return None


_LABEL = re.compile(r"^[A-Za-z]+\s+\d+$")  # "Tier 1", "Level 2": a category, not a measure


def _measure(cell: str) -> bool:
    return cell_value(cell) is not None and not _LABEL.match(cell.strip())


def superlative_column(
    header: str, rows: Sequence[str], superlative: Superlative, question: str
) -> int | None:
    """The column a superlative ranks by: a numeric column whose header holds one of the
    superlative's hint words, else one sharing a word with the question, else the only
    numeric column. None when no column qualifies or the choice is not clear."""
    names = cells(header.splitlines()[0])
    numeric = [
        i
        for i in range(len(names))
        if sum(_measure(cells(r)[i]) for r in rows if i < len(cells(r))) >= max(2, len(rows) // 2)
    ]
    if not numeric:
        return None
    hinted = [i for i in numeric if any(h in names[i].lower() for h in superlative.hints)]
    if len(hinted) >= 1:
        return hinted[0]
    asked = content_words(question)
    shared = [i for i in numeric if content_words(names[i]) & asked]
    if len(shared) == 1:
        return shared[0]
    return numeric[0] if len(numeric) == 1 else None


def superlative_row(
    header: str, rows: Sequence[str], superlative: Superlative, question: str
) -> int | None:
    """The index of the row a superlative picks, or None when no column qualifies or two
    rows tie at the top."""
    column = superlative_column(header, rows, superlative, question)
    if column is None:
        return None
    # The column's own name ("Laptop") does not say which of a cell's figures is asked for.
    name = cells(header.splitlines()[0])[column]
    asked = frozenset(content_words(question) - content_words(name))
    texts = [cells(r)[column] if column < len(cells(r)) else "" for r in rows]
    # Once a cell gives the asked figure ("32 GB memory"), every row is ranked by that
    # figure alone: a row without it is not compared on another one ("64-inch display").
    by_word = [asked_value(t, asked) for t in texts]
    chosen = by_word if any(v is not None for v in by_word) else [cell_value(t) for t in texts]
    values = [(v, i) for i, v in enumerate(chosen)]
    present = [(v, i) for v, i in values if v is not None]
    if not present:
        return None
    pick = max if superlative.direction == "max" else min
    best = pick(v for v, _ in present)
    winners = [i for v, i in present if v == best]
    return winners[0] if len(winners) == 1 else None
