"""PDF → elements with pdfplumber, offline.

unstructured's offline ("fast") PDF path gives no heading depth and spills tables as loose
text, and its table model needs hub weights. So PDFs are read here from the page geometry:

- tables: ruled tables with pdfplumber's ``find_tables``, unruled ones from column
  alignment (``pdf_layout``); each kept whole (a table continued on the next page is
  joined, its repeated header dropped) and its region left out of the body text;
- headings: lines set larger than the body size, or bold at body size when the PDF outline
  lists them (or, without an outline, when they stand alone); depth = rank of the style;
- list items from their markers, paragraphs from vertical gaps; reading order is page
  order, then top to bottom.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pdfplumber
from pdfminer.pdfdocument import PDFEncryptionError, PDFPasswordIncorrect

from ingest.elements import Element, ElementKind, ParsedDocument
from ingest.errors import CorruptFile, EncryptedFile
from ingest.front_matter import known_properties
from ingest.pdf_layout import LIST_MARKER, Line, Word, find_aligned_tables, words_to_lines
from ingest.tables import rows_to_html

_SENTENCE_END = re.compile(r"[.!?:;,]$")
_CID = re.compile(r"\(cid:\d+\)")
_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—]?\s*\d{1,4}\s*(?:(?:of|/)\s*\d{1,4})?\s*[-–—]?$", re.I
)


@dataclass(frozen=True)
class _Table:
    page: int
    top: float
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class _Block:
    """A positioned piece of a page: a line of text or a table."""

    page: int
    top: float
    line: Line | None = None
    table: _Table | None = None


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def _outline_titles(pdf: Any) -> set[str]:
    try:
        return {_norm(str(entry[1])) for entry in pdf.doc.get_outlines() if entry[1]}
    except Exception:  # noqa: BLE001 - no outline, or one pdfminer cannot read: not an error
        return set()


def _metadata(pdf: Any) -> dict[str, str]:
    raw: dict[str, object] = {}
    for key, value in (pdf.metadata or {}).items():
        if isinstance(value, bytes):
            value = value.decode("utf-8", "replace")
        raw[str(key)] = str(value)
    return known_properties(raw)


def _inside(word: dict[str, Any], boxes: Sequence[tuple[float, float, float, float]]) -> bool:
    cx = (float(word["x0"]) + float(word["x1"])) / 2
    cy = (float(word["top"]) + float(word["bottom"])) / 2
    return any(x0 <= cx <= x1 and top <= cy <= bottom for x0, top, x1, bottom in boxes)


def _page_blocks(page: Any, number: int) -> list[_Block]:
    ruled: list[tuple[float, tuple[tuple[str, ...], ...]]] = []
    boxes: list[tuple[float, float, float, float]] = []
    for found in page.find_tables():
        rows = [tuple(" ".join((c or "").split()) for c in r) for r in found.extract()]
        rows = [r for r in rows if any(r)]
        if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
            ruled.append((float(found.bbox[1]), tuple(rows)))
            boxes.append(tuple(float(v) for v in found.bbox))  # type: ignore[arg-type]
    words = [
        Word.from_plumber(w)
        for w in page.extract_words(extra_attrs=["size", "fontname"])
        if not _inside(w, boxes)
    ]
    lines = words_to_lines(words, number)
    blocks = [_Block(number, top, table=_Table(number, top, rows)) for top, rows in ruled]
    taken: set[int] = set()
    for aligned in find_aligned_tables(lines):
        top = lines[aligned.start].top
        blocks.append(_Block(number, top, table=_Table(number, top, aligned.rows)))
        taken.update(range(aligned.start, aligned.end))
    blocks += [_Block(number, ln.top, line=ln) for i, ln in enumerate(lines) if i not in taken]
    blocks.sort(key=lambda b: b.top)
    return blocks


def _drop_running_lines(pages: list[list[_Block]], heights: list[float]) -> list[list[_Block]]:
    """Page numbers and running headers/footers (same text in the top or bottom margin of
    several pages) are furniture, not content."""

    def in_margin(b: _Block, height: float) -> bool:
        return b.top < height * 0.07 or b.top > height * 0.92

    seen: dict[str, int] = {}
    for blocks, height in zip(pages, heights, strict=True):
        for b in blocks:
            if b.line and in_margin(b, height):
                key = re.sub(r"\d+", "#", b.line.text)
                seen[key] = seen.get(key, 0) + 1
    out: list[list[_Block]] = []
    for blocks, height in zip(pages, heights, strict=True):
        keep = []
        for b in blocks:
            if b.line and in_margin(b, height):
                text = b.line.text
                if _PAGE_NUMBER.match(text) or (
                    len(pages) > 1 and seen[re.sub(r"\d+", "#", text)] > 1
                ):
                    continue
            keep.append(b)
        out.append(keep)
    return out


def _join_tables(blocks: list[_Block]) -> list[_Block]:
    """A table that ends one page, followed at the top of the next page by a table of the
    same width, is one table (its repeated header row dropped). Runs after page furniture
    is removed, so a page number between the two does not keep them apart."""
    out: list[_Block] = []
    for b in blocks:
        prev = out[-1].table if out else None
        t = b.table
        if (
            prev is not None
            and t is not None
            and t.page == prev.page + 1
            and len(t.rows[0]) == len(prev.rows[0])
        ):
            repeated = _norm(" ".join(t.rows[0])) == _norm(" ".join(prev.rows[0]))
            rows = prev.rows + (t.rows[1:] if repeated else t.rows)
            out[-1] = _Block(prev.page, prev.top, table=_Table(prev.page, prev.top, rows))
            continue
        out.append(b)
    return out


def _body_size(lines: Sequence[Line]) -> float:
    weights: dict[float, int] = {}
    for ln in lines:
        weights[ln.size] = weights.get(ln.size, 0) + len(ln.text)
    return max(weights, key=lambda k: weights[k]) if weights else 0.0


def _heading_style(
    line: Line, prev: Line | None, nxt: Line | None, body: float, outline: set[str]
) -> tuple[float, bool] | None:
    text = line.text
    if len(text) > 200 or not re.search(r"[A-Za-z]", text):
        return None
    if line.size >= body * 1.08:
        return (line.size, line.bold)
    if not line.bold or abs(line.size - body) > 0.6 or len(text.split()) > 15:
        return None
    if outline:
        # A heading wrapped onto two lines shows as two pieces of one outline title.
        return (line.size, True) if any(_norm(text) in t for t in outline) else None
    alone = (prev is None or line.top - prev.bottom > 0.6 * body) and (
        nxt is None or nxt.top - line.bottom > 0.6 * body
    )
    return (line.size, True) if alone and not _SENTENCE_END.search(text) else None


def _glue(text: str, more: str) -> str:
    return text[:-1] + "-" + more if text.endswith("-") else f"{text} {more}"


def _elements(blocks: Sequence[_Block], outline: set[str]) -> list[Element]:
    lines = [b.line for b in blocks if b.line]
    body = _body_size(lines)
    styles: dict[int, tuple[float, bool]] = {}
    for i, ln in enumerate(lines):
        style = _heading_style(
            ln,
            lines[i - 1] if i else None,
            lines[i + 1] if i + 1 < len(lines) else None,
            body,
            outline,
        )
        if style:
            styles[id(ln)] = style
    ranked = sorted(set(styles.values()), key=lambda s: (-s[0], not s[1]))
    list_x = min((ln.x0 for ln in lines if _marker(ln)), default=0.0)

    out: list[tuple[ElementKind, str, int, str | None, Line | None]] = []
    for block in blocks:
        if block.table:
            rows = block.table.rows
            out.append(("table", " ".join(" ".join(r) for r in rows), 0, rows_to_html(rows), None))
            continue
        line = block.line
        assert line is not None
        style = styles.get(id(line))
        kind, text, depth, _, prev = out[-1] if out else ("text", "", 0, None, None)
        gap = line.top - prev.bottom if prev is not None and prev.page == line.page else None
        if style:
            wrapped = kind == "title" and prev is not None and styles.get(id(prev)) == style
            if wrapped and gap is not None and gap < 0.8 * line.size:
                out[-1] = ("title", _glue(text, line.text), depth, None, line)  # wrapped heading
            else:
                out.append(("title", line.text, ranked.index(style), None, line))
            continue
        marker = _marker(line)
        if marker:
            level = max(0, round((line.x0 - list_x) / 18))
            out.append(("list_item", line.text[len(marker) :].strip(), level, None, line))
            continue
        continues = (
            prev is not None
            and kind in ("text", "list_item")
            and (
                (gap is not None and gap < 0.6 * line.size)
                or (prev.page + 1 == line.page and not re.search(r"[.!?:]$", text))
            )
        )
        if continues and kind == "list_item" and prev is not None and line.x0 <= list_x + 1:
            continues = False  # back at the list's own margin without a marker: body text
        if continues and prev is not None:
            out[-1] = (kind, _glue(text, line.text), depth, None, line)
        else:
            out.append(("text", line.text, 0, None, line))
    cleaned = [(k, " ".join(_CID.sub(" ", t).split()), d, h) for k, t, d, h, _ in out]
    return [Element(kind=k, text=t, depth=d, html=h) for k, t, d, h in cleaned if t]


def _marker(line: Line) -> str | None:
    first = line.words[0].text
    if LIST_MARKER.match(first) and len(line.words) > 1:
        return first
    return None


def partition_pdf(path: Path, source: str) -> ParsedDocument:
    try:
        with pdfplumber.open(path) as pdf:
            properties = _metadata(pdf)
            outline = _outline_titles(pdf)
            pages = [_page_blocks(page, n) for n, page in enumerate(pdf.pages, start=1)]
            heights = [float(page.height) for page in pdf.pages]
    except Exception as exc:  # noqa: BLE001 - pdfminer raises many unrelated types on bad bytes
        # pdfplumber wraps pdfminer's error; look at what it wraps.
        inner = exc.args[0] if exc.args and isinstance(exc.args[0], Exception) else exc
        if isinstance(inner, PDFPasswordIncorrect | PDFEncryptionError):
            raise EncryptedFile(
                source, "the PDF is encrypted and needs a password to open"
            ) from exc
        # Only the error's type: its message may quote bytes of a document the reader of
        # this error is not cleared to see.
        raise CorruptFile(
            source, f"not a readable PDF; its structure is damaged ({type(inner).__name__})"
        ) from exc
    blocks = _join_tables([b for page in _drop_running_lines(pages, heights) for b in page])
    return ParsedDocument(elements=tuple(_elements(blocks, outline)), properties=properties)
