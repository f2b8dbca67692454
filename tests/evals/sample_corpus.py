"""The sample corpus (`examples/policies/`) read for checking: each document's heading
paths and section text (from the file itself for Markdown, HTML and text; from its Markdown
source under `examples/sources/` for DOCX and PDF), its raw text, and its manifest row.
Shared by the cases-file and corpus tests; not a test module."""

from __future__ import annotations

import csv
import re
from datetime import date
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

from evals.cases import normalise

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "examples" / "policies"
SOURCES = ROOT / "examples" / "sources"

# The corpus's pending document is dated 2027-06-01; statuses are stated as of this day so the
# test does not change its mind when the wall clock passes that date.
CORPUS_AS_OF = date(2026, 11, 29)

Section = tuple[tuple[str, ...], str]  # (heading path, text directly under it)


def markdown_sections(text: str) -> list[Section]:
    """Heading paths and body text of a Markdown document (front matter dropped)."""
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    sections: list[Section] = []
    path: list[str] = []
    body: list[str] = []
    for line in text.splitlines():
        heading = re.match(r"^(#{1,6}) (.+?)\s*$", line)
        if heading:
            if path:
                sections.append((tuple(path), "\n".join(body)))
            level = len(heading.group(1))
            path = path[: level - 1] + [heading.group(2)]
            body = []
        else:
            body.append(line)
    if path:
        sections.append((tuple(path), "\n".join(body)))
    return sections


class _HtmlSections(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[Section] = []
        self.path: list[str] = []
        self.body: list[str] = []
        self.heading_level = 0
        self.heading_text: list[str] = []
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self.heading_level = int(tag[1])
            self.heading_text = []
        elif tag == "title":
            self.in_title = True
        elif tag in {"td", "th", "li", "p", "tr"}:
            self.body.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif self.heading_level and tag == f"h{self.heading_level}":
            self.flush()
            level = self.heading_level
            self.path = self.path[: level - 1] + [" ".join("".join(self.heading_text).split())]
            self.heading_level = 0

    def handle_data(self, data: str) -> None:
        if self.in_title:
            return
        (self.heading_text if self.heading_level else self.body).append(data)

    def flush(self) -> None:
        if self.path:
            self.sections.append((tuple(self.path), "".join(self.body)))
        self.body = []


def text_sections(text: str) -> list[Section]:
    """A plain-text document: its first line is the title; a one-line paragraph without a
    full stop is a section heading under it."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    title, sections = blocks[0], []
    path, body = (title,), []
    for block in blocks[1:]:
        if "\n" not in block and not block.endswith((".", ":", ";")):
            sections.append((path, "\n".join(body)))
            path, body = (title, block), []
        else:
            body.append(block)
    sections.append((path, "\n".join(body)))
    return sections


def html_sections(text: str) -> list[Section]:
    parser = _HtmlSections()
    parser.feed(text)
    parser.flush()
    return parser.sections


@cache
def sections_of(source: str) -> tuple[Section, ...]:
    suffix = Path(source).suffix
    if suffix == ".md":
        return tuple(markdown_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix == ".html":
        return tuple(html_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix == ".txt":
        return tuple(text_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix in {".docx", ".pdf"}:
        text = (SOURCES / f"{Path(source).stem}.md").read_text(encoding="utf-8")
        return tuple(markdown_sections(text))
    raise AssertionError(f"{source}: no heading structure to check a gold path against")


def section_text(source: str, path: tuple[str, ...]) -> str | None:
    """Text of a section and all its subsections, or None when the path does not exist."""
    found = [text for p, text in sections_of(source) if p[: len(path)] == path]
    return "\n".join(found) if found else None


def whole_text(source: str) -> str:
    return "\n".join(text for _, text in sections_of(source))


def raw_text(path: Path) -> str:
    """All text of a corpus file as a reader would extract it (for leak checks)."""
    if path.suffix == ".docx":
        import docx

        document = docx.Document(str(path))
        cells = [c.text for t in document.tables for r in t.rows for c in r.cells]
        return "\n".join([p.text for p in document.paragraphs] + cells)
    if path.suffix == ".pdf":
        import pdfplumber

        with pdfplumber.open(path) as pdf:
            return "\n".join(page.extract_text() or "" for page in pdf.pages)
    return path.read_text(encoding="utf-8")


@cache
def manifest() -> dict[str, dict[str, str]]:
    with (POLICIES / "MANIFEST.csv").open(encoding="utf-8", newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def status_of(row: dict[str, str]) -> str:
    if row["superseded_by"]:
        return "superseded"
    if date.fromisoformat(row["effective_date"]) > CORPUS_AS_OF:
        return "pending"
    return "current"


def folded(text: str) -> str:
    return normalise(text)
