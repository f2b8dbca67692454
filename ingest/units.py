"""Token counts and the small units inside a chunk (sentences, list items, table rows).

Both are cheap, deterministic and need no model, so chunking stays a pure function.
"""

from __future__ import annotations

import math
import re

from docent.list_items import ITEM_LINE
from docent.sentences import split_sentences as split_sentences
from ingest.tables import row_units, rows_from_markdown

_PIECES = re.compile(r"[^\W\d_]+|\d+|\S")


def count_tokens(text: str) -> int:
    """Approximate WordPiece token count for the bundled all-MiniLM-L6-v2 (uncased BERT
    vocabulary), without loading its tokenizer.

    Rule: every punctuation mark is one token; a run of digits is one token per three
    digits; a word is one token, plus one per three letters beyond the eighth (long words
    split into pieces). On 3,000 paragraphs of the real handbook corpus this came to 1.01x
    the true total, with a mean absolute error of 8 % per paragraph.
    """
    total = 0
    for piece in _PIECES.findall(text):
        if piece[0].isdigit():
            total += 1 + (len(piece) - 1) // 3
        elif piece[0].isalpha():
            total += 1 + (math.ceil((len(piece) - 8) / 3) if len(piece) > 8 else 0)
        else:
            total += 1
    return total


def split_units(text: str, kind: str) -> list[str]:
    """The finer units of a chunk's display text: for a table, one "Header: value; …"
    string per row; otherwise list items ("- item" lines) one each, pipe-table rows as for
    tables, and every other paragraph split into sentences."""
    if kind == "table":
        return row_units(rows_from_markdown(text))
    units: list[str] = []
    table_lines: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if table_lines:
            units.extend(row_units(rows_from_markdown("\n".join(table_lines))))
            table_lines.clear()
        if paragraph:
            units.extend(split_sentences(" ".join(paragraph)))
            paragraph.clear()

    for line in text.splitlines():
        stripped = line.strip()
        item = ITEM_LINE.match(line)
        if not stripped:
            flush()
        elif stripped.startswith("|"):
            if paragraph:
                flush()
            table_lines.append(stripped)
        elif item:
            flush()
            units.append(" ".join(item.group(2).split()))
        else:
            if table_lines:
                flush()
            paragraph.append(stripped)
    flush()
    return [u for u in units if u]
