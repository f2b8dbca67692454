"""``generate.version_answers.silent_then``: a past version is silent on what is asked when
today's unit nearest the question leads the old quote's counterpart and has no counterpart
among the old version's units (a user pass: "Under the 2022 refunds policy, could a customer
get money back after the refund window if we had an outage?" quoted the 2022 window)."""

from generate.unit_scoring import Scored, Unit
from generate.version_answers import SILENT_GAP, silent_then
from tests.generate.answering import hit

OLD_WINDOW = "Customers may request a full refund within 14 days of a purchase or renewal."
NOW_WINDOW = "Customers may request a full refund within 30 days of a purchase or renewal."
NOW_FAILURE = (
    "After 30 days, refunds are given only when a service failure on our side breached the "
    "service levels in the customer's contract."
)


def scored(text: str, score: float) -> Scored:
    block = hit("refunds.md#0", {text: 0.5}, score=0.5)
    return Scored(Unit(block, text, "Refunds Policy Eligibility", 0), score, 0.5, 0.5, 1.0)


def test_a_rule_the_old_version_never_states_nearest_the_question_says_it_is_silent() -> None:
    old = [scored(OLD_WINDOW, 1.1)]
    now = scored(NOW_WINDOW, 1.175)
    assert silent_then(scored(NOW_FAILURE, 1.262), now, old)


def test_a_near_tie_or_a_rule_with_an_old_counterpart_is_not_silence() -> None:
    old = [scored(OLD_WINDOW, 1.1)]
    now = scored(NOW_WINDOW, 1.5)
    # "How many days did customers have to ask for a refund?": today's "After 30 days, …"
    # leads "within 30 days" by 0.01, within the gap: the old window is the answer.
    assert not silent_then(scored(NOW_FAILURE, 1.5 + SILENT_GAP / 5), now, old)
    # Today's nearest unit is the old quote's counterpart, or has one in the old version.
    assert not silent_then(now, now, old)
    assert not silent_then(scored(NOW_WINDOW, 2.0), scored(NOW_FAILURE, 1.0), old)
    assert not silent_then(None, now, old)
