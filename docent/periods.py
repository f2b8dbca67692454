"""The periods a question names ("in 2028", "in February 2027", "on 2027-03-01", "in Q3 2027",
"next year", "under the 2027 travel policy"), read against today's date: a period that ends
after today may fall under a version not yet in force (status ``pending``), which retrieval
then searches and the answerer quotes first when it is in force during that period, with the
rule in force until then beside it.

A four-digit number is read as a year only where it dates something: after a word of time
("in", "during", "from", "by", …), in a month or a date, or before a word naming a version.
"Can I claim 2030 EUR?" and "a 2028 model" name no period.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta

from docent.contracts import Chunk
from docent.numbers import MONTHS

# A year a policy could name: 1980-2099 (``docent.versions`` reads past years with it).
YEAR = r"(?:19[89]\d|20\d\d)"
_MONTH = "(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# Not a year when an amount or a count follows ("for 2030 EUR", "2030 kilometres", "by 2027
# people"): shared with ``docent.versions``, whose past years are read the same way.
NOT_A_YEAR_AFTER = (
    r"(?!\s*(?:[%€$£¥]|(?:eur|euros?|usd|dollars?|gbp|pounds?|chf|francs?|yen|sek|nok|dkk|"
    r"kr|km|kms|kilomet(?:er|re)s?|meters?|metres?|miles?|kg|hours?|hrs?|days?|nights?|weeks?|"
    r"seats?|people|persons?|staff|employees|users|members|units?|items?|pages?|words?)\b))"
)
_MONTH_OF_YEAR = re.compile(
    rf"\b(?:{_DAY}\s+(?:of\s+)?)?({_MONTH})\s+(?:{_DAY},?\s+)?({YEAR})\b{NOT_A_YEAR_AFTER}",
    re.IGNORECASE,
)
_ISO_DATE = re.compile(rf"\b({YEAR})-(\d{{2}})-(\d{{2}})\b")
# Day and month in either order (1/3/2027 is 1 March or 3 January): the span of both.
_NUMERIC_DATE = re.compile(rf"\b(\d{{1,2}})[/.](\d{{1,2}})[/.]({YEAR})\b")
_QUARTER = re.compile(rf"\bQ([1-4])\s*({YEAR})\b", re.IGNORECASE)
_HALF = re.compile(
    rf"\b(?:H([12])\s*|(first|second) half of\s+(?:the\s+year\s+)?)({YEAR})\b", re.IGNORECASE
)
# Words of time a year or a month follows ("in 2028", "from June").
_TIME_WORDS = (
    r"in|during|for|from|by|on|after|until|till|through|throughout|as of|starting|beginning|"
    r"before"
)
# A month without a year after a word of time ("I travel in November"): its next one.
_MONTH_ALONE = re.compile(
    rf"\b(?:{_TIME_WORDS}|since)\s+(?:(?:early|late|mid)[\s-]+)?(?:{_DAY}\s+(?:of\s+)?)?"
    rf"({_MONTH})(?!\s*(?:{_DAY},?\s+)?{YEAR})\b",
    re.IGNORECASE,
)
_PAST = re.compile(r"\b(?:was|were|did|had|used to)\b", re.IGNORECASE)
_THIS_YEAR = re.compile(r"\b(?:this|the current) year\b", re.IGNORECASE)
_SEASON = (
    r"(?:(?:early|late|mid|the (?:start|end|beginning|middle) of|spring|summer|autumn|fall|"
    r"winter)[\s-]+)?"
)
_YEAR_OF_TIME = re.compile(
    rf"\b(?:{_TIME_WORDS}|effective|under)\s+(?:the\s+)?(?:year\s+)?{_SEASON}({YEAR})\b"
    rf"{NOT_A_YEAR_AFTER}",
    re.IGNORECASE,
)
# "the 2027 travel policy": a year before a word naming a version.
_YEAR_OF_VERSION = re.compile(
    rf"\b({YEAR})\s+(?:[a-z-]+\s+)?(?:policy|policies|version|rules?|terms|handbook|"
    r"guidelines?|pricing|prices|rates?|caps?|limits?|budgets?)\b",
    re.IGNORECASE,
)
_NEXT_YEAR = re.compile(r"\bnext year\b", re.IGNORECASE)

Period = tuple[date, date]


def _months(year: int, first: int, last: int) -> Period:
    """From the first day of month ``first`` to the last day of month ``last``."""
    end = date(year + last // 12, last % 12 + 1, 1) - timedelta(days=1)
    return date(year, first, 1), end


def _month(year: int, month: int) -> Period:
    return _months(year, month, month)


def _year(year: int) -> Period:
    return _months(year, 1, 12)


def _day(year: int, month: int, day: int) -> Period | None:
    try:
        when = date(year, month, day)
    except ValueError:
        return None
    return when, when


def asked_periods(question: str, today: date) -> list[Period]:
    """The periods the question names, each as its first and last day, in the question's
    order: a day, a month (a month without a year: its next one from ``today``), a quarter, a
    half, a year, "this year" or "next year"."""
    found: list[tuple[int, Period]] = []
    taken: list[tuple[int, int]] = []  # the spans read, so a year is read once

    def add(match: re.Match[str], period: Period | None) -> None:
        start, end = match.span()
        if any(a < end and start < b for a, b in taken):
            return
        taken.append((start, end))  # a date that is no day ("2027-02-30") is no year either
        if period is not None:
            found.append((start, period))

    for m in _ISO_DATE.finditer(question):
        add(m, _day(int(m.group(1)), int(m.group(2)), int(m.group(3))))
    for m in _NUMERIC_DATE.finditer(question):
        year, a, b = int(m.group(3)), int(m.group(1)), int(m.group(2))
        days = [d for d in (_day(year, b, a), _day(year, a, b)) if d is not None]
        add(m, (min(d[0] for d in days), max(d[1] for d in days)) if days else None)
    for m in _QUARTER.finditer(question):
        quarter = int(m.group(1))
        add(m, _months(int(m.group(2)), 3 * quarter - 2, 3 * quarter))
    for m in _HALF.finditer(question):
        half = 1 if (m.group(1) or "") == "1" or (m.group(2) or "").lower() == "first" else 2
        add(m, _months(int(m.group(3)), 6 * half - 5, 6 * half))
    for m in _MONTH_OF_YEAR.finditer(question):
        add(m, _month(int(m.group(2)), MONTHS[m.group(1).lower().rstrip(".")]))
    past = _PAST.search(question) is not None
    for m in _MONTH_ALONE.finditer(question):
        month = MONTHS[m.group(1).lower().rstrip(".")]
        if past:  # "What was the rate in July?": the last one
            add(m, _month(today.year - (month > today.month), month))
        else:
            add(m, _month(today.year + (month < today.month), month))
    for pattern in (_YEAR_OF_TIME, _YEAR_OF_VERSION):
        for m in pattern.finditer(question):
            add(m, _year(int(m.group(1))))
    for m in _NEXT_YEAR.finditer(question):
        add(m, _year(today.year + 1))
    for m in _THIS_YEAR.finditer(question):
        add(m, _year(today.year))
    return [period for _, period in sorted(found, key=lambda f: f[0])]


def first_later(periods: Sequence[Period], today: date) -> int | None:
    """The year of the first period (``asked_periods``) that ends after ``today`` ("What will
    the hotel cap be in 2027?", "I travel in November", "next year"): a version not yet in
    force may hold then, so retrieval reads the pending versions too."""
    return next((first.year for first, last in periods if last > today), None)


def in_force_during(periods: Sequence[Period], chunk: Chunk) -> bool:
    """Is ``chunk`` of a pending version in force during one of the periods a question names
    (``asked_periods``; for part of it at least: "in 2027" for a version taking effect
    2027-06-01, not "in February 2027")? Then it answers before the current rule, which
    applies until that version takes effect and is quoted beside it."""
    effective = chunk.effective_date
    if chunk.status != "pending" or effective is None:
        return False
    return any(last >= effective for _, last in periods)


# The parts of a year a question may name, each with the group holding its year.
_PARTS_OF_A_YEAR = (
    (_MONTH_OF_YEAR, 2),
    (re.compile(rf"(?<![\w-])({YEAR})-\d{{2}}-\d{{2}}(?![\w-])"), 1),
    (_NUMERIC_DATE, 3),
    (_QUARTER, 2),
    (_HALF, 3),
)
_TIME_WORD_BEFORE = re.compile(rf"(?:\b(?:{_TIME_WORDS}|to|since)\s+(?:the\s+)?)?$", re.IGNORECASE)


def without_parts_of(question: str, year: int) -> str:
    """``question`` without the days, months, quarters and halves of ``year`` it names, each
    with its word of time ("in March 2027", "on 2027-03-01", "in Q3 2027"): for reading its
    meaning, as a year alone is left out (``docent.versions.without_year``; "in March" was
    left behind and the question matched nothing over the bar: a user pass)."""
    out = question
    for pattern, group in _PARTS_OF_A_YEAR:
        for match in reversed(list(pattern.finditer(out))):
            if match.group(group) != str(year):
                continue
            before = _TIME_WORD_BEFORE.search(out[: match.start()])
            start = before.start() if before and before.group(0) else match.start()
            out = out[:start].rstrip() + " " + out[match.end() :].lstrip()
    return out.strip()
