"""PDF page geometry: column-aligned tables found from word positions alone."""

from __future__ import annotations

from ingest.pdf_layout import Line, Word, find_aligned_tables


def _line(top: float, *cells: tuple[float, str], page: int = 1) -> Line:
    words = []
    for x, cell in cells:
        for word in cell.split():
            words.append(Word(word, x, x + 6 * len(word), top, top + 12, 12.0, False))
            x += 6 * len(word) + 3.5
    return Line(tuple(words), page)


def test_aligned_table_with_wrapped_cells_between_paragraphs() -> None:
    # The layout LibreOffice gives a pandoc table: cells padded apart, long cells wrapped.
    lines = [
        _line(100, (72, "A paragraph before the table.")),
        _line(124, (72, "Date"), (270, "Item")),
        _line(142, (72, "October 1, 2024"), (270, "Cycle begins")),
        _line(160, (72, "November 14, 2024"), (270, "Plans must be")),
        _line(174, (270, "acknowledged in HR Links.")),
        _line(192, (72, "April 2025"), (270, "Mid-year reviews")),
        _line(215, (72, "A paragraph after the table, at the margin.")),
        _line(229, (72, "It goes on for a second line.")),
    ]
    (table,) = find_aligned_tables(lines)
    assert (table.start, table.end) == (1, 6)
    assert table.rows == (
        ("Date", "Item"),
        ("October 1, 2024", "Cycle begins"),
        ("November 14, 2024", "Plans must be acknowledged in HR Links."),
        ("April 2025", "Mid-year reviews"),
    )


def test_plain_paragraphs_and_bullets_are_not_tables() -> None:
    lines = [
        _line(100, (72, "Moonlighting means working other jobs outside of work.")),
        _line(114, (72, "It is not a black and white topic.")),
        _line(140, (84, "•"), (108, "Is it competitive?")),
        _line(156, (84, "•"), (108, "Does it take a lot of your time?")),
    ]
    assert find_aligned_tables(lines) == []
