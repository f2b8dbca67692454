"""A past version silent on what is asked is not quoted as its answer
(``generate.version_answers.silent_then``, called by the extractive answerer): today's unit
nearest the question is nearer it than the old quote, leads the old quote's rule today by
more than ``SILENT_GAP`` and has no counterpart among the old version's units. A user pass:
"Under the 2022 refunds policy, could a customer get money back after the refund window if
we had an outage?" quoted the 2022 window as a checked answer. Over hand-built hits (as
test_extractive_versions.py): each sentence's question cosine is given."""

from datetime import date

from docent.contracts import Answered, Hit, InsufficientEvidence
from generate.reasons import UNCLEAR
from generate.unit_scoring import Scored, Unit
from generate.version_answers import SILENT_GAP, silent_then
from tests.generate.answering import ask, hit

OLD_WINDOW = "Customers may request a full refund within 14 days of a purchase or renewal."
NOW_WINDOW = "Customers may request a full refund within 30 days of a purchase or renewal."
NOW_FAILURE = (
    "After 30 days, refunds are given only when a service failure on our side breached the "
    "service levels."
)


def versions(section: str, old: dict[str, float], now: dict[str, float]) -> list[Hit]:
    n = {"Eligibility": 0, "Approval": 1}[section]
    return [
        hit(
            f"refunds-2022.md#{n}",
            old,
            score=0.6,
            heading_path=("Refunds Policy 2022", section),
            effective_date=date(2022, 4, 1),
            status="superseded",
            superseded_by="refunds.md",
            title="Refunds Policy 2022",
        ),
        hit(
            f"refunds.md#{n}",
            now,
            rank=2,
            score=0.6,
            heading_path=("Refunds Policy", section),
            effective_date=date(2025, 3, 1),
            title="Refunds Policy",
        ),
    ]


def test_a_rule_only_todays_version_states_is_not_answered_from_the_old_window() -> None:
    hits = versions("Eligibility", {OLD_WINDOW: 0.55}, {NOW_WINDOW: 0.56, NOW_FAILURE: 0.75})
    outcome = ask(
        "Under the 2022 refunds policy, could a customer get money back after the refund "
        "window if we had an outage?",
        hits,
    )
    assert isinstance(outcome, InsufficientEvidence), outcome
    assert outcome.missing == UNCLEAR


def test_an_old_quote_nearer_the_question_than_todays_new_rule_is_still_the_answer() -> None:
    """A review: today's version adding a rule the old one lacks must not refuse the old
    version's own answer when that answer is nearer the question."""
    hits = versions(
        "Approval",
        {"A support team lead may approve refunds up to €500.": 0.8},
        {
            "A support team lead may approve refunds up to €1,000.": 0.7,
            "Refunds on annual plans are approved by the account manager.": 0.78,
        },
    )
    outcome = ask("Under the 2022 refunds policy, who approved refunds?", hits)
    assert isinstance(outcome, Answered), outcome
    assert "up to €500" in outcome.answer and "up to €1,000" in outcome.answer


def scored(text: str, score: float) -> Scored:
    block = hit("refunds.md#0", {text: 0.5}, score=0.5)
    return Scored(Unit(block, text, "Refunds Policy Eligibility", 0), score, 0.5, 0.5, 1.0)


def test_a_near_tie_a_counterpart_or_no_rule_today_is_not_silence() -> None:
    old = scored(OLD_WINDOW, 1.1)
    now = scored(NOW_WINDOW, 1.5)
    # "How many days did customers have to ask for a refund?": today's "After 30 days, …"
    # leads "within 30 days" by 0.01, within the gap: the old window is the answer.
    assert not silent_then(scored(NOW_FAILURE, 1.5 + SILENT_GAP / 5), old, now, [old])
    assert silent_then(scored(NOW_FAILURE, 1.5 + SILENT_GAP * 2), old, now, [old])
    # Today's nearest unit has a counterpart in the old version; none today; no old rule.
    assert not silent_then(scored(NOW_WINDOW, 2.0), old, scored(NOW_FAILURE, 1.0), [old])
    assert not silent_then(scored(NOW_FAILURE, 2.0), old, None, [old])
    assert not silent_then(None, old, now, [old])
