"""Reading chunks back from the index by id, for the passage view and the visibility
re-check of everything an answer names."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from docent.contracts import Chunk
from docent.list_items import ITEM_LINE
from store.protocol import ChunkIndex


def fetch_chunks(index: ChunkIndex, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
    """The chunks that exist, by id (missing ids are simply absent)."""
    return {cid: stored.chunk for cid, stored in index.get(chunk_ids).items()}


def successor_passage(chunk: Chunk, successors: Sequence[Chunk]) -> Chunk | None:
    """The passage of the version that replaced ``chunk``'s (``successors``, that document's
    chunks in order) to read instead: the one under the same sections below the title (a
    title names its version: "Refunds Policy 2022 › Approval" → "Refunds Policy ›
    Approval"), else under the most of them from the top (a parent section before a
    same-named subsection elsewhere), else the document's first passage."""

    def sections(c: Chunk) -> list[str]:
        return [" ".join(h.split()).casefold() for h in c.heading_path[1:]]

    mine = sections(chunk)

    def shared(other: Chunk) -> int:
        count = 0
        for a, b in zip(mine, sections(other), strict=False):
            if a != b:
                break
            count += 1
        return count

    if not successors:
        return None
    # The same sections first, then the most shared from the top; max keeps the first of
    # equals, in document order.
    best = max(successors, key=lambda c: (sections(c) == mine, shared(c)))
    return best if sections(best) == mine or shared(best) else successors[0]


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


def _loose_find(text: str, needle: str) -> tuple[int, int]:
    import re

    words = [re.escape(w) for w in needle.split()]
    if not words:
        return -1, 0
    match = re.search(r"\s+".join(words), text, flags=re.IGNORECASE)
    if match is None:
        return -1, 0
    return match.start(), match.end() - match.start()


def passage_blocks(text: str, quote: str | None) -> list[dict[str, Any]]:
    """The passage as the view shows it: prose parts with the quote highlighted, each list
    as its items (``prose_blocks``), and each Markdown table as rows of cells, the rows the
    quote names marked."""
    from generate.tables import is_table_line, table_view

    quoted = {" ".join(line.split()) for line in (quote or "").splitlines() if line.strip()}
    blocks: list[dict[str, Any]] = []
    for is_table, lines in groupby(text.splitlines(keepends=True), key=is_table_line):
        run = "".join(lines)
        view = table_view(run) if is_table else None
        if view is None:
            blocks += prose_blocks(highlight_spans(run, quote))
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


Parts = list[tuple[str, bool]]


def prose_blocks(parts: Parts) -> list[dict[str, Any]]:
    """Highlighted prose cut into runs of plain lines (``{"parts"}``) and lists
    (``{"items": [{"depth", "parts"}]}``): chunking writes an item as ``"  " * depth + "- "``
    and its later paragraphs indented under it, which read as raw "- " lines in a
    paragraph. An item's marker is left out of its parts; a mark over several items is
    cut at each line."""
    blocks: list[dict[str, Any]] = []
    for line in _lines(parts):
        text = "".join(t for t, _ in line).rstrip("\r\n")
        item = ITEM_LINE.match(text)
        items = blocks[-1].get("items") if blocks else None
        if item and item.group(2).strip():
            depth = len(item.group(1).expandtabs(2)) // 2
            entry = {"depth": depth, "parts": _json(_drop(line, item.start(2)))}
            if items is not None:
                items.append(entry)
            else:
                if blocks and blocks[-1]["parts"]:  # the list starts on a line of its own
                    last = blocks[-1]["parts"][-1]
                    last["text"] = last["text"].rstrip("\r\n")
                blocks.append({"items": [entry]})
        elif items is not None and text[:1].isspace() and text.strip():
            _later_paragraph(items, line, text)
        elif blocks and "parts" in blocks[-1]:
            blocks[-1]["parts"] += _json(line)
        else:
            blocks.append({"parts": _json(line)})
    for block in blocks:
        for holder in block.get("items", [block]):
            holder["parts"] = _merged(holder["parts"])
    return [b for b in blocks if b.get("items") or b["parts"]]


def _later_paragraph(items: list[dict[str, Any]], line: Parts, text: str) -> None:
    """A later paragraph of an item, written at its item's text column (``"  " * (depth +
    1)``): under that item when it is the last one, else on a line of its own at that
    item's depth, without a bullet (after a nested item it belongs to the outer one)."""
    indent = len(text) - len(text.lstrip())
    depth = max(len(text[:indent].expandtabs(2)) // 2 - 1, 0)
    parts = _json(_drop(line, indent))
    if items[-1]["depth"] == depth or not any(i["depth"] == depth for i in items):
        items[-1]["parts"] += [{"text": "\n", "mark": False}, *parts]
    else:
        items.append({"depth": depth, "parts": parts, "more": True})


def _lines(parts: Parts) -> list[Parts]:
    """``parts`` cut at each newline, the newline kept at the end of its line."""
    lines: list[Parts] = [[]]
    for text, mark in parts:
        for piece in text.splitlines(keepends=True):
            lines[-1].append((piece, mark))
            if piece.endswith("\n"):
                lines.append([])
    return [line for line in lines if line]


def _drop(line: Parts, count: int) -> Parts:
    """``line`` without its first ``count`` characters, nor its newline."""
    out: Parts = []
    for text, mark in line:
        cut = min(count, len(text))
        count -= cut
        if text[cut:].rstrip("\r\n"):
            out.append((text[cut:].rstrip("\r\n"), mark))
    return out


def _json(parts: Parts) -> list[dict[str, Any]]:
    return [{"text": t, "mark": m} for t, m in parts if t]


def _merged(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Neighbouring parts of one kind (marked or not) joined, as before the lines were cut."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if not part["text"]:
            continue
        if out and out[-1]["mark"] == part["mark"]:
            out[-1] = {"text": out[-1]["text"] + part["text"], "mark": part["mark"]}
        else:
            out.append(dict(part))
    return out
