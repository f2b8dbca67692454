"""What a question asks for, read from the question alone (no model): a quantity with the
unit it names ("how many days" wants days, "how much … allowance" wants money), a duration, a
date or deadline, a yes/no rule, a who, a where, or a policy overview, plus a
superlative over a table ("the fastest charger"). Each reading is a named question-phrase
rule (``RULES``); ``generate/answer_types.py`` scores how well a unit carries what is asked.

Pure and deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from generate.text import collapse_space, stem

Kind = Literal[
    "quantity",
    "money",
    "duration",
    "date",
    "frequency",
    "yesno",
    "who",
    "where",
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

_AUX_START = re.compile(
    r"^(?:so |and |but |ok |okay |hi |hey |also )?(can|could|may|might|do|does|did|is|are|am|"
    r"was|were|will|would|should|must|shall|have|has|had|any chance)\b",
    re.IGNORECASE,
)

_MONEY_HINT = re.compile(
    r"\b(allowance|per diem|budget|stipend|cost|costs|price|prices|fee|fees|pay|paid|salary|"
    r"reimburs\w*|claim|spend|expense|expenses|match|bonus|severance|compensation|money|"
    r"euros?|dollars?|cap|limit|worth|afford|charge|charged)\b|[€$£]",
    re.IGNORECASE,
)

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
    # "How quickly …?" is answered by a span or by "immediately"; "how long …?" by a span.
    at_once: bool = False


def _last_question(question: str) -> str:
    """The sentence that asks: a scenario often comes first ("A customer wants a refund 3
    weeks after buying. Are we still allowed to give it?")."""
    parts = [p.strip() for p in re.split(r"(?<=[.!?])\s+", question.strip()) if p.strip()]
    asking = [p for p in parts if p.endswith("?")]
    return (asking or parts or [question])[-1]


# A rule's reading: (the question, its asking sentence, whether it asks for a limit's value)
# -> what it asks for, or None when the rule does not match.
Reading = Callable[[str, str, bool], "Expectation | None"]


def _length(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.search(r"\bhow long (must|should|can|does|do|will|would|is|are)\b.*\bbe\b\W*$", whole):
        return Expectation("quantity")  # a length, not a time
    return None


def _duration(whole: str, asking: str, limit: bool) -> Expectation | None:
    if (
        re.search(
            r"\bhow (long|soon|quickly|fast)\b|\bhow much (time|notice|leave|holiday)\b", whole
        )
        or re.search(r"^(what|what's|whats)\b.*\b(window|period)\b", asking)
    ) and not re.search(r"\bhow much\b(?! (time|notice|leave|holiday))", whole):
        at_once = bool(re.search(r"\bhow (quickly|fast)\b", whole))
        return Expectation("duration", TIME_UNITS_STEMS, at_once=at_once)
    return None


def _date(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.search(
        r"^when\b|\bwhen (do|does|did|is|are|was|were|will|would|can|could|must|should|"
        r"have|has)\b|\b(by when|what (time|date|day)|which (date|day)|deadline|how early|"
        r"how late|what hours?|opening hours|until when)\b",
        asking,
    ):
        return Expectation("date")
    return None


def _percent(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.search(r"\bwhat (percent|percentage|share|proportion|fraction)\b", whole):
        return Expectation("quantity", frozenset({"%"}))
    return None


def _amount(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.search(r"\bhow much\b", whole) or re.search(
        r"\b(what|what's|whats|how)\b.{0,30}\b(allowance|per diem|budget|stipend|cost|price|"
        r"fee|rate|cap|limit|salary|bonus|amount|match)\b",
        asking,
    ):
        return Expectation("money" if _MONEY_HINT.search(whole) else "quantity")
    return None


def _limit(whole: str, asking: str, limit: bool) -> Expectation | None:
    if not limit:
        return None
    unpaid = _PAID_TIME.sub(" ", whole)  # "paid leave" is time, not money: its limit is in weeks
    return Expectation("money" if _MONEY_HINT.search(unpaid) else "quantity")


def _who(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.match(r"^(who|whom|whose)\b|\bwhich (team|person|department|role)\b", asking) or (
        re.search(r"\bwho (do|should|can|must|approves|decides|is)\b", whole)
    ):
        return Expectation("who")
    return None


def _where(whole: str, asking: str, limit: bool) -> Expectation | None:
    if re.match(r"^where\b", asking) or re.search(r"\bwhere (do|can|should|is|are)\b", whole):
        return Expectation("where")
    return None


def _overview(whole: str, asking: str, limit: bool) -> Expectation | None:
    return Expectation("overview") if _OVERVIEW.match(asking) else None


def _yesno(whole: str, asking: str, limit: bool) -> Expectation | None:
    if _AUX_START.match(asking) or re.search(r"\b(am i|are we|is it|can i|can we)\b", asking):
        return Expectation("yesno")
    return None


# The readings of the rules after the two read first (a superlative, and "how many", which
# decides alone), in the order they are tried.
_RULE_READINGS: dict[str, Reading] = {
    "length": _length,  # "how long must it be": a length, not a time
    "duration": _duration,  # "how long", "how soon", "what is the window"
    "date": _date,  # "when", "by when", "deadline", "what hours"
    "percent": _percent,  # "what percentage"
    "amount": _amount,  # "how much", "what is the allowance": money, else a quantity
    "limit": _limit,  # "what's the most I can spend": a limit's figure, never a row picked
    "who": _who,  # "who approves", "which team"
    "where": _where,  # "where do I"
    "overview": _overview,  # "what is the travel policy"
    "yesno": _yesno,  # "can I", "do we", "am I allowed": a rule
}

# The question-phrase rules ``expect`` reads a question with, each by name, in the order
# they are tried: the first that matches says what the question asks for ("other" when none
# does). ``evals/rule_ablation.py`` measures each one's worth leave one corpus out by reading
# the cases without it; a deployment or a fit may read with a subset (``ExtractiveGenerator``).
# Each rule here made some held-out corpus worse when left out (evals/reports/
# rule_ablation.md); `length` only when read with the rest, but without it "How long must a
# password be?" is read as a duration and drafts "within 5 business days"
# (tests/evals/test_hostile.py). Four that changed no fold or only helped were removed: "how
# much of" as a share, "how often" as a frequency ("how many times" still is one), "how far /
# old / big" as a measure, and "how do I" as a how-to.
RULES = (
    "superlative",  # "the fastest charger", "which of the two … pays more": a row to pick
    "how_many",  # a count of what "how many" names, per what it says
    *_RULE_READINGS,
)
ALL_RULES = frozenset(RULES)


def expect(question: str, rules: frozenset[str] = ALL_RULES) -> Expectation:
    """What ``question`` asks for, read with the named ``rules`` (``RULES``; all of them by
    default): the first rule that matches decides."""
    whole = collapse_space(question.lower())
    asking = collapse_space(_last_question(question).lower())
    # "What's the most I can spend a night?" asks for a cap, not for a row to be picked.
    limit = (
        "limit" in rules and bool(_LIMIT.search(asking)) and bool(_VALUE_QUESTION.search(asking))
    )
    superlative = None if limit or "superlative" not in rules else _superlative(whole, asking)
    counted = _how_many(whole, superlative) if "how_many" in rules else None
    if counted is not None:
        return counted
    for rule, reading in _RULE_READINGS.items():
        if rule in rules and (found := reading(whole, asking, limit)) is not None:
            return replace(found, superlative=superlative)
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
