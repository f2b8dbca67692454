"""Sentence boundaries, shared by ingest (the units it embeds) and generate (the units it
quotes and the claims it checks), so both cut a paragraph in the same places.

pysbd's rule-based segmenter knows abbreviations, initials, decimals and names with inner
full stops ("U.S.", "GitHub B.V.", "the EU-U.S. Data Privacy Framework"), which a split
after every ". Capital" cuts mid-name. It needs no model and no download.
"""

from __future__ import annotations

import functools

import pysbd


@functools.cache
def _segmenter() -> pysbd.Segmenter:
    return pysbd.Segmenter(language="en", clean=False)


def split_sentences(text: str) -> list[str]:
    """The sentences of one paragraph, whitespace runs made single spaces."""
    text = " ".join(text.split())
    if not text:
        return []
    return [piece.strip() for piece in _segmenter().segment(text) if piece.strip()]
