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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from docent.contracts import Hit, Outcome
from generate.lists import items_after, lead_in_of, list_run
from generate.outcomes import answered
from generate.unit_scoring import Scored

_NUMBER = r"(\d[\d,]*(?:\.\d+)?)\s*(k\b)?"
_CURRENCY = r"[€$£]"
_UNITS = {
    "year": "year", "yr": "year", "month": "month", "week": "week", "day": "day",
    "night": "night", "hour": "hour", "hr": "hour", "km": "km", "kilometre": "km",
    "kilometer": "km", "mile": "mile", "seat": "seat", "people": "person",
    "person": "person", "employee": "person", "user": "user",
    "euro": "€", "eur": "€", "dollar": "$", "usd": "$", "pound": "£", "gbp": "£",
}  # fmt: skip
_UNIT_WORD = (
    r"(years?|yrs?|months?|weeks?|days?|nights?|hours?|hrs?|km|kilomet(?:re|er)s?|miles?|"
    r"seats?|people|persons?|employees?|users?|euros?|eur|dollars?|usd|pounds?|gbp)\b"
)
# A quantity: "€12,000", "€40k", "10 years", "250km", "2,500 dollars", "15+ years".
_QUANTITY = re.compile(
    rf"(?P<cur>{_CURRENCY})\s?{_NUMBER}|{_NUMBER}\s*(?P<plus>\+)?\s*-?\s*{_UNIT_WORD}",
    re.IGNORECASE,
)
_JOIN = r"\s*(?:and|to|–|—|-)\s*"
# Before the top of a range: its bottom ("between 3 and", "€5,000 to", "3–").
_RANGE_BOTTOM = re.compile(rf"{_CURRENCY}?\s?{_NUMBER}{_JOIN}$", re.IGNORECASE)
# After the bottom of a range: its top follows ("… to €25,000").
_RANGE_TOP = re.compile(rf"^{_JOIN}{_CURRENCY}?\s?\d", re.IGNORECASE)
_BELOW = re.compile(
    r"\b(?:(?P<strict>fewer than|less than|under|below)|up to|no more than|at most)\s+$",
    re.IGNORECASE,
)
_ABOVE = re.compile(
    r"\b(?:(?P<strict>more than|over|above|exceeding)|at least|from)\s+$", re.IGNORECASE
)
_OR_MORE = re.compile(r"^\s*(?:or more|or over|and (?:over|above|up))\b", re.IGNORECASE)


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

    def holds(self, q: Quantity) -> bool:
        above = q.value > self.low or (q.value == self.low and not self.low_open)
        below = q.value < self.high or (q.value == self.high and not self.high_open)
        return q.unit == self.unit and above and below


def quantities(text: str) -> list[Quantity]:
    """Every quantity with a unit in ``text``."""
    found: list[Quantity] = []
    for m in _QUANTITY.finditer(text):
        if m.group("cur"):
            value, thousands, unit = m.group(2), m.group(3), m.group("cur")
        else:
            value, thousands, unit = m.group(4), m.group(5), m.group(7)
        number = _number(value, thousands)
        found.append(Quantity(number, _unit(unit), m.start(), m.end(), bool(m.group("plus"))))
    return found


def _number(digits: str, thousands: str | None) -> float:
    return float(digits.replace(",", "")) * (1000 if thousands else 1)


def _unit(word: str) -> str:
    folded = word.casefold()
    return folded if folded in "€$£" else _UNITS.get(folded, _UNITS.get(folded.rstrip("s"), folded))


def bands(text: str) -> list[Band]:
    """The bands ``text`` states: "between 3 and 15 years", "3–15 years", "€5,000 to
    €25,000", "fewer than 3 years", "up to 5 nights", "over €25,000", "15+ years"."""
    out: list[Band] = []
    for q in quantities(text):
        before, after = text[: q.start], text[q.end :]
        if _RANGE_TOP.match(after):
            continue  # the bottom of a range: read with its top
        if (bottom := _RANGE_BOTTOM.search(before)) is not None:
            out.append(Band(_number(bottom.group(1), bottom.group(2)), q.value, q.unit))
        elif (below := _BELOW.search(before)) is not None:
            out.append(Band(-math.inf, q.value, q.unit, high_open=bool(below.group("strict"))))
        elif (above := _ABOVE.search(before)) is not None:
            out.append(Band(q.value, math.inf, q.unit, low_open=bool(above.group("strict"))))
        elif q.plus or _OR_MORE.match(after):
            out.append(Band(q.value, math.inf, q.unit))
    return out


def band_pick(question: str, siblings: Sequence[Scored]) -> Scored | None:
    """The one sibling whose band holds a quantity the question states, when at least two
    siblings give one band each of that quantity's unit and those bands overlap nowhere;
    None otherwise."""
    for q in quantities(question):
        banded: list[tuple[Scored, Band]] = []
        for s in siblings:
            own = [b for b in bands(s.unit.text) if b.unit == q.unit]
            if len(own) == 1:
                banded.append((s, own[0]))
        if len(banded) < 2 or not _parted(b for _, b in banded):
            continue
        holding = [s for s, b in banded if b.holds(q)]
        if len(holding) == 1:
            return holding[0]
    return None


def _parted(each: Iterable[Band]) -> bool:
    """No two bands share more than an edge."""
    ordered = sorted(each, key=lambda b: (b.low, b.high))
    return all(a.high <= b.low for a, b in itertools.pairwise(ordered))


def band_answer(
    best: Scored, block: list[Scored], hits: Sequence[Hit], question: str
) -> Outcome | None:
    """The item of best's list (or of the list its lead-in introduces) whose band holds the
    quantity the question states ("… with 10 years in government?" → "Between 3 and 15
    years: …"), quoted under its lead-in; None when no band picks one (``generate.bands``)."""
    lead = best if best.unit.text.rstrip().endswith(":") else lead_in_of(best, block)
    items = items_after(lead, block) if lead is not None else list_run(best, block)
    picked = band_pick(question, items)
    if picked is None:
        return None
    cid = best.unit.hit.chunk.chunk_id
    quote = "\n".join([s.unit.text for s in (lead, picked) if s is not None])
    return answered(f"{quote} [{cid}]", [(cid, quote)], hits)


def band_first(ranked: Sequence[Scored], question: str) -> list[Scored]:
    """``ranked`` (units, best first) with, in each block whose best unit is an item or
    lead-in of a list, the item whose band holds the question's quantity moved to just
    before that best unit: what a non-answer highlights in the passage."""
    out = list(ranked)
    if not quantities(question):
        return out
    tops: dict[str, Scored] = {}
    for s in ranked:
        tops.setdefault(s.unit.hit.chunk.chunk_id, s)
    for cid, top in tops.items():
        block = [s for s in ranked if s.unit.hit.chunk.chunk_id == cid]
        lead = top if top.unit.text.rstrip().endswith(":") else lead_in_of(top, block)
        picked = band_pick(question, items_after(lead, block) if lead else list_run(top, block))
        if picked is not None and picked is not top:
            out.remove(picked)
            out.insert(out.index(top), picked)
    return out
