"""Page geometry for PDFs: words → lines → column segments, and tables drawn without
rules (cells aligned in columns), which pdfplumber's line-based ``find_tables`` misses.

Pure functions over small frozen values, so they are tested without a PDF.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
# "(cid:127)" is how pdfminer shows a bullet glyph the font has no Unicode mapping for.
LIST_MARKER = re.compile(r"^(?:[•◦▪▫‣⁃●○■□·*\-–—]|\(cid:\d+\)|\(?\d{1,3}[.)]|\(?[a-z][.)])$")


@dataclass(frozen=True)
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float
    bold: bool

    @staticmethod
    def from_plumber(obj: dict[str, object]) -> Word:
        return Word(
            text=str(obj["text"]),
            x0=float(obj["x0"]),  # type: ignore[arg-type]
            x1=float(obj["x1"]),  # type: ignore[arg-type]
            top=float(obj["top"]),  # type: ignore[arg-type]
            bottom=float(obj["bottom"]),  # type: ignore[arg-type]
            size=float(obj.get("size") or 0.0),  # type: ignore[arg-type]
            bold=bool(_BOLD.search(str(obj.get("fontname") or ""))),
        )


@dataclass(frozen=True)
class Segment:
    """Words on one line with no wide gap between them (a cell, or the whole line)."""

    x0: float
    text: str


@dataclass(frozen=True)
class Line:
    words: tuple[Word, ...]
    page: int

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        """The size most of the line's characters are set in."""
        weights: dict[float, int] = {}
        for w in self.words:
            key = round(w.size * 2) / 2
            weights[key] = weights.get(key, 0) + len(w.text)
        return max(weights, key=lambda k: weights[k])

    @property
    def bold(self) -> bool:
        return all(w.bold for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    def segments(self) -> list[Segment]:
        """Split where the gap between words is wider than 1.5 em. A list marker followed by
        a tab is not a column: it stays with the text after it."""
        out: list[list[Word]] = [[self.words[0]]]
        for prev, word in zip(self.words, self.words[1:], strict=False):
            gap = word.x0 - prev.x1
            lone_marker = len(out[-1]) == 1 and LIST_MARKER.match(out[-1][0].text)
            if gap > 1.5 * max(prev.size, word.size, 1.0) and not lone_marker:
                out.append([word])
            else:
                out[-1].append(word)
        return [Segment(ws[0].x0, " ".join(w.text for w in ws)) for ws in out]


def words_to_lines(words: Sequence[Word], page: int) -> list[Line]:
    """Group words into lines by their top edge, each line read left to right."""
    lines: list[list[Word]] = []
    for word in sorted(words, key=lambda w: (w.top, w.x0)):
        if lines:
            current = lines[-1]
            ref = min(w.top for w in current)
            if abs(word.top - ref) <= 0.5 * max(min(w.size for w in current), 1.0):
                current.append(word)
                continue
        lines.append([word])
    return [Line(tuple(sorted(ws, key=lambda w: w.x0)), page) for ws in lines]


@dataclass(frozen=True)
class AlignedTable:
    start: int  # index of the table's first line in the page's lines
    end: int  # one past its last line
    rows: tuple[tuple[str, ...], ...]


def _column_of(x: float, columns: Sequence[float], tolerance: float) -> int | None:
    best = min(range(len(columns)), key=lambda i: abs(columns[i] - x))
    return best if abs(columns[best] - x) <= tolerance else None


def _cluster(xs: Sequence[float], tolerance: float) -> list[float]:
    clusters: list[list[float]] = []
    for x in sorted(xs):
        if clusters and x - clusters[-1][-1] <= tolerance:
            clusters[-1].append(x)
        else:
            clusters.append([x])
    return [statistics.fmean(c) for c in clusters]


def _candidate_end(lines: Sequence[Line], start: int) -> int:
    """One past the last line of the run that starts at ``start``: multi-segment lines and
    the wrapped cell lines between and after them. A line back at the left margin after a
    single-segment line ends the run (that is body text again)."""
    margin = lines[start].x0 + 2
    size = lines[start].size
    end = start + 1
    while end < len(lines):
        line, prev = lines[end], lines[end - 1]
        if line.top - prev.bottom > 1.2 * size or abs(line.size - size) > 0.6:
            break
        single = len(line.segments()) < 2
        if single and line.x0 <= margin and len(prev.segments()) < 2:
            break
        end += 1
    # Trailing lines at the left margin are the paragraph after the table, not a cell.
    while end - 1 > start and len(lines[end - 1].segments()) < 2 and lines[end - 1].x0 <= margin:
        end -= 1
    return end


def _rows(lines: Sequence[Line], columns: Sequence[float], tolerance: float) -> list[list[str]]:
    steps = [b.top - a.top for a, b in zip(lines, lines[1:], strict=False)]
    pitch = min(steps) if steps else 0.0
    # Rows padded apart from each other show as larger steps than a cell's wrapped lines.
    padded = bool(steps) and max(steps) > pitch * 1.12
    rows: list[list[str]] = []
    for i, line in enumerate(lines):
        cells = [""] * len(columns)
        first_col: int | None = None
        for seg in line.segments():
            col = _column_of(seg.x0, columns, tolerance)
            col = 0 if col is None else col
            first_col = col if first_col is None else first_col
            cells[col] = (cells[col] + " " + seg.text).strip()
        new_row = i == 0 or (steps[i - 1] > pitch * 1.12 if padded else first_col == 0)
        if new_row:
            rows.append(cells)
        else:
            for c, text in enumerate(cells):
                if text:
                    joined = rows[-1][c]
                    glue = "" if joined.endswith("-") else " "
                    rows[-1][c] = (joined + glue + text).strip()
    return rows


def find_aligned_tables(lines: Sequence[Line]) -> list[AlignedTable]:
    """Tables set as aligned columns: a run of at least two lines with two or more
    column segments each, whose segments start at shared x positions."""
    tables: list[AlignedTable] = []
    i = 0
    while i < len(lines):
        if len(lines[i].segments()) < 2:
            i += 1
            continue
        end = _candidate_end(lines, i)
        run = lines[i:end]
        multi = [ln for ln in run if len(ln.segments()) >= 2]
        if len(multi) < 2:
            i += 1
            continue
        tolerance = 0.4 * lines[i].size
        columns = _cluster([s.x0 for ln in multi for s in ln.segments()], tolerance)
        aligned = all(
            _column_of(s.x0, columns, tolerance) is not None for ln in run for s in ln.segments()
        )
        if len(columns) < 2 or not aligned:
            i += 1
            continue
        rows = _rows(run, columns, tolerance)
        if len(rows) >= 2:
            tables.append(AlignedTable(i, end, tuple(tuple(r) for r in rows)))
            i = end
        else:
            i += 1
    return tables
