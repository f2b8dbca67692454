"""Reading chunks back from the index by id, for the passage view and the visibility
re-check of everything an answer names."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from docent.contracts import Chunk
from store.protocol import ChunkIndex


def fetch_chunks(index: ChunkIndex, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
    """The chunks that exist, by id (missing ids are simply absent)."""
    return {cid: stored.chunk for cid, stored in index.get(chunk_ids).items()}


def highlight_spans(text: str, quote: str | None) -> list[tuple[str, bool]]:
    """Split ``text`` into (piece, highlighted) parts around the first occurrence of
    ``quote`` (exact, then whitespace- and case-insensitive); a quote of several lines that
    are not one run of the text (list items apart from each other) marks each line where it
    is. No match: one plain part."""
    if not quote or not quote.strip():
        return [(text, False)]
    spans = [_find(text, quote.strip())]
    if spans[0][0] < 0:
        spans = [_find(text, line.strip()) for line in quote.splitlines() if line.strip()]
    marked = sorted((start, start + length) for start, length in spans if start >= 0)
    parts: list[tuple[str, bool]] = []
    at = 0
    for start, end in marked:
        if start < at:  # overlaps the previous mark
            continue
        parts += [(text[at:start], False), (text[start:end], True)]
        at = end
    parts.append((text[at:], False))
    return [p for p in parts if p[0]]


def _find(text: str, needle: str) -> tuple[int, int]:
    start = text.find(needle)
    return (start, len(needle)) if start >= 0 else _loose_find(text, needle)


def passage_blocks(text: str, quote: str | None) -> list[dict[str, Any]]:
    """The passage as the view shows it: prose parts with the quote highlighted, and each
    Markdown table as rows of cells, the rows the quote names marked."""
    from generate.tables import is_table_line, table_view

    quoted = {" ".join(line.split()) for line in (quote or "").splitlines() if line.strip()}
    blocks: list[dict[str, Any]] = []
    for is_table, lines in groupby(text.splitlines(keepends=True), key=is_table_line):
        run = "".join(lines)
        view = table_view(run) if is_table else None
        if view is None:
            parts = highlight_spans(run, quote)
            blocks.append({"parts": [{"text": t, "mark": m} for t, m in parts]})
            continue
        body = [line for line in run.splitlines() if line.strip()][1:]
        body = [line for line in body if not set(line.strip()) <= set("|-: ")]
        marks = [" ".join(line.split()) in quoted for line in body]
        blocks.append(
            {
                "header": view["header"],
                "rows": [
                    {"cells": cells, "mark": mark}
                    for cells, mark in zip(view["rows"], marks, strict=False)
                ],
            }
        )
    return blocks


def _loose_find(text: str, needle: str) -> tuple[int, int]:
    import re

    words = [re.escape(w) for w in needle.split()]
    if not words:
        return -1, 0
    match = re.search(r"\s+".join(words), text, flags=re.IGNORECASE)
    if match is None:
        return -1, 0
    return match.start(), match.end() - match.start()
