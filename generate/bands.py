"""Bands of a quantity that sibling list items or table rows give ("Fewer than 3 years: 4
hours", "Between 3 and 15 years: 6 hours", "15+ years: 8 hours"; "€5,000 to €25,000: three
quotes"), and the one sibling whose band holds a quantity the question states ("How much
annual leave do I earn with 10 years in government?" was marked at "15+ years": a user pass).

Only a choice among siblings whose bands of one unit part the scale between them (they
overlap nowhere): caps ("Tier 1 cities: up to €220 per night", "Tier 2 cities: up to €160")
all start at nothing and overlap — a figure is tested against the cap of the asker's tier,
it does not choose the tier.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from docent.contracts import Hit, Outcome
from generate.lists import chosen_first, list_of, siblings
from generate.outcomes import answered
from generate.unit_scoring import Scored

# A number, not part of another ("1,2,3", "P-10", "€12.000" / "€12 000", which may be
# twelve thousand written another way: skipped, not guessed).
_NUM = (
    r"(?<![\w.,])(?<!\d\s)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.(?!\d{3}(?!\d))\d+)?)"
    r"(?![.,]?\d)(?!\s\d{3}\b)"
)
_MULTIPLIERS = {"k": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_CURRENCIES = {"€": "€", "$": "$", "£": "£", "eur": "€", "usd": "$", "gbp": "£"}
_UNITS = {
    "year": "year", "yr": "year", "month": "month", "week": "week", "day": "day",
    "night": "night", "hour": "hour", "hr": "hour", "km": "km", "kilometre": "km",
    "kilometer": "km", "mile": "mile", "seat": "seat", "people": "person",
    "person": "person", "employee": "person", "user": "user",
    "euro": "€", "dollar": "$", "pound": "£", **_CURRENCIES,
}  # fmt: skip
# An amount: "€12,000", "€40k", "€1.5 million", "USD 2,500".
_MONEY = re.compile(
    rf"(?P<unit>[€$£]|\b(?:eur|usd|gbp)\s)\s?{_NUM}(?:\s?(?P<mult>k|mn|m|bn|million|billion)\b)?",
    re.IGNORECASE,
)
# A count of a unit: "10 years", "250km", "2,500 dollars", "15+ years", "10-day".
_COUNT = re.compile(
    rf"{_NUM}\s*(?P<plus>\+)?\s*-?\s*(?P<unit>years?|yrs?|months?|weeks?|days?|nights?|"
    r"hours?|hrs?|km|kilomet(?:re|er)s?|miles?|seats?|people|persons?|employees?|users?|"
    r"euros?|eur|dollars?|usd|pounds?|gbp)\b",
    re.IGNORECASE,
)
_JOIN = r"\s*(?:and|to|–|—|-)\s*"
# Before the top of a range: its bottom ("between 3 and", "€5,000 to", "3–").
_RANGE_BOTTOM = re.compile(rf"(?:[€$£]\s?)?{_NUM}{_JOIN}$", re.IGNORECASE)
# After the bottom of a range: its top follows ("… to €25,000").
_RANGE_TOP = re.compile(rf"^{_JOIN}(?:[€$£]\s?)?\d", re.IGNORECASE)
# Bounds before a quantity, the negated ones first: "not exceeding" is an upper bound.
_AT_MOST = re.compile(
    r"\b(?:not exceeding|not (?:more|over|above|in excess of)(?: than)?|no more than|up to|"
    r"at most|a maximum of|max(?:imum)?)\s+$",
    re.IGNORECASE,
)
_AT_LEAST = re.compile(
    r"\b(?:no (?:less|fewer) than|not (?:less|fewer) than|not (?:under|below)|at least|"
    r"a minimum of|min(?:imum)?|from)\s+$",
    re.IGNORECASE,
)
_BELOW = re.compile(r"\b(?:fewer than|less than|shorter than|under|below)\s+$", re.IGNORECASE)
_ABOVE = re.compile(
    r"\b(?:more than|longer than|over|above|exceeding|in excess of)\s+$", re.IGNORECASE
)
# Bounds after a quantity: "5 years or more", "3 days or less".
_OR_MORE = re.compile(
    r"^\s*(?:or (?:more|over|above|higher|longer)|and (?:over|above|up))\b", re.IGNORECASE
)
_OR_LESS = re.compile(
    r"^\s*(?:or (?:less|fewer|under|below|lower|shorter)|and (?:under|below))\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # "year", "€", …
    start: int
    end: int
    plus: bool = False  # written "15+ years"


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    unit: str
    low_open: bool = False
    high_open: bool = False

    def contains(self, other: Band) -> bool:
        """Whether every quantity ``other`` holds, this band holds too (a single figure is
        the band from it to itself)."""
        low = self.low < other.low or (
            self.low == other.low and (other.low_open or not self.low_open)
        )
        high = self.high > other.high or (
            self.high == other.high and (other.high_open or not self.high_open)
        )
        return self.unit == other.unit and low and high


def quantities(text: str) -> list[Quantity]:
    """Every quantity with a unit (or currency) in ``text``, in order."""
    found = [
        Quantity(_value(m.group(2), m.group("mult")), _unit(m.group("unit")), m.start(), m.end())
        for m in _MONEY.finditer(text)
    ]
    found += [
        Quantity(_value(m.group(1)), _unit(m.group("unit")), m.start(), m.end(), bool(m["plus"]))
        for m in _COUNT.finditer(text)
        if not any(q.start <= m.start() < q.end for q in found)
    ]
    return sorted(found, key=lambda q: q.start)


def _value(digits: str, multiplier: str | None = None) -> float:
    return float(digits.replace(",", "")) * _MULTIPLIERS.get((multiplier or "").casefold(), 1)


def _unit(word: str) -> str:
    folded = word.strip().casefold()
    return _UNITS.get(folded, _UNITS.get(folded.rstrip("s"), folded))


def bands(text: str) -> list[Band]:
    """The bands ``text`` states: "between 3 and 15 years", "3–15 years", "€5,000 to
    €25,000", "fewer than 3 years", "up to 5 nights", "not exceeding €5,000", "over
    €25,000", "15+ years", "3 days or less"."""
    out: list[Band] = []
    for q in quantities(text):
        before, after = text[: q.start], text[q.end :]
        if _RANGE_TOP.match(after):
            continue  # the bottom of a range: read with its top
        band = _band(q, before, after)
        if band is not None and band.low <= band.high:  # "aged 55 and 10 years" is none
            out.append(band)
    return out


def _band(q: Quantity, before: str, after: str) -> Band | None:
    inf = math.inf
    if (bottom := _RANGE_BOTTOM.search(before)) is not None:
        return Band(_value(bottom.group(1)), q.value, q.unit)
    if _AT_MOST.search(before) or _OR_LESS.match(after):
        return Band(-inf, q.value, q.unit)
    if _AT_LEAST.search(before) or q.plus or _OR_MORE.match(after):
        return Band(q.value, inf, q.unit)
    if _BELOW.search(before):
        return Band(-inf, q.value, q.unit, high_open=True)
    if _ABOVE.search(before):
        return Band(q.value, inf, q.unit, low_open=True)
    return None


def band_pick(question: str, siblings: Sequence[Scored]) -> Scored | None:
    """The one sibling whose band holds the quantity the question states, when at least two
    siblings give one band each of its unit and those bands overlap nowhere; None
    otherwise, and when two quantities of the question pick different siblings ("2 years
    from retirement after 20 years in government")."""
    picks: set[int] = set()
    stated = [bands(s.unit.text) for s in siblings]
    for q in quantities(question):
        banded: list[tuple[int, Band]] = []
        for n, each in enumerate(stated):
            own = [b for b in each if b.unit == q.unit]
            if len(own) == 1:
                banded.append((n, own[0]))
        if len(banded) < 2 or not _parted([b for _, b in banded]):
            continue
        # A quantity the question states as a bound ("refunds above €500") is a band: the
        # sibling whose band contains it, not the one whose edge it is ("up to €500").
        asked = _band(q, question[: q.start], question[q.end :]) or Band(q.value, q.value, q.unit)
        holding = [n for n, b in banded if b.contains(asked)]
        if len(holding) != 1:
            return None  # on an edge, or beyond every band: no pick
        picks.add(holding[0])
    return siblings[picks.pop()] if len(picks) == 1 else None


def _parted(each: Sequence[Band]) -> bool:
    """No two bands share more than an edge, or every band is a closed range (salary bands
    "€92,000–€118,000" and "€115,000–€142,000" overlap, yet €100,000 is in one of them);
    caps ("up to €220", "up to €160") are neither."""
    if all(math.isfinite(b.low) and math.isfinite(b.high) for b in each):
        return True
    ordered = sorted(each, key=lambda b: (b.low, b.high))
    return all(a.high <= b.low for a, b in itertools.pairwise(ordered))


def band_choice(best: Scored, pool: Sequence[Scored], question: str) -> Scored:
    """``best``, or the unit of its block whose band holds the quantity the question states
    (its list's item, else its sentence): what a past version's answer quotes ("Before the
    2025 policy, who could approve a refund of 800 euros?" quoted "… team lead may approve
    refunds up to €500", not "Refunds above €500 need finance approval": a user pass)."""
    items = siblings(best, [s for s in pool if s.unit.hit is best.unit.hit])
    picked = band_pick(question, items) if best in items else None
    return best if picked is None else picked


def band_answer(
    best: Scored, block: list[Scored], hits: Sequence[Hit], question: str
) -> Outcome | None:
    """The item of best's list (or of the list its lead-in introduces) whose band holds the
    quantity the question states ("… with 10 years in government?" → "Between 3 and 15
    years: …"), quoted under its lead-in; None when no band picks one (``generate.bands``)."""
    lead, items = list_of(best, block)
    picked = band_pick(question, items)
    if picked is None:
        return None
    cid = best.unit.hit.chunk.chunk_id
    quote = "\n".join([s.unit.text for s in (lead, picked) if s is not None])
    return answered(f"{quote} [{cid}]", [(cid, quote)], hits)


def band_first(ranked: Sequence[Scored], question: str) -> list[Scored]:
    """``ranked`` (units, best first) with, in each block, the unit whose band holds the
    question's quantity moved to just before that block's best unit — among its list's items,
    else its sentences ("Your line manager approves claims up to €2,500." / "Claims above
    €2,500 also need …" for "a claim of €3,000"): what a non-answer highlights."""
    if not quantities(question):
        return list(ranked)

    def chosen(top: Scored, block: list[Scored]) -> Scored | None:
        items = siblings(top, block)
        return band_pick(question, items) or lone_bound(question, items)

    return chosen_first(ranked, chosen)


def lone_bound(question: str, siblings: Sequence[Scored]) -> Scored | None:
    """The one sibling that states a bound in the unit of a quantity the question states,
    when no other sibling states one in that unit: where the question's figure is tested
    ("a nice dinner, maybe $200 ... do I need sign-off?" against "for any expenses exceeding
    $150, you'll need approval", fourth of its passage's units by meaning). Only what a
    non-answer highlights: it does not say on which side of the bound the figure falls."""
    stated = [bands(s.unit.text) for s in siblings]
    picks: set[int] = set()
    for q in quantities(question):
        bounding = [n for n, each in enumerate(stated) if any(b.unit == q.unit for b in each)]
        if len(bounding) == 1:
            picks.add(bounding[0])
    # Two figures pointing at two sentences ("3 years here; can I spend $80?"): no pick.
    return siblings[picks.pop()] if len(picks) == 1 else None
