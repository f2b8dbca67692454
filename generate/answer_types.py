"""How well a unit of text carries what a question asks for.

``type_fit(expectation, text)`` scores a candidate unit in [0, 1] against what
``generate.question_types.expect`` read from the question: 1 when it carries the asked type
exactly (a number of days for a "how many days" question), less when it carries only
something near it ("3 months"), 0 when a figure question meets a sentence with no figure at
all.

Pure and deterministic; the weights that turn ``type_fit`` into a choice live in
``generate/unit_scoring.py``.
"""

from __future__ import annotations

import re

from docent.numbers import counting_words
from generate.figures import answer_figures, block_figures
from generate.question_types import TIME_UNITS, TIME_UNITS_STEMS, Expectation
from generate.text import stem

_NUMBER_WORD = rf"(?:\d[\d,.]*|{counting_words()}|a|an|half)"
# "25 days", "two weeks", "30 working days", "3 consecutive days", "5 business days"
_COUNTED = re.compile(
    r"\b" + _NUMBER_WORD + r"(?:[\s-]+(?:working|business|calendar|consecutive|full|paid|extra|"
    r"unused|more|additional|weeks'|days'))*[\s-]+([a-z]+)",
    re.IGNORECASE,
)
# "24 credit hours"; not a rate ("€10 per day", "30 each month").
_COUNTED_TIME = re.compile(
    r"\b\d[\d,.]*[\s-]+(?!(?:per|a|an|each|every|of|in|to|or|and|the|for)\b)[a-z]+[\s-]+("
    + "|".join(sorted(TIME_UNITS))
    + r")\b",
    re.IGNORECASE,
)
_RULE_WORDS = re.compile(
    r"\b(may|must|can|cannot|can't|not|never|only|need|needs|required?|allowed|entitled|"
    r"eligible|prohibited|forbidden|permitted|should|always|no one|nobody|up to|at least|"
    r"within|unless|except)\b",
    re.IGNORECASE,
)
_ROLE_WORDS = re.compile(
    r"\b(team|manager|lead|head|officer|director|controller|owner|people ops|hr|it|legal|"
    r"finance|security|approv\w*|responsible|contact|buddy|committee|board|ceo|cfo|dpo|"
    r"reception|desk|support)\b",
    re.IGNORECASE,
)
_PLACE_WORDS = re.compile(
    r"\b(in|at|on|via|through|from|floor|office|room|app|portal|page|website|kitchen|"
    r"reception|basement|building|folder|system)\b|@|https?://|\.example\b",
    re.IGNORECASE,
)
_PER = re.compile(
    r"\b(?:a|per|each|every)\s+(?:calendar\s+|working\s+|business\s+)?"
    r"(week|month|year|day|night|hour)\b",
    re.IGNORECASE,
)
_FREQUENCY = re.compile(
    r"\b(every|each|per|daily|weekly|fortnightly|monthly|quarterly|annually|yearly|hourly|"
    r"twice|once|times|biweekly|bi-weekly|semi-annually)\b|\ba (day|week|month|year|quarter)\b",
    re.IGNORECASE,
)
# No time at all, in words: an answer to "how quickly" (``Expectation.at_once``).
_AT_ONCE = re.compile(
    r"\b(immediately|at once|straight away|right away|without (undue )?delay|as soon as "
    r"possible|promptly)\b",
    re.IGNORECASE,
)
_PAY = re.compile(r"\b(pay|salary|wage|wages|earnings)\b", re.IGNORECASE)


def counted_units(text: str) -> set[str]:
    """Stemmed nouns the text counts: "25 days of leave" → {"day"}; "€64" → {"€"}; a unit of
    time after one qualifying word too ("24 credit hours" → {"credit", "hour"})."""
    found = {stem(m.group(1)) for m in _COUNTED.finditer(text)}
    found |= {stem(m.group(1)) for m in _COUNTED_TIME.finditer(text)}
    found |= {key.split(":")[1] for key in answer_figures(text) if key.startswith("amt:")}
    if re.search(r"%|\bper ?cent\b", text):
        found.add("%")
    return found


def type_fit(expectation: Expectation, text: str, row: bool = False) -> float:
    """How well ``text`` (a table ``row`` read with its header, or prose) carries what the
    question asks for, in [0, 1]."""
    kind = expectation.kind
    figures = block_figures(text)
    if expectation.superlative is not None and kind in {"other", "who", "where"}:
        # "Which charger is the fastest?" is answered by a row compared on a figure.
        return 1.0 if row and figures else 0.3
    if kind == "quantity":
        if not figures and not _COUNTED.search(text):
            return 0.0
        if not expectation.units:
            return 1.0 if figures else 0.5
        counted = counted_units(text)
        if not counted & expectation.units:
            return 0.35 if figures else 0.1
        if expectation.per is None:
            return 1.0
        pers = {stem(p) for p in _PER.findall(text)}
        if expectation.per in pers:
            return 1.0
        return 0.3 if pers else 0.7
    if kind == "money":
        amounts = [k for k in answer_figures(text) if k.startswith("amt:")]
        if amounts or (figures and _PAY.search(text)):
            return 1.0
        return 0.5 if figures else 0.0
    if kind == "duration":
        counted = counted_units(text)
        if counted & TIME_UNITS_STEMS:
            return 1.0
        if expectation.at_once and _AT_ONCE.search(text):
            # "How quickly do matching contributions vest?" - "They vest immediately."
            return 0.8
        return 0.4 if figures else 0.0
    if kind == "date":
        keys = answer_figures(text)
        if any(k.split(":", 1)[0] in {"date", "day", "month", "time"} for k in keys):
            return 1.0
        if counted_units(text) & TIME_UNITS_STEMS or re.search(
            r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|immediately|"
            r"same day|next|before|after|by)\b",
            text,
            re.IGNORECASE,
        ):
            return 0.8
        return 0.3 if figures else 0.0
    if kind == "frequency":
        # "twice a year", "at the end of every cycle", "weekly": how often, with or without
        # a figure.
        if _FREQUENCY.search(text):
            return 1.0
        return 0.4 if figures else 0.0
    if kind == "yesno":
        return 1.0 if _RULE_WORDS.search(text) else 0.4
    if kind == "who":
        return 1.0 if _ROLE_WORDS.search(text) else 0.3
    if kind == "where":
        return 1.0 if _PLACE_WORDS.search(text) else 0.3
    return 1.0 if _RULE_WORDS.search(text) or figures else 0.6


def wants_figure(expectation: Expectation) -> bool:
    return expectation.kind in {"quantity", "money", "duration", "date", "frequency"}
