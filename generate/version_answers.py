"""How a past or pending version's answer reads (``generate/extractive.py``): what it quotes
of that version and of the current one beside it, each labelled with its status and
effective date."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docent.contracts import Hit, Outcome
from docent.versions import VersionRequest, asked_version
from generate.companions import continuation
from generate.names import capitalised_names, capitalised_words, holds_name
from generate.outcomes import CURRENT_LABEL, answered
from generate.question_types import Expectation
from generate.quoting import cite, under_heading
from generate.table_answers import rows_asked
from generate.text import content_words
from generate.unit_scoring import ACROSS_SECTIONS_SHARE, Scored, counterpart


def version_quote(
    scored: Scored, pool: Sequence[Scored], question: str, expectation: Expectation
) -> str | None:
    """What a version's answer quotes: the unit with the sentence that goes on with it
    (``companions.continuation``: "It adds audit logs, …"); or for a table row the header
    and the rows the question asks about (``rows_asked``: "Which plans were offered in
    2024?" quoted one plan's row); None when those are too many to quote."""
    unit = scored.unit
    block = [s for s in pool if s.unit.hit is unit.hit]
    if unit.header is None:
        follows = continuation(scored, block, expectation)
        return " ".join([unit.text, *(s.unit.text for s in follows)])
    rows = rows_asked(scored, block, question)
    return None if rows is None else "\n".join([unit.header, *(s.unit.text for s in rows)])


def labelled_versions(parts: Sequence[tuple[Scored, str, str]], hits: Sequence[Hit]) -> Outcome:
    """One line per version, ``(unit, label, quote)``: "Under the superseded version
    (effective 2023-01-01): …", a sentence opening "It …" under its heading, a table's
    header on the label's line (the checks read each line as a claim; a label alone on its
    line is none)."""
    answer: list[str] = []
    quotes: list[tuple[str, str]] = []
    for scored, label, text in parts:
        chunk = scored.unit.hit.chunk
        when = f" (effective {chunk.effective_date.isoformat()})" if chunk.effective_date else ""
        shown = text if scored.unit.header else under_heading(text, scored.unit)
        answer.append(f"{label}{when}: {cite(shown, chunk.chunk_id)}")
        quotes.append((chunk.chunk_id, text))
    return answered("\n".join(answer), quotes, hits)


def now_beside(
    first: Scored,
    candidates: Sequence[Scored],
    pool: Sequence[Scored],
    question: str,
    expectation: Expectation,
    *,
    same_document: bool = True,
) -> tuple[Scored, str] | None:
    """The current unit to quote beside ``first`` (a past or pending version's), with its
    quote: the candidate that says what ``first`` says in the same section, else in another
    section (a higher share of words, and every name ``first`` gives: "The Team plan costs
    …" is not the Business plan's rule), else — when the candidates are of ``first``'s own
    document (its successor) — the same section's closest unit. Never another part's
    nearest sentence quoted as the rule now (another document's "Hotels" section is not the
    same part). ``pool``: every scored unit of the current passages (what a quote may run
    on into)."""
    section = first.unit.hit.chunk.heading_path[1:]
    same_part = [s for s in candidates if s.unit.hit.chunk.heading_path[1:] == section]
    names = capitalised_names(first.unit.text)
    named = [s for s in candidates if all(holds_name(s.unit.text, n) for n in names)]
    now = (
        counterpart(first, same_part)
        or counterpart(first, named, ACROSS_SECTIONS_SHARE)
        or (max(same_part, key=lambda s: s.score, default=None) if same_document else None)
    )
    quote = None if now is None else version_quote(now, pool, question, expectation)
    return None if now is None or quote is None else (now, quote)


def beside(
    first: tuple[Scored, str, str],
    now: tuple[Scored, str] | None,
    hits: Sequence[Hit],
    now_label: str = CURRENT_LABEL,
) -> Outcome:
    """``first`` (unit, label, quote) and, on the next line, ``now_label`` with ``now``
    (``now_beside``); ``first`` alone without it."""
    parts = [first]
    if now is not None:
        parts.append((now[0], now_label, now[1]))
    return labelled_versions(parts, hits)


def unmentioned_names(
    question: str, version_hits: Sequence[Hit], other_hits: Sequence[Hit]
) -> list[str]:
    """The names of another version's passages (capitalised words inside a sentence) that
    the question gives, in any case, and no passage of the version asked about holds: "What
    did the Enterprise plan cost in 2023?" got the 2023 Business plan's price, checked — the
    2023 price list has no Enterprise plan; today's has. A name is not reworded the way other
    words are, so its absence says that version does not cover what is asked."""
    version_text = " ".join(
        " ".join([h.chunk.title or "", *h.chunk.heading_path, h.chunk.text]) for h in version_hits
    )
    names = {name for hit in other_hits for name in capitalised_names(hit.chunk.text)}
    return sorted(n for n in names if holds_name(question, n) and not holds_name(version_text, n))


# The lead today's nearest unit needs over the old quote's rule today (``now_beside``) when
# the old version's retrieved passages hold no counterpart of it. Hand-set from one user
# pass's four questions on the sample's refund policies: the wrong answer's lead 0.09, three
# right answers' 0.01-0.02 (today's "After 30 days, …" and "within 30 days" nearly tied for
# "the window").
SILENT_GAP = 0.05


def silent_then(
    nearest: Scored | None, old: Scored, now: Scored | None, old_units: Sequence[Scored]
) -> bool:
    """Whether the version asked about is silent on what is asked: today's unit nearest the
    question (``nearest``: the highest score, of whatever type) is nearer it than the old
    quote (``old``), leads the old quote's rule today (``now``, ``now_beside``) by more than
    ``SILENT_GAP``, and says a thing none of the old version's units (``old_units``: those of
    its retrieved passages, so a section not retrieved reads as silent too) does.
    "Under the 2022 refunds policy, could a customer get money back after the refund window
    if we had an outage?" quoted the 2022 window, checked (a user pass): today's rule on a
    service failure has no 2022 counterpart; "… could marketplace add-ons be refunded?"
    likewise (today's list of non-refundable items). Today's *answer* would be the window for
    both (a unit with a rule word is preferred), so it is the nearest unit that tells what
    is asked. Without ``now`` there is no lead to read, and an old quote nearer the question
    than anything today says is the version's own answer (a review: a new rule today beside
    the reworded old one refused the old one's right answer)."""
    if nearest is None or now is None or nearest.score <= old.score:
        return False
    return nearest.score - now.score > SILENT_GAP and counterpart(nearest, old_units) is None


# Words that say what kind of document a title names, by kind (a privacy "policy" is often
# called a "statement" or a "notice"; "terms" an "agreement").
_KIND_WORDS = {
    "statement": "statement policy policies notice",
    "terms": "terms agreement conditions",
    "handbook": "handbook guide guidelines manual",
    "pricing": "pricing prices",
}
_KINDS = {word: kind for kind, words in _KIND_WORDS.items() for word in content_words(words)}
# A document the question names: "the GitHub terms of service", "the 2019 privacy statement"
# (not "up to what price", "under what conditions": words of the question, not a title).
_NAMED_DOCUMENT = re.compile(
    r"\bthe\s+(?:[\w'’-]+\s+){0,3}?(" + "|".join(" ".join(_KIND_WORDS.values()).split()) + r")\b",
    re.IGNORECASE,
)


def version_hits(request: VersionRequest, question: str, hits: Sequence[Hit]) -> list[Hit]:
    """The hits of the superseded version ``request`` names, of the document the question
    names (``of_another_document``)."""
    in_asked = asked_version(request, hits)
    titles = [_title_words(h) for h in hits]
    # Title words most of the passages' titles share ("GitHub") tell no document apart.
    common = {w for t in titles for w in t if 2 * sum(w in u for u in titles) > len(titles)}
    return [h for h in hits if in_asked(h.chunk) and not of_another_document(question, h, common)]


def of_another_document(question: str, hit: Hit, common: set[str]) -> bool:
    """Does the question name a document of another kind than ``hit``'s title ("the GitHub
    terms of service" against "GitHub Privacy Statement") and share no word with that title
    but ``common`` ones (most titles among the passages have "GitHub")? "In 2020 what did
    the GitHub terms of service say about advertising?" was answered, checked, from the 2019
    privacy statement (the terms were not among the passages found); "the 2022 refund
    terms" still names the "Refunds Policy 2022"."""
    named = {
        _KINDS[w]
        for m in _NAMED_DOCUMENT.finditer(question)
        for w in content_words(m.group(1))
        if w in _KINDS
    }
    own_words = _title_words(hit)
    own = {_KINDS[w] for w in own_words if w in _KINDS}
    if not named or not own or named & own:
        return False
    return not (own_words - common) & content_words(question)


def _title_words(hit: Hit) -> set[str]:
    chunk = hit.chunk
    return content_words(chunk.title or (chunk.heading_path[0] if chunk.heading_path else ""))


# How far a past version's quote must lead the other units of its own passage to be shown
# as that version's answer. Hand-set on the past-version drafts of the dev splits and of two
# user passes' diagnostic sets: 10 of their 13 wrong drafts led by 0-0.16 (another sentence
# of the right section), 28 of 33 right ones by 0.2 or more. With it (a band or a table's
# row the question picks exempt): the diagnostic sets' 59 questions shown wrong 8 -> 4,
# right 18 -> 16; no dev row moved (evals/reports/transfer.md, change set 53). Such an
# answer is shown without the answer gate, which reads these drafts low right or wrong (the
# version asked about ranks below today's; its copy of a rule leaves no margin: session 17).
PAST_QUOTE_LEAD = 0.2


def stands_out(old: Scored, old_units: Sequence[Scored], quote: str) -> bool:
    """Whether the quote chosen from the version asked about (``old``, quoted as ``quote``)
    leads every other unit of its own passage (among ``old_units``, the version's scored
    units) that the quote leaves out by ``PAST_QUOTE_LEAD``; a passage of one unit, or a
    table quoted whole, has nothing to confuse it with. Below it, the passage's sentences
    are too close to tell which one answers: "According to the 2019 Terms of Service, within
    how many days of cancellation did I need to ask for a copy of my account contents?"
    quoted the deletion sentence beside "make this request within 90 days" (a user pass)."""
    rivals = [
        s.score
        for s in old_units
        if s.unit.hit is old.unit.hit and s is not old and s.unit.text not in quote
    ]
    return old.score - max(rivals, default=0.0) >= PAST_QUOTE_LEAD


def names_another_part(
    question: str, quoted: Scored, quote: str, version_units: Sequence[Scored]
) -> bool:
    """Whether the question names (a capitalised word inside it) another part of the version
    asked about — a section of its retrieved passages (their last heading) or another row
    of the quoted table — that the quote and its headings never name: "What did the Business
    plan add on top of Team under the old 2023 pricing?" quoted the Team plan's section; "What
    was the monthly price of the Starter plan under the 2023 price list?" the Team and
    Business rows (a user pass)."""
    hit = quoted.unit.hit
    sections = {" ".join(s.unit.hit.chunk.heading_path[-1:]) for s in version_units}
    rows = {s.unit.text for s in version_units if s.unit.hit is hit and s.unit.header}
    parts = {w for text in sections | rows for w in capitalised_words(text)}
    own = " ".join([*hit.chunk.heading_path, quote])
    return any(n in parts and not holds_name(own, n) for n in capitalised_names(question))


def quotable(
    question: str, old: Scored, nearest: Scored, quote: str, version_units: Sequence[Scored]
) -> bool:
    """Whether a changed rule's quote from the version asked about (``old``, quoted as
    ``quote``; ``nearest``: the unit chosen before a band the question's quantity falls in
    picked ``old``) may be shown without the answer gate: it stands out in its passage
    (``stands_out``) unless a band or the question's names picked it (a table's row,
    ``rows_asked``), and the question names no other part of the version
    (``names_another_part``)."""
    picked = old is not nearest or old.unit.header is not None
    return (picked or stands_out(old, version_units, quote)) and not names_another_part(
        question, old, quote, version_units
    )
