"""Figures — numbers, amounts, percentages, dates, times — as comparable keys.

The figure check asks: does every figure of an answer sentence appear in a block it cites?
Both sides are reduced to keys (``num:220``, ``amt:€:220``, ``pct:15``, ``date:2025-03-31``,
``day:03-31``, ``month:2025-03``, ``time:10:00``) so a faithful paraphrase passes ("€1,000"
against "€1000", "31 March 2025" against "2025-03-31", "15 percent" against "15%"), while a
different figure, or the right number under a different unit (``20%`` against "20 weeks"),
does not.

The answer side is read strictly (digits only); the block side generously (a full date also
yields its year, month and day-of-year keys; "two" yields ``num:2``), since a block supports
every reading of what it says.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from docent.numbers import CARDINALS, MONTHS

_MONTH = r"(?P<{g}>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"

ISO_DATE = re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b")
DAY_MONTH_YEAR = re.compile(
    r"\b(?P<d>\d{1,2})"
    + _ORD
    + r"\s+(?:of\s+)?"
    + _MONTH.format(g="mon")
    + r"(?:,?\s+(?P<y>\d{4}))?\b",
    re.IGNORECASE,
)
MONTH_DAY_YEAR = re.compile(
    r"\b" + _MONTH.format(g="mon") + r"\s+(?P<d>\d{1,2})" + _ORD + r"\b(?:,?\s+(?P<y>\d{4})\b)?",
    re.IGNORECASE,
)
MONTH_YEAR = re.compile(r"\b" + _MONTH.format(g="mon") + r",?\s+(?P<y>\d{4})\b", re.IGNORECASE)
TIME = re.compile(r"\b(?P<h>[01]?\d|2[0-3]):(?P<mi>[0-5]\d)\b")

_CURRENCY_SIGN = {"€": "€", "$": "$", "£": "£"}
_CURRENCY_WORD = {
    "eur": "€",
    "euro": "€",
    "euros": "€",
    "usd": "$",
    "dollar": "$",
    "dollars": "$",
    "gbp": "£",
    "pound": "£",
    "pounds": "£",
}
NUMBER = re.compile(
    r"(?P<pre>[€$£]|\b(?:EUR|USD|GBP)\s?)?"
    r"(?<![\w.,])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w]|[.,]\d)"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?P<post>\s?%|\s+per\s?cent\b|\s+percent\b|\s+(?:EUR|USD|GBP|euros?|dollars?|pounds?)\b)?",
    re.IGNORECASE,
)
NUMBER_WORDS = CARDINALS | {"once": 1, "twice": 2, "half": 0.5}
WORD = re.compile(r"\b[a-z]+\b", re.IGNORECASE)


def _num(text: str) -> str | None:
    try:
        value = Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None
    if value == value.to_integral_value():
        return str(int(value))
    return format(value.normalize(), "f")


def _date_keys(y: str | None, m: int, d: str | None) -> set[str]:
    keys: set[str] = set()
    if d is not None and not 1 <= int(d) <= 31:
        return keys
    if y and d:
        keys.add(f"date:{int(y):04d}-{m:02d}-{int(d):02d}")
    if d:
        keys.add(f"day:{m:02d}-{int(d):02d}")
    if y:
        keys.add(f"month:{int(y):04d}-{m:02d}")
    return keys


def _dates(text: str) -> tuple[set[str], str]:
    """Date keys in ``text`` and the text with those dates blanked (so their digits are not
    read again as bare numbers)."""
    keys: set[str] = set()
    spans: list[tuple[int, int]] = []
    for pattern in (ISO_DATE, DAY_MONTH_YEAR, MONTH_DAY_YEAR, MONTH_YEAR):
        for match in pattern.finditer(text):
            if any(s <= match.start() < e for s, e in spans):
                continue
            groups = match.groupdict()
            if groups.get("mon") == "may":  # the verb, not the month
                continue
            month = int(groups["m"]) if groups.get("m") else MONTHS[groups["mon"].lower()]
            if not 1 <= month <= 12:
                continue
            found = _date_keys(groups.get("y"), month, groups.get("d"))
            if found:
                keys |= found
                if groups.get("y"):
                    keys.add(f"year:{int(groups['y'])}")
                spans.append(match.span())
    for match in TIME.finditer(text):
        keys.add(f"time:{int(match['h']):02d}:{match['mi']}")
        spans.append(match.span())
    blanked = list(text)
    for start, end in spans:
        blanked[start:end] = " " * (end - start)
    return keys, "".join(blanked)


def _number_keys(match: re.Match[str]) -> tuple[str, ...]:
    value = _num(match["num"])
    if value is None:
        return ()
    pre = (match["pre"] or "").strip().lower()
    post = (match["post"] or "").strip().lower()
    if post.endswith("%") or "cent" in post:
        return (f"pct:{value}",)
    currency = _CURRENCY_SIGN.get(pre) or _CURRENCY_WORD.get(pre) or _CURRENCY_WORD.get(post)
    if currency:
        return (f"amt:{currency}:{value}",)
    return (f"num:{value}",)


def answer_figures(text: str) -> set[str]:
    """Figures an answer sentence states, read strictly (digits only). A full date is wanted
    as that date alone (not also its day, month and year), so an exact date can support it."""
    keys, rest = _dates(text)
    for match in NUMBER.finditer(rest):
        keys.update(_number_keys(match))
    for key in [k for k in keys if k.startswith("date:")]:
        y, m, d = key[5:].split("-")
        keys -= {f"day:{m}-{d}", f"month:{y}-{m}", f"year:{int(y)}"}
    return {key for key in keys if not key.startswith("year:")} | {
        f"num:{key[5:]}" for key in keys if key.startswith("year:")
    }


def block_figures(text: str) -> set[str]:
    """Every figure a block supports, read generously (amounts and percentages also as
    bare numbers, years of dates, small number words)."""
    keys, rest = _dates(text)
    for match in NUMBER.finditer(rest):
        for key in _number_keys(match):
            keys.add(key)
            keys.add("num:" + key.rsplit(":", 1)[1])
    for match in WORD.finditer(rest):
        value = NUMBER_WORDS.get(match.group(0).lower())
        if value is not None:
            keys.add(f"num:{_num(str(value))}")
    for key in list(keys):
        if key.startswith("year:"):
            keys.add(f"num:{key[5:]}")
    return keys


def missing_figures(text: str, have: set[str]) -> list[str]:
    """The figures ``text`` states that are not among the supported keys ``have`` (sorted)."""
    return sorted(answer_figures(text) - have)


def unsupported_figures(sentence: str, block_texts: list[str]) -> list[str]:
    """The figures of ``sentence`` that appear in none of ``block_texts`` (sorted)."""
    wanted = answer_figures(sentence)
    if not wanted:
        return []
    have: set[str] = set()
    for text in block_texts:
        have |= block_figures(text)
    return sorted(wanted - have)
