"""Elements → chunks along the heading path. Pure: same elements in, same chunks out.

Rules (issue 2, point 4):
- every chunk carries its ``heading_path``, outermost first. When the document does not
  open with a top-level heading, ``root_title`` (front matter / properties title) is the
  root; a path that already starts with that title does not repeat it;
- a text chunk is consecutive elements under ONE heading, up to the token budget; it never
  crosses a heading. The budget bounds what the embedder reads (heading path + text), with
  at least half of it left for the text;
- a table is its own chunk and never split, even when it is over the budget;
- a list joins the chunk in progress when it fits, else starts its own; a list longer
  than the budget is split between items;
- a paragraph longer than the budget is split between sentences (between words, for a
  single over-long sentence).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from docent.contracts import Chunk, Kind
from ingest.elements import Element
from ingest.tables import rows_from_html, rows_to_markdown
from ingest.units import count_tokens, split_sentences, split_units

__all__ = ["chunk_by_heading", "count_tokens", "split_units"]


@dataclass(frozen=True)
class _Block:
    """A unit packing never splits unless it alone is over the budget."""

    kind: Kind
    text: str
    tokens: int
    items: tuple[str, ...] = ()  # list items, rendered ("- …"), when kind == "list"


@dataclass(frozen=True)
class _Piece:
    path: tuple[str, ...]
    kind: Kind
    text: str


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _sections(
    elements: Sequence[Element], root_title: str | None
) -> list[tuple[tuple[str, ...], list[Element]]]:
    """(heading path, body elements) for each run of elements under one heading."""
    opens_with_title = bool(elements) and elements[0].kind == "title" and elements[0].depth == 0
    root = (
        ()
        if opens_with_title or not (root_title and root_title.strip())
        else (" ".join(root_title.split()),)
    )
    stack: list[tuple[int, str]] = []
    sections: list[tuple[tuple[str, ...], list[Element]]] = []

    def path() -> tuple[str, ...]:
        headings = tuple(text for _, text in stack)
        if root and headings and _same(headings[0], root[0]):
            return headings
        return root + headings

    sections.append((path(), []))
    for el in elements:
        if el.kind == "title":
            while stack and stack[-1][0] >= el.depth:
                stack.pop()
            stack.append((el.depth, el.text))
            sections.append((path(), []))
        else:
            sections[-1][1].append(el)
    return sections


def _blocks(body: Sequence[Element]) -> list[_Block]:
    blocks: list[_Block] = []
    items: list[str] = []

    def close_list() -> None:
        if items:
            text = "\n".join(items)
            blocks.append(_Block("list", text, count_tokens(text), tuple(items)))
            items.clear()

    for el in body:
        if el.kind == "list_item":
            items.append("  " * el.depth + "- " + " ".join(el.text.split()))
            continue
        if el.kind == "text" and el.depth and items:
            # An item's later paragraph, at the item's text column, stays in its list.
            items.append("  " * el.depth + " ".join(el.text.split()))
            continue
        close_list()
        if el.kind == "table":
            rows = rows_from_html(el.html or "")
            text = rows_to_markdown(rows) if rows else el.text
            blocks.append(_Block("table", text, count_tokens(text)))
        else:
            blocks.append(_Block("text", el.text, count_tokens(el.text)))
    close_list()
    return blocks


def _split_long(text: str, budget: int) -> list[str]:
    """A paragraph over the budget, cut between sentences (between words if one sentence
    alone is over it)."""
    pieces: list[str] = []
    current: list[str] = []
    used = 0
    for sentence in split_sentences(text):
        tokens = count_tokens(sentence)
        if tokens > budget:
            words = sentence.split()
            sentence_parts: list[list[str]] = [[]]
            for word in words:
                if (
                    sentence_parts[-1]
                    and count_tokens(" ".join([*sentence_parts[-1], word])) > budget
                ):
                    sentence_parts.append([])
                sentence_parts[-1].append(word)
            if current:
                pieces.append(" ".join(current))
                current, used = [], 0
            pieces.extend(" ".join(p) for p in sentence_parts)
            continue
        if current and used + tokens > budget:
            pieces.append(" ".join(current))
            current, used = [], 0
        current.append(sentence)
        used += tokens + 1
    if current:
        pieces.append(" ".join(current))
    return pieces


def _split_list(block: _Block, budget: int) -> list[str]:
    """A list over the budget, cut between items. A part that starts inside a nested list
    opens with the items it sits under (when they take at most half the budget), as a
    reader of that part needs them: "Submitting timecards" is an administrative task of
    the #1814 code (``docent.list_items`` reads it under them)."""
    groups: list[list[str]] = [[]]
    above: list[tuple[int, str]] = []  # the open items above the next one: (indent, line)
    for item in block.items:
        line = item.lstrip()
        indent = len(item) - len(line)
        while above and above[-1][0] >= indent:
            above.pop()
        tokens = count_tokens(item)
        if tokens > budget:
            # One item longer than the budget: its sentences, still marked as one item.
            if groups[-1]:
                groups.append([])
            marker = "- " if line.startswith("- ") else ""  # else an item's later paragraph
            parts = _split_long(line.removeprefix(marker), budget - len(marker))
            groups.extend([[f"{item[:indent]}{marker}{p}"] for p in parts])
            groups.append([])
        else:
            if groups[-1] and count_tokens("\n".join([*groups[-1], item])) > budget:
                groups.append(_carried([parent for _, parent in above], item, budget))
            groups[-1].append(item)
        if line.startswith("- "):
            above.append((indent, item))
    return ["\n".join(g) for g in groups if g]


def _carried(parents: list[str], item: str, budget: int) -> list[str]:
    fits = count_tokens("\n".join(parents)) * 2 <= budget
    return parents if fits and count_tokens("\n".join([*parents, item])) <= budget else []


def _kind_of(blocks: Sequence[_Block]) -> Kind:
    listed = sum(b.tokens for b in blocks if b.kind == "list")
    return "list" if listed * 2 >= sum(b.tokens for b in blocks) and listed else "text"


def _pack(path: tuple[str, ...], body: Sequence[Element], budget: int) -> list[_Piece]:
    pieces: list[_Piece] = []
    current: list[_Block] = []

    def flush() -> None:
        if current:
            text = "\n\n".join(b.text for b in current)
            pieces.append(_Piece(path, _kind_of(current), text))
            current.clear()

    def used() -> int:
        return count_tokens("\n\n".join(b.text for b in current)) if current else 0

    for block in _blocks(body):
        if block.kind == "table":
            flush()
            pieces.append(_Piece(path, "table", block.text))
        elif block.tokens > budget:
            flush()
            parts = (
                _split_list(block, budget)
                if block.kind == "list"
                else _split_long(block.text, budget)
            )
            pieces.extend(_Piece(path, block.kind, p) for p in parts[:-1])
            current.append(_Block(block.kind, parts[-1], count_tokens(parts[-1])))
            if block.kind == "list":
                flush()  # the tail of a split list stays a list chunk of its own
        elif current and used() + block.tokens + 2 > budget:
            flush()
            current.append(block)
        else:
            current.append(block)
    flush()
    return pieces


def _chunk(n: int, piece: _Piece, source: str, doc_id: str) -> Chunk:
    heading = " > ".join(piece.path)
    embed_text = f"{heading}\n{piece.text}" if heading else piece.text
    digest = hashlib.sha256(f"{heading}\n{piece.text}".encode()).hexdigest()
    return Chunk(
        chunk_id=f"{source}#{n}",
        doc_id=doc_id,
        source=source,
        heading_path=piece.path,
        kind=piece.kind,
        text=piece.text,
        embed_text=embed_text,
        sentences=tuple(split_units(piece.text, piece.kind)),
        content_hash=digest,
    )


def chunk_by_heading(
    elements: Sequence[Element],
    *,
    source: str,
    doc_id: str,
    budget_tokens: int,
    root_title: str | None = None,
) -> list[Chunk]:
    """Chunks in document order, ``chunk_id`` = ``"<source>#<n>"`` from 0."""
    if budget_tokens <= 0:
        raise ValueError("budget_tokens must be greater than 0")
    pieces: list[_Piece] = []
    for path, body in _sections(elements, root_title):
        heading_tokens = count_tokens(" > ".join(path)) + 1 if path else 0
        budget = max(budget_tokens - heading_tokens, budget_tokens // 2, 1)
        pieces.extend(_pack(path, body, budget))
    if not pieces:
        # Headings and nothing else: keep each heading findable rather than drop the file.
        pieces = [_Piece(p, "text", p[-1]) for p, _ in _sections(elements, root_title) if p]
    return [_chunk(n, piece, source, doc_id) for n, piece in enumerate(pieces)]
