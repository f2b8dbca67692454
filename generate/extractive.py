"""The default backend: no LLM. It answers by quoting the unit of a block — a sentence, a
list item, or a table row with its header — that best answers the question, followed by its
``[id]``, and abstains when no unit does.

Choice: every unit of every readable block is scored by meaning, block relevance, words
shared with the question, and whether it carries what the question asks for (a number of
days, an amount, a date, a rule, a role…); see ``generate/unit_scoring.py`` for the one
scoring function, ``generate/question_types.py`` for what a question asks for (its named
question-phrase rules) and ``generate/answer_types.py`` for how a unit carries it. The best unit
answers if it reaches ``Weights.min_score`` and the case passes the answer gate
(``generate/answer_gate.py``: does one block and one unit stand out, as they do when the
documents answer? — for a past version, only to a rule reading the same today: see
``_versioned``); otherwise the outcome is ``insufficient_evidence`` — abstention by
evidence, whatever words the question uses.

Around the best unit: a neighbouring unit of the same short block that shares the
question's words joins it (a rule and its exception read together); a lead-in ending in
":" brings its list items; a table answer quotes the header and the row — by the column a
superlative names ("the fastest") when the question has one.

Ambiguity: when the question matches two or more rows of a table equally (it names none of
the row-specific cells), or a figure question lands on a lead-in whose items give different
figures, the outcome is ``ambiguous`` with those rows or items as the readings.

Status: blocks are tried in tiers — current, then pending, then superseded (a pending version
in force during a period the question names first: ``tier_groups``) — and the first
tier with an answering unit answers. A superseded block whose successor is among the hits
is never quoted, except when the question asks for that past version by name or date
(``docent.versions``): then the answer quotes the old version, marked superseded with its
effective date, and the current rule beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from docent.contracts import Hit, InsufficientEvidence, Outcome
from docent.versions import VersionRequest, current_successor, version_missing, version_request
from generate.answer_gate import AnswerGate, case_signals
from generate.answer_types import wants_figure
from generate.bands import band_answer, band_choice
from generate.companions import MAX_LIST_ITEMS, carries_type, close_siblings, companions
from generate.lists import is_lead_in, item_lead, items_after, joined_quote
from generate.lookups import lookup_answer
from generate.outcomes import PENDING_LABEL, SUPERSEDED_LABEL, UNTIL_THEN_LABEL, answered
from generate.overview import overview_units
from generate.pointers import pointers
from generate.protocols import Generation
from generate.question_types import ALL_RULES, Expectation, expect
from generate.quoting import ambiguous, cite, differ_in_figures, under_heading
from generate.reasons import NOT_FOUND, UNCLEAR, VERSION_MISSING
from generate.runner_up import with_runner_up
from generate.status_tiers import ASKED_PENDING, status_tier, tier_groups
from generate.table_answers import superlative_table, table_answer, which_row
from generate.text import collapse_space, content_words
from generate.unit_scoring import Scored, Weights, in_example, score_unit, units_of
from generate.version_answers import (
    beside,
    now_beside,
    quotable,
    silent_then,
    unmentioned_names,
    version_hits,
    version_quote,
)
from generate.working import gate_record, working
from render.prompt import RenderedPrompt


@dataclass(frozen=True)
class Asked:
    """The question as the scoring reads it."""

    question: str
    words: set[str]
    expectation: Expectation


# How far below today's best unit the old unit's counterpart may score (hand-set: the dev
# splits' right past-version answers lie 0-0.04 below, a user pass's right "refund of 800
# euros" 0.10; its wrong "different payment method" 0.42).
OFF_TOPIC_GAP = 0.25


class ExtractiveGenerator:
    backend = "extractive"
    quotes_by_wording = True

    def __init__(
        self,
        *,
        weights: Weights | None = None,
        gate: AnswerGate | None = None,
        model: str = "extractive-v2",
        rules: frozenset[str] = ALL_RULES,
        today: Callable[[], date] = date.today,
    ) -> None:
        """``rules``: the question-phrase rules it reads questions with (``RULES``; all by
        default; ``evals/rule_ablation.py`` reads without one at a time)."""
        unknown = rules - ALL_RULES
        if unknown:
            raise ValueError(f"unknown question rule(s) {', '.join(sorted(unknown))}")
        self.weights = weights or Weights()
        self.gate = gate or AnswerGate()
        self.model = model
        self.rules = rules
        self.today = today  # the date a question's "next year" or later month is read against

    def generate(self, prompt: RenderedPrompt, hits: Sequence[Hit]) -> Generation:
        question = prompt.question
        asked = Asked(question, content_words(question), expect(question, self.rules))
        considered: list[Scored] = []
        record: list[dict[str, object]] = []

        def result(
            outcome: Outcome, confidence: float | None = None, draft: Outcome | None = None
        ) -> Generation:
            gate = record[-1] if record else None
            return Generation(
                outcome,
                working(outcome, considered, gate),
                self.model,
                confidence=confidence,
                pointers=pointers(considered, draft, question),
            )

        ordered = sorted(hits, key=lambda h: h.rank)
        request = version_request(question)
        if request is not None:
            versioned = self._versioned(request, asked, ordered, considered, record)
            if versioned is not None:
                return result(*versioned)
        successors = {hit.chunk.source for hit in hits if hit.chunk.status != "superseded"}
        eligible = [
            hit
            for hit in ordered
            if not (hit.chunk.status == "superseded" and hit.chunk.superseded_by in successors)
        ]
        for tier, members in tier_groups(eligible, question, self.today()):
            scored = self._score(members, asked)
            considered += scored
            best = self._best(scored, asked.expectation)
            if best is None:
                continue
            passes, confidence = self._judged(best, considered, record)
            if not passes:
                # Held back, the draft still says where a reader should look first.
                draft = self._answer_of(best, scored, hits, asked)
                return result(InsufficientEvidence(UNCLEAR), confidence, draft)
            if tier == ASKED_PENDING:
                return result(self._pending_version(best, scored, eligible, asked), confidence)
            return result(self._answer_of(best, scored, hits, asked), confidence)
        return result(InsufficientEvidence(NOT_FOUND))

    def _answer_of(
        self, best: Scored, scored: list[Scored], hits: Sequence[Hit], asked: Asked
    ) -> Outcome:
        expectation = asked.expectation
        if expectation.kind == "overview":
            overview = overview_units(scored, asked.words)
            if overview:
                return _quote_block(overview, hits)
        if expectation.superlative is not None:
            table = superlative_table(best, scored, asked.question, expectation.superlative)
            if table is not None:
                return answered(*table, hits)
        outcome = self._answer(best, scored, hits, expectation, asked.question)
        return with_runner_up(
            outcome, best, scored, hits, asked.question, expectation, self.weights
        )

    def _score(self, hits: Sequence[Hit], asked: Asked) -> list[Scored]:
        return [
            score_unit(unit, asked.words, asked.expectation, self.weights)
            for hit in hits
            for unit in units_of(hit)
        ]

    def _best(
        self, scored: Sequence[Scored], expectation: Expectation, *, gated: bool = True
    ) -> Scored | None:
        # A figure question is answered only by a unit with that kind of figure (or a
        # lead-in whose items give it).
        answering = [
            s
            for s in scored
            if s.score >= self.weights.min_score
            and (carries_type(s) or not wants_figure(expectation))
        ]
        # A document that clears the bar with a unit of the wrong type ("These guidelines set
        # the severance…") vouches for its own units of the right type a little below it
        # ("…two weeks of base pay…").
        slack = self.weights.same_document_slack
        vouched = {s.unit.hit.chunk.source for s in scored if s.score >= self.weights.min_score}
        answering += [
            s
            for s in scored
            if s.unit.hit.chunk.source in vouched
            and carries_type(s)
            and self.weights.min_score - slack <= s.score < self.weights.min_score
        ]
        # The asked type first: a "how many days" question is answered by a unit with a
        # number of days when one qualifies, however well a "3 months" unit scores. Of no
        # particular kind, that type is a rule word ("must"), which the gate weighs; shown
        # ungated (a past version), the unit the meaning points to most is quoted (a
        # "require" item was quoted over the sentence naming the agreements asked about).
        typed_first = gated or expectation.kind != "other"
        if typed_first and any(carries_type(s) for s in answering):
            answering = [s for s in answering if carries_type(s)]
        # A rule before a worked example of it, whose figures are someone's case.
        stated = [s for s in answering if not in_example(s.unit)]
        return max(stated or answering, key=lambda s: s.score, default=None)

    def _judged(
        self, best: Scored, pool: Sequence[Scored], record: list[dict[str, object]]
    ) -> tuple[bool, float]:
        """Does the answer gate let ``best`` through, among the units of ``pool`` (those of
        the asked type when it carries it)? Its reading is appended to ``record``."""
        typed = carries_type(best)
        signals = case_signals(best, pool, [s for s in pool if carries_type(s) or not typed])
        confidence = self.gate.confidence(signals)
        record.append(gate_record(signals, confidence))
        return self.gate.passes(signals), confidence

    def _versioned(
        self,
        request: VersionRequest,
        asked: Asked,
        ordered: Sequence[Hit],
        considered: list[Scored],
        record: list[dict[str, object]],
    ) -> tuple[Outcome, float | None, Outcome | None] | None:
        """For a question naming a version: ``(outcome, confidence, draft held back)`` from
        the version asked about, or that it is missing; None to answer as usual. A rule
        quoted the same today is today's rule, judged as today's answer is (a user pass:
        2019 and 2020 GitHub answers quoted an unchanged sentence that answered nothing,
        ungated); a rule that changed is asked for by name and shown ungated where its quote
        may be (``version_answers.quotable``)."""
        past = self._past_version(request, asked, ordered, considered)
        if past is not None:
            outcome, today = past
            if today is None:
                return outcome, None, None
            pool = self._score([h for h in ordered if h.chunk.status == "current"], asked)
            considered += pool
            twin = next((s for s in pool if s.unit == today.unit), today)
            passes, confidence = self._judged(twin, pool, record)
            if not passes:
                return InsufficientEvidence(UNCLEAR), confidence, outcome
            return outcome, confidence, None
        current = [h for h in ordered if h.chunk.status == "current"]
        if current and version_missing(request, current[0].chunk):
            # Never the current rule as if it answered for the version asked about.
            considered += self._score(current, asked)
            return InsufficientEvidence(VERSION_MISSING), None, None
        return None

    def _past_version(
        self, request: VersionRequest, asked: Asked, hits: Sequence[Hit], considered: list[Scored]
    ) -> tuple[Outcome, Scored | None] | None:
        """The answer from the superseded version the question names, with the current
        rule beside it, and that current unit when it reads as the old one did; None when
        no hit is from such a version (answer as usual); unclear when none of its units
        answers, or it never names what the question does."""
        old_hits = version_hits(request, asked.question, hits)
        old_scored = self._score(old_hits, asked)
        # Whatever follows (a check may still refuse the answer), what a non-answer shows
        # leads with the version asked ("What did the 2019 privacy statement say about
        # cookies?" showed only today's pages: a user pass).
        considered += old_scored
        nearest = self._best(old_scored, asked.expectation, gated=False)
        if nearest is None:
            # That version is in the documents, but none of its units says this: not "that
            # version is missing" (a user pass), nor today's rule as its answer.
            return (InsufficientEvidence(UNCLEAR), None) if old_hits else None
        old = band_choice(nearest, old_scored, asked.question)
        if unmentioned_names(
            asked.question, old_hits, [h for h in hits if status_tier(h) != "superseded"]
        ):
            # That version's nearest unit is about another thing; its passages are shown
            # first ("Was there an Enterprise plan in 2023?" led with today's Enterprise plan).
            return InsufficientEvidence(UNCLEAR), None
        old_quote = version_quote(old, old_scored, asked.question, asked.expectation)
        if old_quote is None:  # a whole table asked for, too long to quote: which row?
            return which_row(old, [s for s in old_scored if s.unit.hit is old.unit.hit]), None
        # The current rule beside the old one is the successor's: never a sentence of
        # another document quoted as the rule now.
        successor = current_successor(old.unit.hit.chunk, hits)
        same_doc = [h for h in hits if h.chunk.status == "current" and h.chunk.source == successor]
        same_doc_scored = self._score(same_doc, asked)
        now = self._now_of(old, same_doc_scored, asked)
        today = self._best(same_doc_scored, asked.expectation)
        if now is not None and today is not None and today.score - now[0].score > OFF_TOPIC_GAP:
            # Its rule now is far from what today's answer quotes: the old unit answers another
            # question ("In 2022, could refunds go to a different payment method?" quoted the
            # 2022 approval limit: a user pass). Its passages, not a checked answer.
            return InsufficientEvidence(UNCLEAR), None
        nearest_now = max(same_doc_scored, key=lambda s: s.score, default=None)
        if silent_then(nearest_now, old, now[0] if now is not None else None, old_scored):
            # That version is silent on what is asked: its passages, not a sentence of it.
            return InsufficientEvidence(UNCLEAR), None
        unchanged = now is not None and collapse_space(now[1]) == collapse_space(old_quote)
        if not (unchanged or quotable(asked.question, old, nearest, old_quote, old_scored)):
            return InsufficientEvidence(UNCLEAR), None  # shown ungated: its passages instead
        outcome = beside((old, SUPERSEDED_LABEL, old_quote), now, hits)
        return outcome, (now[0] if now is not None and unchanged else None)

    def _pending_version(
        self, best: Scored, scored: list[Scored], hits: Sequence[Hit], asked: Asked
    ) -> Outcome:
        """The answer from a version not yet in force, for a question naming a year it is in
        force in, with the current rule (of any current document: the pending one replaces
        its part) beside it, which applies until then."""
        quote = version_quote(best, scored, asked.question, asked.expectation)
        if quote is None:  # a whole table asked for, too long to quote: which row?
            return which_row(best, [s for s in scored if s.unit.hit is best.unit.hit])
        current = [h for h in hits if status_tier(h) == "current"]
        now = self._now_of(best, self._score(current, asked), asked, same_document=False)
        if now is None:
            # Without today's rule that says the same, the pending sentence alone reads as
            # the answer ("Will the mileage rate change in 2027?" got "Electric vehicles
            # receive the same rate."): the passages, not a checked answer.
            return InsufficientEvidence(UNCLEAR)
        return beside((best, PENDING_LABEL, quote), now, hits, UNTIL_THEN_LABEL)

    def _now_of(
        self,
        first: Scored,
        now_scored: Sequence[Scored],
        asked: Asked,
        *,
        same_document: bool = True,
    ) -> tuple[Scored, str] | None:
        """The current unit (and its quote) that says what ``first`` says, among the current
        passages' scored units, to quote beside it (``version_answers.now_beside``)."""
        typed = [s for s in now_scored if carries_type(s) or not wants_figure(asked.expectation)]
        return now_beside(
            first,
            typed,
            now_scored,
            asked.question,
            asked.expectation,
            same_document=same_document,
        )

    def _answer(
        self,
        best: Scored,
        scored: list[Scored],
        hits: Sequence[Hit],
        expectation: Expectation,
        question: str,
    ) -> Outcome:
        block = [s for s in scored if s.unit.hit is best.unit.hit]
        cid = best.unit.hit.chunk.chunk_id
        if best.unit.header is not None:
            return table_answer(best, block, hits, expectation, question)
        banded = band_answer(best, block, hits, question)
        if banded is not None:
            return banded
        looked = lookup_answer(best, block, scored, hits, question)
        if looked is not None:
            return looked
        # An item whose list gives other figures of the asked kind that score as near is one
        # reading of several ("How much can I spend on a hotel per night?" quoted the Tier 1
        # cap alone, at 87 %: a user pass); a question that picks it out gets it alone.
        siblings = close_siblings(best, block, expectation, self.weights)
        if len(siblings) >= 2:
            texts = [s.unit.text for s in siblings]
            return ambiguous(texts)
        if is_lead_in(best):
            items = items_after(best, block)[:MAX_LIST_ITEMS]
            # An item naming something the lead-in does not ("Tier 1") picks itself out.
            specific = {id(s): len(s.own - best.own) for s in items}
            top = max(specific.values(), default=0)
            chosen = [s for s in items if top and specific[id(s)] == top]
            if len(chosen) == 1:
                items = chosen
            texts = [s.unit.text for s in items]
            if wants_figure(expectation) and len(texts) >= 2 and differ_in_figures(texts):
                return ambiguous(texts)
            quote = "\n".join([best.unit.text, *texts])
            return answered(f"{quote} [{cid}]", [(cid, quote)], hits)
        picked = [best, *companions(best, block, expectation, self.weights)]
        lead = item_lead(best, block)
        if lead is not None and all(s is not lead for s in picked):
            picked.append(lead)
        picked.sort(key=lambda s: s.unit.index)
        answer = " ".join(cite(s.unit.text, cid) for s in picked)
        return answered(under_heading(answer, picked[0].unit), [(cid, joined_quote(picked))], hits)


def _quote_block(units: Sequence[Scored], hits: Sequence[Hit]) -> Outcome:
    cid = units[0].unit.hit.chunk.chunk_id
    answer = " ".join(cite(s.unit.text, cid) for s in units)
    return answered(answer, [(cid, joined_quote(units))], hits)
