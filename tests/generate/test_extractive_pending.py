"""The extractive answerer and versions not yet in force, over hand-built hits (as
test_extractive.py): a question naming a period a pending version is in force during is
answered from it, with today's rule that says the same beside it; any other question, or
one without today's counterpart among the passages, is not."""

from datetime import date

import pytest

from docent.contracts import Answered, Hit, InsufficientEvidence
from generate.reasons import UNCLEAR
from tests.generate.answering import ask, hit


def pending_pair() -> list[Hit]:
    pending = hit(
        "travel-2027.md#3",
        {"If you use your own car for business travel, claim €0.42 per km.": 0.8},
        rank=1,
        score=0.8,
        heading_path=("Travel Policy 2027", "Mileage"),
        effective_date=date(2027, 6, 1),
        status="pending",
        title="Travel Policy 2027",
    )
    current = hit(
        "expenses.md#5",
        {"If you use your own car for business travel, claim €0.35 per km.": 0.78},
        rank=2,
        score=0.75,
        heading_path=("Expenses and Travel Policy", "Mileage and ground transport"),
        effective_date=date(2024, 4, 1),
        title="Expenses and Travel Policy",
    )
    return [pending, current]


def test_a_year_a_pending_version_is_in_force_in_is_answered_from_it_beside_todays_rule() -> None:
    outcome = ask("What will the mileage rate be in 2028?", pending_pair())
    assert isinstance(outcome, Answered)
    first, second = outcome.answer.split("\n")
    assert first.startswith("Not yet in force (effective 2027-06-01):") and "€0.42" in first
    assert second.startswith("In force until then (effective 2024-04-01):") and "€0.35" in second
    assert [c.status for c in outcome.citations] == ["pending", "current"]


@pytest.mark.parametrize(
    "question",
    [
        "What is the mileage rate?",
        "What was the mileage rate in 2026?",
        "What will the mileage rate be in February 2027?",  # before it takes effect
        "What will the mileage rate be on 2027-03-01?",
        # A review: numbers that date nothing.
        "Can I claim 2030 EUR of mileage?",
        "What is the mileage rate? My car is a 2028 model.",
    ],
)
def test_without_a_year_it_is_in_force_in_todays_rule_answers(question: str) -> None:
    """A pending passage the search brought in (``DOCENT_INCLUDE_PENDING``) comes after
    today's rule, as before."""
    outcome = ask(question, pending_pair())
    assert isinstance(outcome, Answered)
    assert "€0.35" in outcome.answer and "€0.42" not in outcome.answer
    assert [c.status for c in outcome.citations] == ["current"]


def test_a_pending_version_taking_effect_after_the_period_asked_does_not_answer_for_it() -> None:
    """A review: with a 2030 policy among the hits, "in 2028" got its rate; the 2027 one is
    in force then."""
    far = hit(
        "travel-2030.md#3",
        {"From 2030 claim €0.55 per km when you use your own car for business travel.": 0.85},
        score=0.85,
        heading_path=("Travel Policy 2030", "Mileage"),
        effective_date=date(2030, 1, 1),
        status="pending",
        title="Travel Policy 2030",
    )
    outcome = ask("What will the mileage rate be in 2028?", [far, *pending_pair()])
    assert isinstance(outcome, Answered)
    assert "€0.42" in outcome.answer and "€0.55" not in outcome.answer


def test_the_rule_until_then_is_never_another_documents_section_of_the_same_name() -> None:
    """A review: a pending "Hotels" passage had an events policy's "Hotels" section (speakers'
    hotels) quoted as the rule in force until then."""
    pending = hit(
        "travel-2027.md#2",
        {"Tier 1 cities: up to €250 per night.": 0.8},
        score=0.8,
        heading_path=("Travel Policy 2027", "Hotels"),
        effective_date=date(2027, 6, 1),
        status="pending",
        title="Travel Policy 2027",
    )
    events = hit(
        "events.md#4",
        {"Speakers at our conferences may stay in the venue hotel, up to €400.": 0.5},
        rank=2,
        score=0.5,
        heading_path=("Events Policy", "Hotels"),
        effective_date=date(2024, 1, 1),
        title="Events Policy",
    )
    outcome = ask("What will the hotel cap for Tier 1 cities be in 2028?", [pending, events])
    # Without today's hotel caps among the passages, no checked answer (change set 28).
    assert isinstance(outcome, InsufficientEvidence) and outcome.missing == UNCLEAR


def test_a_pending_sentence_without_todays_counterpart_is_not_the_answer() -> None:
    """A user pass: "Will the mileage rate change in 2027?" got "Not yet in force: Electric
    vehicles receive the same rate.", read as "no change"; the rate goes from €0.35 to €0.42."""
    pending, current = pending_pair()
    aside = hit(
        "travel-2027.md#3",
        {
            "If you use your own car for business travel, claim €0.42 per km.": 0.5,
            "Electric vehicles receive the same rate.": 0.8,
        },
        score=0.8,
        heading_path=("Travel Policy 2027", "Mileage"),
        effective_date=date(2027, 6, 1),
        status="pending",
        title="Travel Policy 2027",
    )
    outcome = ask("Will the mileage rate change in 2027?", [aside, current])
    assert isinstance(outcome, InsufficientEvidence) and outcome.missing == UNCLEAR
