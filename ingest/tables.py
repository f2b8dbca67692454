"""Tables as rows of cells: read from the HTML partitioning gives, written as HTML (PDF
tables), as a Markdown pipe table (display text) and as one "Header: value; …" line per row
(the units the reranker and the extractive answerer quote). The first row is the header."""

from __future__ import annotations

import html as html_lib
import re
from collections.abc import Sequence

import lxml.html

_SPACE = re.compile(r"\s+")

Rows = list[list[str]]


def _cell_text(cell: lxml.html.HtmlElement) -> str:
    # <br> inside a cell is a soft line break: keep the words apart.
    for br in cell.iter("br"):
        br.tail = " " + (br.tail or "")
    return _SPACE.sub(" ", cell.text_content()).strip()


def rows_from_html(table_html: str) -> Rows:
    """Rows of cell texts, header row first; ragged rows are padded to the widest row."""
    if not table_html.strip():
        return []
    root = lxml.html.fragment_fromstring(table_html, create_parent="div")
    rows: Rows = []
    for tr in root.iter("tr"):
        cells = [_cell_text(c) for c in tr if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if any(cells):
            rows.append(cells)
    width = max((len(r) for r in rows), default=0)
    return [r + [""] * (width - len(r)) for r in rows]


def rows_to_html(rows: Sequence[Sequence[str]]) -> str:
    """A plain HTML table whose first row is the header (<th>)."""
    if not rows:
        return "<table></table>"
    head = "".join(f"<th>{html_lib.escape(c)}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html_lib.escape(c)}</td>" for c in row) + "</tr>"
        for row in rows[1:]
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _pipe_cell(text: str) -> str:
    return _SPACE.sub(" ", text).replace("|", "\\|").strip()


def rows_to_markdown(rows: Sequence[Sequence[str]]) -> str:
    """A Markdown pipe table: header row, separator, body rows."""
    if not rows:
        return ""
    width = max(len(r) for r in rows)

    def line(row: Sequence[str]) -> str:
        cells = [_pipe_cell(c) for c in row] + [""] * (width - len(row))
        return "| " + " | ".join(cells) + " |"

    separator = "| " + " | ".join(["---"] * width) + " |"
    return "\n".join([line(rows[0]), separator, *(line(r) for r in rows[1:])])


def rows_from_markdown(table: str) -> Rows:
    """The inverse of ``rows_to_markdown`` (the separator line is dropped)."""
    rows: Rows = []
    for raw in table.strip().splitlines():
        line = raw.strip()
        if not line.startswith("|"):
            continue
        body = line[1:-1] if line.endswith("|") and not line.endswith("\\|") else line[1:]
        cells = [c.replace("\\|", "|").strip() for c in re.split(r"(?<!\\)\|", body)]
        if all(re.fullmatch(r":?-{3,}:?", c) for c in cells if c) and any(cells):
            continue
        rows.append(cells)
    return rows


def row_units(rows: Sequence[Sequence[str]]) -> list[str]:
    """One "Header: value; Header: value" string per body row (empty cells left out; a
    cell under an empty header stands alone, as a row label). A header-only table gives
    its header cells joined."""
    if not rows:
        return []
    header = [_SPACE.sub(" ", h).strip() for h in rows[0]]
    if len(rows) == 1:
        return ["; ".join(h for h in header if h)]
    units: list[str] = []
    for row in rows[1:]:
        parts: list[str] = []
        for i, value in enumerate(row):
            value = _SPACE.sub(" ", value).strip()
            if not value:
                continue
            name = header[i] if i < len(header) else ""
            parts.append(f"{name}: {value}" if name else value)
        if parts:
            units.append("; ".join(parts))
    return units
