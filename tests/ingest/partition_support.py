"""Builders for small real files (text, DOCX, PDF) used by the partition tests."""

from __future__ import annotations

import zipfile
from pathlib import Path

from ingest.elements import Element
from ingest.partition import partition_file

CUSTOM_PROPS = (
    '<?xml version="1.0" encoding="UTF-8"?>'
    '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties"'
    ' xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">'
    '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="AccessLevel">'
    "<vt:lpwstr>confidential</vt:lpwstr></property>"
    '<property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="3" name="Owner">'
    "<vt:lpwstr>People Ops</vt:lpwstr></property>"
    "</Properties>"
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def parsed(tmp_path: Path, name: str, text: str) -> tuple[Element, ...]:
    """The elements of ``text`` written to a file ``name`` and partitioned."""
    return partition_file(write(tmp_path, name, text), name).elements


def build_docx(path: Path, *, with_custom_properties: bool = False) -> Path:
    """Title style, Heading 1/2, paragraphs, a bulleted list and a 3x6 table."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Equipment Policy"
    document.add_paragraph("Equipment Policy", style="Title")
    document.add_paragraph("Laptops are issued on the first day.")
    document.add_heading("Standard kit", level=1)
    document.add_paragraph("Every role gets the kit in the table below.")
    table = document.add_table(rows=1, cols=3)
    for cell, text in zip(table.rows[0].cells, ("Role", "Laptop", "Monitor"), strict=True):
        cell.text = text
    for role, laptop, monitor in [
        ("Engineer", "16-inch, 32 GB", "Two 27-inch"),
        ("Designer", "16-inch, 32 GB", "One 32-inch"),
        ("Sales", "14-inch, 16 GB", "One 24-inch"),
        ("Support", "14-inch, 16 GB", "One 27-inch"),
        ("Finance", "14-inch, 16 GB", "One 24-inch"),
    ]:
        cells = table.add_row().cells
        cells[0].text, cells[1].text, cells[2].text = role, laptop, monitor
    document.add_heading("Returns", level=2)
    document.add_paragraph("Return the laptop within 5 days of leaving.", style="List Bullet")
    document.add_paragraph("Wipe nothing yourself; IT does it.", style="List Bullet")
    document.save(str(path))
    if with_custom_properties:
        with zipfile.ZipFile(path, "a") as package:
            package.writestr("docProps/custom.xml", CUSTOM_PROPS)
    return path


def build_pdf(path: Path) -> Path:
    """Two pages: an 18 pt title, 14 pt headings, a bold 11 pt subheading, body text, a
    bulleted list, an unruled column-aligned table that continues onto page 2 with its
    header repeated, a ruled table, and a page number in every footer."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    pdf = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    pdf.setTitle("Office Handbook")
    y = height - 72

    def text(s: str, font: str = "Helvetica", size: float = 11, x: float = 72) -> None:
        nonlocal y
        pdf.setFont(font, size)
        pdf.drawString(x, y, s)
        y -= size * 1.25

    def gap(points: float) -> None:
        nonlocal y
        y -= points

    def footer(n: int) -> None:
        pdf.setFont("Helvetica", 9)
        pdf.drawString(width / 2, 30, str(n))

    text("Office Handbook", "Helvetica-Bold", 18)
    gap(8)
    text("This handbook covers the Lisbon office.")
    gap(10)
    text("Opening hours", "Helvetica-Bold", 14)
    gap(4)
    text("The office opens at 8:00 and closes at 19:00 on weekdays. Weekend access")
    text("needs a request to Facilities two days ahead.")
    gap(10)
    text("Parking", "Helvetica-Bold", 11)
    gap(4)
    text("There are six parking spaces, booked in the Roomly app.")
    gap(10)
    text("Rules", "Helvetica-Bold", 14)
    gap(4)
    text("• Badge in at the main door.", x=84)
    text("• Close the windows when you leave the last", x=84)
    text("meeting room of the day.", x=96)
    gap(10)
    text("Room capacities", "Helvetica-Bold", 14)
    gap(6)

    def row(cells: tuple[str, str, str], font: str = "Helvetica") -> None:
        nonlocal y
        pdf.setFont(font, 11)
        for x, cell in zip((72, 230, 380), cells, strict=True):
            pdf.drawString(x, y, cell)
        y -= 18

    header = ("Room", "Seats", "Screen")
    row(header, "Helvetica-Bold")
    rooms = [(f"Room {i + 1}", str(4 + i), "Yes" if i % 2 else "No") for i in range(30)]
    while y > 90 and rooms:
        row(rooms.pop(0))
    footer(1)
    pdf.showPage()
    y = height - 72
    row(header, "Helvetica-Bold")
    for r in rooms:
        row(r)
    gap(14)
    text("Lockers", "Helvetica-Bold", 14)
    gap(6)
    # A ruled table: every cell boxed.
    top = y + 11
    cells = [("Floor", "Lockers"), ("1", "40"), ("2", "25")]
    for i, (a, b) in enumerate(cells):
        pdf.setFont("Helvetica", 11)
        pdf.drawString(76, top - 14 - i * 20, a)
        pdf.drawString(176, top - 14 - i * 20, b)
    for i in range(len(cells) + 1):
        pdf.line(72, top - i * 20, 272, top - i * 20)
    for x in (72, 172, 272):
        pdf.line(x, top, x, top - len(cells) * 20)
    y = top - len(cells) * 20 - 24
    text("Ask Facilities for a locker key.")
    footer(2)
    pdf.showPage()
    pdf.save()
    return path
