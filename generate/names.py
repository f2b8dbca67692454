"""Names in text: the capitalised words inside a sentence ("The Enterprise plan …" gives
Enterprise), which a paraphrase does not reword the way it rewords other words, so a name
a passage lacks says it is about another thing."""

from __future__ import annotations

import re
from collections.abc import Iterable

# Words of a passage, Unicode letters first ("Zürich", "Équipe", "TripDesk", "PTO").
_WORD = re.compile(r"[^\W\d_][\w'’-]*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;:])\s+|\n+")
_NOT_NAMES = frozenset(
    """January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday""".split()
)


def capitalised_names(text: str) -> set[str]:
    """The capitalised words of ``text`` that do not open a sentence, a line or a table cell
    ("The Enterprise plan …" gives Enterprise; "Plan: Enterprise; Price: …" none)."""
    names: set[str] = set()
    for part in _SENTENCE_BREAK.split(text):
        names |= _capitalised([m.group(0) for m in _WORD.finditer(part)][1:])
    return names - _NOT_NAMES


def capitalised_words(text: str) -> set[str]:
    """Every capitalised word of ``text``, a sentence's or a heading's first word included
    ("Business plan" gives Business; "Plan: Starter; Price: Free" gives Plan, Starter,
    Price, Free)."""
    return _capitalised(m.group(0) for m in _WORD.finditer(text))


def _capitalised(words: Iterable[str]) -> set[str]:
    return {w for w in words if w[0].isupper() and len(w) > 1}


def holds_name(text: str, name: str) -> bool:
    """Does ``text`` hold ``name`` as a word, in any case but an acronym's own?"""
    flags = 0 if name.isupper() else re.IGNORECASE  # "IT", "US" are not "it", "us"
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, flags) is not None
