"""What a question asks for, and how well a unit of text carries it.

``expect(question)`` reads the question alone (no model): a quantity with the unit it names
("how many days" wants days, "how much … allowance" wants money), a duration, a date or
deadline, a yes/no rule, a who, a where, a how-to, or a policy overview, plus a superlative
over a table ("the fastest charger"). ``type_fit(expectation, text)`` scores a candidate
unit in [0, 1]: 1 when it carries the asked type exactly (a number of days for a "how many
days" question), less when it carries only something near it ("3 months"), 0 when a figure
question meets a sentence with no figure at all.

Both are pure and deterministic; the weights that turn ``type_fit`` into a choice live in
``generate/unit_scoring.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from docent.numbers import counting_words
from generate.figures import answer_figures, block_figures
from generate.text import stem

Kind = Literal[
    "quantity",
    "money",
    "duration",
    "date",
    "frequency",
    "yesno",
    "who",
    "where",
    "howto",
    "overview",
    "other",
]
_OVERVIEW = re.compile(
    r"^(?:what is|what's|whats|what are|tell me about|explain|summari[sz]e|describe|"
    r"give me an overview of)\s+(?:the |our |my |a )?(?:company'?s? )?[\w' -]{2,40}?\s*"
    r"(?:policy|policies|rules|guidelines|procedure|process)\s*\??$",
    re.IGNORECASE,
)

TIME_UNITS = frozenset(
    "minute hour day week month year night minutes hours days weeks months years nights".split()
)
TIME_UNITS_STEMS = frozenset(stem(u) for u in TIME_UNITS)
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
_AUX_START = re.compile(
    r"^(?:so |and |but |ok |okay |hi |hey |also )?(can|could|may|might|do|does|did|is|are|am|"
    r"was|were|will|would|should|must|shall|have|has|had|any chance)\b",
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
_IMPERATIVE = re.compile(
    r"^(submit|request|send|use|book|claim|report|email|call|contact|ask|tell|log|fill|"
    r"attach|complete|open|raise|file|return|keep|lock|upload|register|sign|apply|check|"
    r"follow|notify|inform|write|agree|choose|pick|go|visit|bring|add|get|make|create)\b",
    re.IGNORECASE,
)
_MONEY_HINT = re.compile(
    r"\b(allowance|per diem|budget|stipend|cost|costs|price|prices|fee|fees|pay|paid|salary|"
    r"reimburs\w*|claim|spend|expense|expenses|match|bonus|severance|compensation|money|"
    r"euros?|dollars?|cap|limit|worth|afford|charge|charged)\b|[€$£]",
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
_PAY = re.compile(r"\b(pay|salary|wage|wages|earnings)\b", re.IGNORECASE)
_SUPERLATIVES = {
    "fastest": ("max", ("speed", "power", "kw", "rate", "fast", "charging")),
    "quickest": ("max", ("speed", "power", "kw", "rate", "fast")),
    "slowest": ("min", ("speed", "power", "kw", "rate", "fast")),
    "cheapest": ("min", ("price", "cost", "fee", "rate", "€", "per")),
    "most expensive": ("max", ("price", "cost", "fee", "rate", "€", "per")),
    "highest": ("max", ()),
    "lowest": ("min", ()),
    "largest": ("max", ("size", "capacity", "seats", "people")),
    "biggest": ("max", ("size", "capacity", "seats", "people")),
    "smallest": ("min", ("size", "capacity", "seats", "people")),
    "longest": ("max", ("retention", "period", "duration", "days", "weeks", "months", "years")),
    "shortest": ("min", ("retention", "period", "duration", "days", "weeks", "months", "years")),
    "most": ("max", ()),
    "least": ("min", ()),
    "maximum": ("max", ()),
    "minimum": ("min", ()),
}
_SUPERLATIVE = re.compile(
    r"\b(" + "|".join(sorted(_SUPERLATIVES, key=len, reverse=True)) + r")\b", re.IGNORECASE
)
# A comparison between named rows ("which of the two … pays the bigger allowance") picks a
# row the way a superlative does; only in a "which/what/who/where" question, since "longer
# than 30 days" in a yes/no question compares with a rule, not between rows.
_COMPARATIVES = {
    "faster": "fastest",
    "quicker": "quickest",
    "slower": "slowest",
    "cheaper": "cheapest",
    "more expensive": "most expensive",
    "higher": "highest",
    "lower": "lowest",
    "larger": "largest",
    "bigger": "biggest",
    "greater": "highest",
    "smaller": "smallest",
    "longer": "longest",
    "shorter": "shortest",
}
_COMPARATIVE = re.compile(
    r"^which\b.*?\b(" + "|".join(sorted(_COMPARATIVES, key=len, reverse=True)) + r")\b(?! than)",
    re.IGNORECASE,
)
# A comparison names the rows it compares: "which of …", "A or B", "A and B", "between".
_COMPARED = re.compile(r"^which of\b|\b(or|and|between|versus|vs)\b", re.IGNORECASE)
# Words "how many" can be followed by that are not what is counted ("how many of those").
_NOT_COUNTED = frozenset("of those these them they".split())
# A limit ("what's the maximum I can carry over", "the most I can spend") wants the figure
# the rule sets, in prose or in a row; only "which/who/where …" picks a row by a column.
_LIMIT = re.compile(
    r"\b(maximum|minimum|max|min)\b|\bthe (most|least)(?: [\w'-]+){0,3}? (i|we|you|they|"
    r"an? \w+|employees?|staff|people) (can|may|could|might|am|are|is|get|gets)\b",
    re.IGNORECASE,
)
_PAID_TIME = re.compile(
    r"\b(?:paid|unpaid)\s+(?:\w+\s+){0,2}?(?:leave|time off|holidays?|vacation|pto)\b"
)
# The limit reading is for a question asking for the value ("what's the max …", "how much
# at most …", "is there a cap …"), not for a yes/no or how-to one that mentions a maximum.
_VALUE_QUESTION = re.compile(
    r"(?:^|[,;:-] )(?:so |ok |hi |hey |also )?(?:(?:what|what's|whats)(?: is| are| was)?"
    r"(?: the| our| my)? (?:max|maximum|min|minimum|most|least|cap|limit)\b|how much|how many|"
    r"how long|how far|is there an? (?:max|maximum|min|minimum|cap|limit|upper limit)\b)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Superlative:
    direction: Literal["max", "min"]
    hints: tuple[str, ...]  # words a column header for this superlative tends to hold
    word: str
    between: bool = False  # a comparison ("the bigger"): only between the rows it names


@dataclass(frozen=True)
class Expectation:
    kind: Kind
    units: frozenset[str] = frozenset()  # stemmed unit words the question counts in ("day")
    per: str | None = None  # "week" in "how many days a week"
    superlative: Superlative | None = None


def _last_question(question: str) -> str:
    """The sentence that asks: a scenario often comes first ("A customer wants a refund 3
    weeks after buying. Are we still allowed to give it?")."""
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", question.strip()) if p.strip()]
    asking = [p for p in parts if p.endswith("?")]
    return (asking or parts or [question])[-1]


def expect(question: str) -> Expectation:
    whole = " ".join(question.lower().split())
    asking = " ".join(_last_question(question).lower().split())
    # "What's the most I can spend a night?" asks for a cap, not for a row to be picked.
    limit = bool(_LIMIT.search(asking)) and bool(_VALUE_QUESTION.search(asking))
    superlative = None if limit else _superlative(whole, asking)
    counted = _how_many(whole, superlative)
    if counted is not None:
        return counted
    if re.search(r"\bhow long (must|should|can|does|do|will|would|is|are)\b.*\bbe\b\W*$", whole):
        return Expectation("quantity", frozenset(), None, superlative)  # a length, not a time
    if (
        re.search(r"\bhow (long|soon)\b|\bhow much (time|notice|leave|holiday)\b", whole)
        or re.search(r"^(what|what's|whats)\b.*\b(window|period)\b", asking)
    ) and not re.search(r"\bhow much\b(?! (time|notice|leave|holiday))", whole):
        return Expectation("duration", TIME_UNITS_STEMS, None, superlative)
    if re.search(
        r"^when\b|\bwhen (do|does|did|is|are|was|were|will|would|can|could|must|should|"
        r"have|has)\b|\b(by when|what (time|date|day)|which (date|day)|deadline|how early|"
        r"how late|what hours?|opening hours|until when)\b",
        asking,
    ):
        return Expectation("date", frozenset(), None, superlative)
    if re.search(r"\bwhat (percent|percentage|share|proportion|fraction)\b", whole):
        return Expectation("quantity", frozenset({"%"}), None, superlative)
    if re.search(r"\bhow much of\b", whole):  # a share, or the amount it comes to
        return Expectation("quantity", frozenset({"%", "€", "$", "£"}), None, superlative)
    if re.search(r"\bhow much\b", whole) or re.search(
        r"\b(what|what's|whats|how)\b.{0,30}\b(allowance|per diem|budget|stipend|cost|price|"
        r"fee|rate|cap|limit|salary|bonus|amount|match)\b",
        asking,
    ):
        kind: Kind = "money" if _MONEY_HINT.search(whole) else "quantity"
        return Expectation(kind, frozenset(), None, superlative)
    if limit:  # "paid leave" is time, not money: its limit is in weeks
        unpaid = _PAID_TIME.sub(" ", whole)
        return Expectation("money" if _MONEY_HINT.search(unpaid) else "quantity")
    if re.search(r"\bhow often\b", whole):
        return Expectation("frequency", frozenset(), None, superlative)
    if re.search(r"\bhow (far|old|big|large|fast)\b|\brate\b|\bpercent", whole):
        return Expectation("quantity", frozenset(), None, superlative)
    if re.match(r"^(who|whom|whose)\b|\bwhich (team|person|department|role)\b", asking) or (
        re.search(r"\bwho (do|should|can|must|approves|decides|is)\b", whole)
    ):
        return Expectation("who", frozenset(), None, superlative)
    if re.match(r"^where\b", asking) or re.search(r"\bwhere (do|can|should|is|are)\b", whole):
        return Expectation("where", frozenset(), None, superlative)
    if re.search(r"\bhow (do|can|should|would) (i|we|you)\b|\bhow to\b|\bwhat steps\b", whole):
        return Expectation("howto", frozenset(), None, superlative)
    if _OVERVIEW.match(asking):
        return Expectation("overview", frozenset(), None, superlative)
    if _AUX_START.match(asking) or re.search(r"\b(am i|are we|is it|can i|can we)\b", asking):
        return Expectation("yesno", frozenset(), None, superlative)
    return Expectation("other", frozenset(), None, superlative)


def _how_many(whole: str, superlative: Superlative | None) -> Expectation | None:
    """A count of what "how many" names (per what, when it says so), or a frequency ("how
    many times a year"); None when the question does not ask how many."""
    many = re.search(
        r"how many ((?:[\w'-]+ ){0,2}?[\w'-]+?)(?= (?:do|does|did|can|could|will|would|"
        r"are|is|am|should|must|may|might|have|has|of|per|a|an|each|every|in|on|"
        r"for|i|we|you|they|he|she|it)\b|\?|$)",
        whole,
    )
    if many and re.match(r"times?\b", many.group(1)):
        return Expectation("frequency", frozenset(), None, superlative)  # "how many times a year"
    if many:
        per = re.search(r"\b(?:a|per|each|every) (week|month|year|day|night|km|hour)\b", whole)
        return Expectation(
            "quantity", _counted(many.group(1)), stem(per.group(1)) if per else None, superlative
        )
    return None


def _superlative(whole: str, asking: str) -> Superlative | None:
    found = _SUPERLATIVE.search(whole)
    compared = None if found or not _COMPARED.search(asking) else _COMPARATIVE.search(asking)
    if found:
        word = found.group(1).lower()
    elif compared:
        word = _COMPARATIVES[compared.group(1).lower()]
    else:
        return None
    direction, hints = _SUPERLATIVES[word]
    return Superlative(direction, hints, word, between=compared is not None)  # type: ignore[arg-type]


def _counted(words: str) -> frozenset[str]:
    """What "how many …" counts: a unit of time among the words that follow ("days off
    sick" counts days), else the last of them ("annual leave days"); nothing for a pronoun
    ("how many of those")."""
    stems = [stem(w) for w in words.split() if w not in _NOT_COUNTED]
    timed = [w for w in stems if w in TIME_UNITS_STEMS]
    if timed:
        return frozenset(timed[:1])
    return frozenset(stems[-1:])


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
    if kind == "howto":
        first = text.lstrip("-*• ").strip()
        return 1.0 if _IMPERATIVE.match(first) or _RULE_WORDS.search(text) else 0.5
    return 1.0 if _RULE_WORDS.search(text) or figures else 0.6


def wants_figure(expectation: Expectation) -> bool:
    return expectation.kind in {"quantity", "money", "duration", "date", "frequency"}
