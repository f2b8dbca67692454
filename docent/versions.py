"""Questions about a past version of a policy ("under the 2022 policy", "the old rule",
"before March 2024"), shared by retrieval (which then keeps the named version's chunks in
view) and the answerer (which then answers from that version, marked superseded, with the
current rule beside it). Without such a request, superseded text is never the answer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from docent.contracts import Chunk, Hit
from docent.numbers import counting_words
from docent.periods import NOT_A_YEAR_AFTER, YEAR, without_parts_of

_YEAR = re.compile(rf"\b({YEAR})\b")
# A year that dates something, not an amount or a count ("a refund of 2022 euros", "2019 EUR"
# read as the 2022 policy gave its approval limit as a checked answer).
_DATING_YEAR = re.compile(rf"(?<![€$£¥])\b({YEAR})\b{NOT_A_YEAR_AFTER}", re.IGNORECASE)
# "old", "former" before a person or a thing of the asker's ("my former manager's limit",
# "the previous owner of this policy", "my old laptop") name no version.
_NOT_A_VERSION = (
    r"(?!\s+(?:[\w'-]+\s+)?(?:employees?|colleagues?|managers?|boss|customers?|clients?|"
    r"co-?workers?|team leads?|owners?|supervisors?|contractors?|jobs?|roles?|employers?|"
    r"compan(?:y|ies)|address|laptops?|phones?|accounts?)\b)"
)
# "used to" as a past habit ("what we used to pay"), not a use ("can be used to access").
_USED_TO = r"(?<!\bbe )(?<!\bis )(?<!\bare )used to"
# Words that name an earlier version by themselves (``_EARLIER_VERSION``).
_EARLIER = (
    r"last year's|outdated|superseded|archived|before the (?:change|update|new|current|latest)"
)
# "original" only before a word naming a version: "the original payment method" or "the
# original receipt" asks for today's rule.
_OLDER = re.compile(
    rf"\b(?:(?:old|older|previous|prior|former|earlier){_NOT_A_VERSION}|{_EARLIER}|{_USED_TO}|"
    r"was it|were they|"
    r"original (?:[\w-]+ )?(?:version|policy|policies|rules?|terms|wording|text|statement|"
    r"handbook|guidelines?))\b",
    re.IGNORECASE,
)
# "old" in an age ("my 12 year old", "a six-month-old", "how old must I be") asks for no
# version.
_AGE = re.compile(
    rf"\b(?:(?:\d[\d.]*|an?|{counting_words()}|few|several)[\s-]+"
    r"(?:years?|months?|weeks?|days?)[\s-]+old|how old|old enough)\b",
    re.IGNORECASE,
)
# "before March 2024", "before the 2025 refunds policy", "prior to 2023", "the pre-2020
# terms": the version in force before that year.
# Words that name a document's version.
_NOUNS = r"(?:policy|policies|version|rules?|terms|statement|guidelines?|handbook|pricing|plan)"
_BEFORE = re.compile(
    r"\b(?:before|prior to)\s+(?:the\s+)?(?:(?:january|february|march|april|may|june|"
    rf"july|august|september|october|november|december)\s+)?({YEAR})\b"
    # "the pre-2020 terms", "pre-2020 GitHub terms" (not "hired pre-2020", "pre-2020 laptops").
    rf"|\bpre[- ]?({YEAR})\s+(?:[\w'-]+\s+){{0,2}}?{_NOUNS}\b",
    re.IGNORECASE,
)
_VERSIONISH = re.compile(
    rf"\b({_NOUNS}|prices?|plans|in|under|from|of|back|was|were)\b", re.IGNORECASE
)
# A year that names a document's version: "the 2019 terms", "2022 policy", "the policy of 2021".
_DATED = re.compile(
    rf"\b{YEAR}\s+(?:\w+\s+)?{_NOUNS}\b|\b{_NOUNS}\s+(?:of|from)\s+{YEAR}\b",
    re.IGNORECASE,
)

# The question itself is in the past tense ("What were the hotel caps in 2019?", "How much
# was …", "Did …"): a year in it names the rule in force then, as "the 2019 policy" does.
# Only the asking verb counts, within three words of the question word, so "What leave do
# I get if I was hired in 2019?" still asks for today's rule.
# A year put first ("In 2019, what were …") counts; a clause about the asker ("What if I
# was hired in 2019?") does not.
_ASKING = r"(?:what|which|who|when|where|why|how(?:\s+(?:much|many|long|often|far))?)\s+"
_NOT_ASKER = r"(?!(?:if|when|whether|i|we|you|they|he|she|since|because|after|before)\b)"
_PAST_ASK = re.compile(
    rf"^\W*(?:(?:back\s+)?in\s+{YEAR}\s*,?\s*)?"
    rf"(?:{_ASKING}(?:{_NOT_ASKER}[\w'-]+\s+){{0,3}})?(?:was|were|did|{_USED_TO})\b",
    re.IGNORECASE,
)
# A past-tense main verb other than those, with the year ending the question ("What hotel
# caps applied in 2019?", "Which plans existed in 2022?", "What per diem applied to Lisbon
# in 2023?"); a participle about the asker's case leaves more to ask ("What expenses
# incurred in 2019 can I claim?").
# A present passive is not past ("What receipts are required in 2024?").
_PASSIVE = r"(?!(?:is|are|am|be|been|being|get|gets)\b)"
_PAST_VERB_YEAR = re.compile(
    rf"^\W*{_ASKING}(?:{_NOT_ASKER}{_PASSIVE}[\w'-]+\s+){{0,3}}[a-z]+ed\s+"
    rf"(?:(?:to|for|at|on)\s+(?:[\w'-]+\s+){{1,3}})?(?:back\s+)?(?:in|during)\s+{YEAR}\W*$",
    re.IGNORECASE,
)
# A year in a clause the asker is the subject of ("I bought the Team plan in 2022, can I get
# a refund?", "if I was hired in 2019") dates their own case, not a version (a user pass got
# the 2022 refund policy's approval limits as a checked answer); "our refund policy in 2022"
# still names one.
_ASKER_EVENT = re.compile(
    r"\b(?:i|we)\s+(?:(?:was|were|had|have|'ve|just|first)\s+)?"
    r"(?:[a-z]+ed|bought|began|got|left|took|went|paid|made|met|sold|spent|came|became|"
    rf"joined)\b[^.?!,;]{{0,60}}?\b(?:in|during|since|back in)\s+({YEAR})\b",
    re.IGNORECASE,
)
# A year in a statement before the question ("My contract was signed in 2022; how long do
# refunds take?", "Our office opened in 2021, what is the hotel cap?") sets the asker's
# scene, not a version (a user pass got the 2022 refund rule, superseded, as a checked
# answer); a frame opening with a preposition ("In 2023, what was …?", "Under Pricing 2023,
# how much …?") still dates the question.
_CLAUSE_BREAK = re.compile(
    rf"[;.!?]\s+|,\s+(?={_ASKING}|(?:can|could|do|does|did|is|are|was|were|may|should|"
    r"will|would|must|how)\b)",
    re.IGNORECASE,
)
_TIME_FRAME = re.compile(
    r"^\W*(?:back\s+)?(?:in|during|under|for|from|per|according to|as of|at|on|by)\b",
    re.IGNORECASE,
)
_ASKS = re.compile(rf"^\W*(?:{_ASKING}|(?:was|were|did|is|are|do|does)\b)", re.IGNORECASE)


def _scene_years(question: str) -> set[str]:
    """The years of the statements before the question's last clause."""
    parts = _CLAUSE_BREAK.split(question)
    return {
        year
        for part in parts[:-1]
        if not (_TIME_FRAME.match(part) or _ASKS.match(part))
        for year in _YEAR.findall(part)
    }


# "original" alone names a version in a question asked in the past tense ("What was the
# original refund window?"), not in today's ("the original payment method").
_ORIGINAL = re.compile(r"\boriginal\b", re.IGNORECASE)
# An earlier version of a rule, named as such: "the old Tier 1 hotel cap", "the previous
# refund window", "our former travel policy".
_OLD_RULE = re.compile(
    # "GitHub's old terms": a name's, not "What's", "the customer's previous plan".
    r"(?:\b(?:the|our|my|its|their)|(?-i:\b(?!(?:What|Who|It|That|There|Here|Where|How|"
    r"When|Let)'s)[A-Z][\w-]*)'s)\s+(?:old|older|previous|prior|former|earlier|original)\s+"
    # A measure right after the word only ("the old amount of time"; not "prior approval if
    # the amount changes", "the prior written notice period").
    r"(?:amount|period|deadline|(?:[\w-]+\s+){0,3}?"
    r"(?:policy|policies|version|rules?|terms|caps?|limits?|rates?|prices?|pricing|window|"
    r"allowance|budget|plan|plans|wording|statement|page|list))\b",
    re.IGNORECASE,
)
# Words that name an earlier version by themselves: "the archived terms", "what we used to
# pay", "before the change" ("can be used to access" is no version).
_EARLIER_VERSION = re.compile(rf"\b(?:{_EARLIER}|(?<!\bI ){_USED_TO})\b", re.IGNORECASE)
# A year in a question about the future ("What will the hotel cap be in 2027?") names no
# past version.
_FUTURE = re.compile(r"\b(?:will|won't|going to|upcoming|next year)\b", re.IGNORECASE)


@dataclass(frozen=True)
class VersionRequest:
    """``year``: a year the question names; ``before``: the version in force before that
    year; ``older``: the question asks for an earlier version without naming one."""

    year: int | None = None
    before: int | None = None
    older: bool = False
    dated: bool = False  # the year names a version ("the 2019 terms"), not an event
    # "the old Tier 1 hotel cap": an earlier version of a rule named as such, not "my old
    # job" or "prior written notice" (``_OLD_RULE``).
    old_rule: bool = False

    @property
    def explicit(self) -> bool:
        """Names its version plainly: by a date ("before 2025", "the 2019 terms") or as an
        earlier version of a rule ("the old refund policy"); not a year in a question in
        the present tense ("Which public holidays are there in 2026?")."""
        return self.before is not None or (self.year is not None and self.dated) or self.old_rule


def version_request(question: str) -> VersionRequest | None:
    """The past version a question asks about, or None for the ordinary (current) question."""
    before = _BEFORE.search(question)
    if before:
        return VersionRequest(before=int(before.group(1) or before.group(2)), older=True)
    dated = _DATED.search(question)  # "the 2022 policy": a version, whatever the tense
    named = dated is not None
    asker = {m.group(1) for m in _ASKER_EVENT.finditer(question)} | _scene_years(question)
    # The version's own year first ("I joined in 2019; what did the 2021 policy say?").
    own = _YEAR.findall(dated.group(0)) if dated is not None else []
    years = [int(y) for y in [*own, *_DATING_YEAR.findall(question)] if y in own or y not in asker]
    past = bool(_PAST_ASK.search(question) or _PAST_VERB_YEAR.search(question))
    older = bool(_OLDER.search(_AGE.sub(" ", question))) or (
        past and bool(_ORIGINAL.search(question))
    )
    if years and _VERSIONISH.search(question) and (named or not _FUTURE.search(question)):
        return VersionRequest(year=years[0], older=older, dated=named or past)
    # Without a date, only a version named as such: "old", "prior", "former" or "was it"
    # alone are as often about the asker's case ("a former employee's manager", "prior
    # approval", "my old laptop": a user pass got the 2022 refund rules as checked answers).
    old_rule = bool(_OLD_RULE.search(question))
    if older and (old_rule or _EARLIER_VERSION.search(question) or past):
        return VersionRequest(older=True, old_rule=old_rule)
    return None


def without_year(question: str, later: int | None = None) -> str:
    """``question`` without the year it dates a past version by ("What was the hotel cap in
    2023?" → "What was the hotel cap?"), for reading its meaning: a year shared with a
    document's title ("Pricing 2023") outweighs the topic for the bundled embedder, while
    which version was in force that year is read from the documents' dates. Unchanged when
    it dates no past version (an asker's own year, a present-tense year that may be a
    document's own: "When is St Brigid's Day in 2026?"), or names more than one year or a
    span ("2023-24"), where which year is the version's is not read here. ``later``: a year
    after today's the question names (``docent.periods.first_later``), read from the
    versions' dates as well ("What will the mileage rate be in 2028?" meets today's rule and
    the pending one alike)."""
    request = version_request(question)
    if later is not None:
        year = later
    elif request is None or request.year is None or not request.dated:
        return question
    else:
        year = request.year
    # "on 2027-03-01", "in March 2027" are parts of that year, not a span of years.
    undated = without_parts_of(question, year)
    if undated != question and not _YEAR.search(undated):
        return _tidy(undated) or question
    if len(_YEAR.findall(undated)) != 1 or re.search(rf"\b{YEAR}\s*[-–/]\s*\d", undated):
        return question
    stripped = re.sub(
        rf"\s*(?:\b(?:back |as )?(?:in|of|for|during|from|since|as of)\s+)?"
        rf"\(?\b{year}\b\)?",
        "",
        undated,
        count=1,
        flags=re.IGNORECASE,
    )
    return _tidy(stripped) or question


def _tidy(question: str) -> str:
    """``question`` with no space before its punctuation, nothing dangling at its start;
    empty when nothing but punctuation is left."""
    tidied = re.sub(r"\s+([?.!,;])", r"\1", question).strip().lstrip(",;: ")
    tidied = re.sub(r",(?=[?.!])", "", tidied)
    return tidied if tidied.strip(" ?.!,") else ""


def version_missing(request: VersionRequest, current: Chunk) -> bool:
    """Does the request name a version older than ``current`` (the current document that
    answers), so that the current rule would answer another version than the one asked?
    Only for a request by date: "before 2025", "the 2019 terms". An undated current
    document is taken as later; and for an earlier version of a rule named as such ("What
    was the old Tier 1 hotel cap?" got today's cap as a checked answer), not for any "old",
    "prior" or "used to" (read too loosely: "my old job", "prior written notice", "be used to
    access" - transfer.md, change set 28)."""
    effective = current.effective_date
    if request.before is not None:
        return effective is None or effective.year >= request.before
    if request.year is not None and request.dated:
        return effective is None or effective.year > request.year
    return request.old_rule


def names_version(
    request: VersionRequest, chunk: Chunk, successor_effective: date | None = None
) -> bool:
    """Is ``chunk`` from the superseded version the request names? Only superseded chunks
    qualify: a current document of the named year is simply the current answer. A year
    names the version in force that year, for all of it or a part: the one whose name
    holds the year, or whose effective date is at or before it while its successor (when
    known) took effect after the year's first day ("In 2020 ..." reads the 2019 terms,
    replaced that November, beside today's)."""
    if chunk.status != "superseded":
        return False
    effective: date | None = chunk.effective_date
    if request.year is not None:
        if str(request.year) in f"{chunk.source} {chunk.title or ''}":
            return True
        if effective is None or effective.year > request.year:
            return False
        return successor_effective is None or successor_effective > date(request.year, 1, 1)
    if request.before is not None:
        return effective is None or effective.year < request.before
    return request.older


def asked_version(request: VersionRequest, hits: Sequence[Hit]) -> Callable[[Chunk], bool]:
    """Is a chunk of the superseded version ``request`` names (``names_version``), its
    successor's effective date read among ``hits``?"""
    effective = {hit.chunk.source: hit.chunk.effective_date for hit in hits}
    return lambda chunk: names_version(request, chunk, effective.get(chunk.superseded_by or ""))


def in_force_all_year(request: VersionRequest, hits: Sequence[Hit]) -> Callable[[Chunk], bool]:
    """Is a chunk of the superseded version in force for the whole year ``request`` gives:
    its name holds the year, or its successor (its date read among ``hits``) took effect
    after that year? A year in a question of any tense names such a version ("In early 2020,
    could a developer in Iran use private repositories?"); a version replaced within the
    year it gives is not named by the year alone ("In 2026, can a developer in Iran ...?"
    asks about today's page, in force since March 2026)."""
    effective = {hit.chunk.source: hit.chunk.effective_date for hit in hits}

    def whole_year(chunk: Chunk) -> bool:
        successor = effective.get(chunk.superseded_by or "")
        if request.year is None or not names_version(request, chunk, successor):
            return False
        if str(request.year) in f"{chunk.source} {chunk.title or ''}":
            return True
        return successor is not None and successor > date(request.year, 12, 31)

    return whole_year


def current_successor(chunk: Chunk, hits: Sequence[Hit]) -> str | None:
    """The document that replaced ``chunk``'s, followed through the versions among ``hits``
    to the one not superseded itself (2022 → 2023 → 2025: the 2025 policy is the rule now);
    the last one known when the chain leaves the hits."""
    replaced_by = {h.chunk.source: h.chunk.superseded_by for h in hits if h.chunk.superseded_by}
    successor, seen = chunk.superseded_by, {chunk.source}
    while successor in replaced_by and successor not in seen:
        seen.add(successor)
        successor = replaced_by[successor]
    return successor
