"""Tokens for the keyword leg: policy text is full of codes that embedders blur and people
type exactly (``E:1``, ``401(k)``, ``7.3(b)``, ``€5,000``, ``30-day``), so a compound is
kept whole *and* split into its parts, and plain words are lower-cased, stripped of
stop words and lightly stemmed (plural ``s`` only) so ``days`` meets ``day``.

The same function tokenises documents and queries, so whatever a query types matches
whatever a document wrote.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# A compound: an optional currency sign, word characters, then any run of
# (joiner + word characters) or a short parenthesised suffix, then an optional percent.
# Thousands commas join only digits ("5,000"); other joiners sit between word characters.
_COMPOUND = re.compile(
    r"""
    [$€£¥]?
    \w+
    (?:
        (?<=\d),(?=\d{3}(?!\d))\d{3}
      | [-:./&']\w+
      | \(\w{1,4}\)
    )*
    %?
    """,
    re.VERBOSE,
)
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3})")
_CURRENCY = "$€£¥"
# Split points inside a compound; "." and "," stay when they sit between digits (7.3, 5,000).
_PART_SPLIT = re.compile(r"[-:/&'()%]|(?<!\d)\.|\.(?!\d)")
_DIGIT_ALPHA = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u2010": "-", "\u2011": "-"})

STOP_WORDS = frozenset(
    """a an and are as at be been but by can could do does did for from had has have how
    i if in into is it its may me might my no not of on or our shall should so than that
    the their them then there these they this those to us was we were what when where which
    who whom why will with would you your""".split()
)


def stem(word: str) -> str:
    """Harman's S-stemmer: strips plural endings only, so it never mangles codes or names."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


def _word(token: str) -> str | None:
    """A plain word or number as indexed: stop words dropped, plurals stemmed."""
    if not token or token in STOP_WORDS:
        return None
    if len(token) == 1 and token.isalpha():
        return None
    return stem(token)


def _parts(compound: str) -> list[str]:
    """A compound's pieces: ``7.3(b)`` → 7.3, b; ``5kg`` → 5, kg; ``full-time`` → full, time."""
    pieces: list[str] = []
    for piece in _PART_SPLIT.split(compound.strip(_CURRENCY)):
        if not piece:
            continue
        runs = _DIGIT_ALPHA.findall(piece)
        pieces.extend(runs if len(runs) > 1 else [piece])
    return pieces


def normalise(text: str) -> str:
    """The text as ``tokenize`` reads it: NFKC, apostrophes and hyphens straightened,
    lower-cased."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).lower()


def compound_text(text: str) -> str:
    """``text`` normalised, thousands commas dropped: every compound ``tokenize`` keeps
    whole (``rc-77``, ``7.3(b)``, ``$5000``) is a substring of it. Testing that is a cheap
    way to rule a text out before reading its compounds."""
    return _THOUSANDS.sub("", normalise(text))


def _compounds(normalised: str) -> Iterator[str]:
    """Each compound of a normalised text, as ``tokenize`` keeps it whole."""
    for match in _COMPOUND.finditer(normalised):
        raw = _THOUSANDS.sub("", match.group(0))
        if raw.endswith("'s"):
            raw = raw[:-2]
        raw = raw.strip("'_")
        if raw:
            yield raw


def compounds(text: str) -> set[str]:
    """The compounds ``tokenize`` keeps whole, without their parts and stems: a token that
    mixes letters and digits (``rc-77``, ``sev1``, ``401(k)``) is among ``tokenize(text)``
    exactly when it is among these, since parts never mix them and stemming skips them."""
    return set(_compounds(normalise(text)))


def tokenize(text: str) -> list[str]:
    """Lower-cased tokens: each compound whole, then its parts; plain words stemmed."""
    tokens: list[str] = []
    for raw in _compounds(normalise(text)):
        parts = _parts(raw)
        if len(parts) == 1 and parts[0] == raw:
            word = _word(raw)
            if word is not None:
                tokens.append(word)
            continue
        tokens.append(raw)
        for part in parts:
            word = _word(part)
            if word is not None:
                tokens.append(word)
    return tokens
