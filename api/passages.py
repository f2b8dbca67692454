"""Reading chunks back from the index by id, for the passage view and the visibility
re-check of everything an answer names."""

from __future__ import annotations

from collections.abc import Sequence

from docent.contracts import Chunk
from store.protocol import ChunkIndex


def fetch_chunks(index: ChunkIndex, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
    """The chunks that exist, by id (missing ids are simply absent)."""
    return {cid: stored.chunk for cid, stored in index.get(chunk_ids).items()}


def highlight_spans(text: str, quote: str | None) -> list[tuple[str, bool]]:
    """Split ``text`` into (piece, highlighted) parts around the first occurrence of
    ``quote`` (exact, then whitespace- and case-insensitive). No match: one plain part."""
    if not quote or not quote.strip():
        return [(text, False)]
    needle = quote.strip()
    start = text.find(needle)
    length = len(needle)
    if start < 0:
        start, length = _loose_find(text, needle)
    if start < 0:
        return [(text, False)]
    parts = [(text[:start], False), (text[start : start + length], True)]
    parts.append((text[start + length :], False))
    return [p for p in parts if p[0]]


def _loose_find(text: str, needle: str) -> tuple[int, int]:
    import re

    words = [re.escape(w) for w in needle.split()]
    if not words:
        return -1, 0
    match = re.search(r"\s+".join(words), text, flags=re.IGNORECASE)
    if match is None:
        return -1, 0
    return match.start(), match.end() - match.start()
