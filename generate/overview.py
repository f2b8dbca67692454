"""What an overview question ("What is the severance policy?") quotes: the first block of
the document its title names that states something (``generate/extractive.py``)."""

from __future__ import annotations

from docent.contracts import Hit
from generate.text import content_words
from generate.unit_scoring import GENERIC_WORDS, Scored, is_meta


def overview_units(scored: list[Scored], words: set[str]) -> list[Scored]:
    """For "what is the severance policy": the first block of the document whose title names
    the subject that states something (not the scope or purpose), its first two units."""
    topic = words - GENERIC_WORDS
    titled = [
        s
        for s in scored
        if s.unit.header is None
        and not is_meta(s.unit.text, s.unit.hit.chunk.heading_path)
        and topic & content_words(s.unit.hit.chunk.title or "")
    ]
    if not topic or not titled:
        return []
    first = min(titled, key=lambda s: (chunk_number(s.unit.hit), s.unit.index))
    block = [s for s in titled if s.unit.hit is first.unit.hit]
    return sorted(block, key=lambda s: s.unit.index)[:2]


def chunk_number(hit: Hit) -> int:
    tail = hit.chunk.chunk_id.rsplit("#", 1)[-1]
    return int(tail) if tail.isdigit() else 0
