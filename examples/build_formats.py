"""Build the sample corpus's DOCX and PDF documents from their Markdown sources.

The sources in ``examples/sources/*.md`` are the text of record: the eval-case checks read
them, and this script renders them into ``examples/policies/`` as real Word and PDF files
(Word heading styles and a real table; PDF title/heading font sizes and a ruled table).
Output is deterministic: fixed document dates, fixed ZIP timestamps, reportlab's
invariant mode. Run it after editing a source and commit both:

    python examples/build_formats.py
"""

from __future__ import annotations

import io
import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "sources"
POLICIES = HERE / "policies"

# source stem -> (output format, author shown in the document properties)
DOCUMENTS: dict[str, tuple[str, str]] = {
    "it-equipment": ("docx", "IT Security"),
    "whistleblowing": ("docx", "Legal"),
    "salary-bands": ("docx", "People Ops"),
    "severance": ("pdf", "People Ops"),
    "performance-reviews": ("pdf", "People Ops"),
    "health-and-safety": ("pdf", "Facilities"),
}

FIXED_TIME = datetime(2026, 1, 1, 12, 0, 0)
ZIP_TIME = (2026, 1, 1, 12, 0, 0)


@dataclass(frozen=True)
class Block:
    """One block of a source: a heading (level 1-3), a paragraph, a bullet list or a table."""

    kind: str  # "heading" | "para" | "bullets" | "table"
    level: int = 0
    text: str = ""
    items: tuple[str, ...] = ()
    rows: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


def parse_source(text: str) -> list[Block]:
    """Parse the small Markdown subset the sources use: #/##/### headings, paragraphs,
    ``- `` bullet lists and pipe tables (header row, separator row, body rows)."""
    blocks: list[Block] = []
    para: list[str] = []
    bullets: list[str] = []
    table: list[tuple[str, ...]] = []

    def flush() -> None:
        if para:
            blocks.append(Block("para", text=" ".join(para)))
            para.clear()
        if bullets:
            blocks.append(Block("bullets", items=tuple(bullets)))
            bullets.clear()
        if table:
            blocks.append(Block("table", rows=tuple(table)))
            table.clear()

    for raw in text.splitlines():
        line = raw.strip()
        heading = re.match(r"^(#{1,3}) (.+)$", line)
        if not line:
            flush()
        elif heading:
            flush()
            blocks.append(Block("heading", level=len(heading.group(1)), text=heading.group(2)))
        elif line.startswith("|"):
            cells = tuple(c.strip() for c in line.strip("|").split("|"))
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                table.append(cells)
        elif line.startswith("- "):
            bullets.append(line[2:])
        elif bullets:
            bullets[-1] += " " + line
        else:
            para.append(line)
    flush()
    return blocks


def title_of(blocks: list[Block]) -> str:
    first = blocks[0]
    if first.kind != "heading" or first.level != 1:
        raise ValueError("a source must start with one '# Title' line")
    return first.text


def build_docx(blocks: list[Block], author: str, out: Path) -> None:
    from docx import Document

    doc = Document()
    props = doc.core_properties
    props.title = title_of(blocks)
    props.author = author
    props.last_modified_by = author
    props.created = FIXED_TIME
    props.modified = FIXED_TIME
    props.revision = 1
    for block in blocks:
        if block.kind == "heading":
            doc.add_heading(block.text, level=block.level)
        elif block.kind == "para":
            doc.add_paragraph(block.text)
        elif block.kind == "bullets":
            for item in block.items:
                doc.add_paragraph(item, style="List Bullet")
        else:
            table = doc.add_table(rows=len(block.rows), cols=len(block.rows[0]))
            table.style = "Table Grid"
            for r, row in enumerate(block.rows):
                for c, value in enumerate(row):
                    cell = table.cell(r, c)
                    cell.text = value
                    if r == 0:
                        for run in cell.paragraphs[0].runs:
                            run.bold = True
    buffer = io.BytesIO()
    doc.save(buffer)
    out.write_bytes(_normalise_zip(buffer.getvalue()))


def _normalise_zip(data: bytes) -> bytes:
    """Rewrite a ZIP with fixed timestamps so the same source gives the same bytes."""
    src = zipfile.ZipFile(io.BytesIO(data))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=ZIP_TIME)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return buffer.getvalue()


def build_pdf(blocks: list[Block], author: str, out: Path) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import cm
    from reportlab.platypus import (
        ListFlowable,
        ListItem,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    title_style = ParagraphStyle(
        "DocTitle", fontName="Helvetica-Bold", fontSize=20, leading=26, spaceAfter=12
    )
    heading_styles = {
        2: ParagraphStyle(
            "H2", fontName="Helvetica-Bold", fontSize=14, leading=18, spaceBefore=10, spaceAfter=6
        ),
        3: ParagraphStyle(
            "H3", fontName="Helvetica-Bold", fontSize=12, leading=15, spaceBefore=8, spaceAfter=4
        ),
    }
    body = ParagraphStyle("Body", fontName="Helvetica", fontSize=10.5, leading=14, spaceAfter=6)
    cell = ParagraphStyle("Cell", fontName="Helvetica", fontSize=9.5, leading=12)
    head_cell = ParagraphStyle("HeadCell", parent=cell, fontName="Helvetica-Bold")

    story: list[object] = []
    for block in blocks:
        if block.kind == "heading":
            style = title_style if block.level == 1 else heading_styles[block.level]
            story.append(Paragraph(escape(block.text), style))
        elif block.kind == "para":
            story.append(Paragraph(escape(block.text), body))
        elif block.kind == "bullets":
            items = [ListItem(Paragraph(escape(i), body)) for i in block.items]
            story.append(ListFlowable(items, bulletType="bullet", start="-"))
        else:
            data = [
                [Paragraph(escape(v), head_cell if r == 0 else cell) for v in row]
                for r, row in enumerate(block.rows)
            ]
            width = (A4[0] - 4 * cm) / len(block.rows[0])
            table = Table(data, colWidths=[width] * len(block.rows[0]), repeatRows=1)
            table.setStyle(
                TableStyle(
                    [
                        ("GRID", (0, 0), (-1, -1), 0.75, colors.black),
                        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                        ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ]
                )
            )
            story.extend([table, Spacer(1, 8)])

    doc = SimpleDocTemplate(
        str(out),
        pagesize=A4,
        leftMargin=2 * cm,
        rightMargin=2 * cm,
        topMargin=2 * cm,
        bottomMargin=2 * cm,
        title=title_of(blocks),
        author=author,
        subject="Larkspur Analytics policy",
        creator="examples/build_formats.py",
        invariant=1,
    )
    doc.build(story)


def build(out_dir: Path = POLICIES) -> list[Path]:
    """Render every source into ``out_dir``; returns the files written."""
    written = []
    for stem, (fmt, author) in DOCUMENTS.items():
        blocks = parse_source((SOURCES / f"{stem}.md").read_text(encoding="utf-8"))
        out = out_dir / f"{stem}.{fmt}"
        if fmt == "docx":
            build_docx(blocks, author, out)
        else:
            build_pdf(blocks, author, out)
        written.append(out)
    return written


def main() -> None:
    for out in build():
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
