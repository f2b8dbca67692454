"""The periods a question names (``docent.periods``), read against a fixed day: which ones
end after it (the pending versions are then searched), and whether a pending version is in
force during one of them."""

from datetime import date

import pytest

from docent.contracts import Chunk
from docent.periods import asked_periods, first_later, in_force_during
from docent.versions import without_year
from tests.render.builders import make_chunk

TODAY = date(2026, 12, 7)


def later_year(question: str, today: date) -> int | None:
    return first_later(asked_periods(question, today), today)


def pending_asked(question: str, chunk: Chunk, today: date) -> bool:
    return in_force_during(asked_periods(question, today), chunk)


Y2027 = (date(2027, 1, 1), date(2027, 12, 31))


@pytest.mark.parametrize(
    ("question", "periods"),
    [
        ("What will the hotel cap be in 2027?", [Y2027]),
        ("What is the rate under the 2027 travel policy?", [Y2027]),
        ("Hotel limit in Porto next year?", [Y2027]),
        ("Mileage in February 2027?", [(date(2027, 2, 1), date(2027, 2, 28))]),
        ("Mileage on 3 Dec. 2027?", [(date(2027, 12, 1), date(2027, 12, 31))]),
        ("Mileage rate on 2027-03-01?", [(date(2027, 3, 1), date(2027, 3, 1))]),
        ("Mileage on 1/3/2027?", [(date(2027, 1, 3), date(2027, 3, 1))]),  # either order
        ("Mileage in Q4 2027?", [(date(2027, 10, 1), date(2027, 12, 31))]),
        ("Leap day: on 2028-02-29?", [(date(2028, 2, 29), date(2028, 2, 29))]),
        # A review: numbers that are no year.
        ("Can I claim 2030 EUR of mileage?", []),
        ("What is the mileage rate per km? My car is a 2028 model.", []),
        ("Is a €2050 laptop allowed?", []),
        ("Is a laptop for 2030 euros allowed?", []),
        ("Mileage on 2027-02-30?", []),  # no such day
        # A second user pass.
        (
            "I travel in November; what will the mileage rate be?",
            [(date(2027, 11, 1), date(2027, 11, 30))],
        ),
        ("What was the mileage rate in November?", [(date(2026, 11, 1), date(2026, 11, 30))]),
        ("Hotel cap in December?", [(date(2026, 12, 1), date(2026, 12, 31))]),
        ("Premium economy in H2 2027?", [(date(2027, 7, 1), date(2027, 12, 31))]),
        ("In the second half of 2027?", [(date(2027, 7, 1), date(2027, 12, 31))]),
        ("What is the mileage rate this year?", [(date(2026, 1, 1), date(2026, 12, 31))]),
        ("What mileage do I get for 2030 kilometers?", []),
        ("Who can approve a refund of 2022 euros?", []),
        ("Carbon budget for 2040 staff?", []),
        ("I may claim it in May?", [(date(2027, 5, 1), date(2027, 5, 31))]),
    ],
)
def test_asked_periods(question: str, periods: list[tuple[date, date]]) -> None:
    assert asked_periods(question, TODAY) == periods


@pytest.mark.parametrize(
    ("question", "year"),
    [
        ("What will the hotel cap be in 2027?", 2027),
        ("I travel to Lisbon in 2028, what is the per diem?", 2028),
        ("What is the mileage rate in 2026?", 2026),  # the rest of this year
        ("What about December 2026?", 2026),
        ("What was the hotel cap in 2023?", None),
        ("What about November 2026?", None),  # over
        ("What is the hotel cap?", None),
        ("What's the hotel limit in Porto next year?", 2027),
    ],
)
def test_later_year_is_of_the_first_period_ending_after_today(
    question: str, year: int | None
) -> None:
    assert later_year(question, TODAY) == year


def test_a_later_year_is_read_without_it_like_a_past_one() -> None:
    """The vector leg and the rerank read the topic; which version holds in that year is the
    documents' dates' (the year alone pulled price lists dated by their titles)."""
    assert without_year("What will the mileage rate be in 2028?", 2028) == (
        "What will the mileage rate be?"
    )
    assert without_year("What will the mileage rate be in 2028?") == (
        "What will the mileage rate be in 2028?"
    )
    # Two years or a span: which one is the version's is not read here.
    assert without_year("Mileage in 2027 or 2028?", 2027) == "Mileage in 2027 or 2028?"
    # A day (a user pass: "on 2027-03-01" was read as a span of years, kept, and the
    # question matched nothing over the bar).
    assert without_year("What will the mileage rate be on 2027-03-01?", 2027) == (
        "What will the mileage rate be?"
    )
    assert without_year("Mileage 2023-24?", 2023) == "Mileage 2023-24?"
    # A review: only days of that year, every one, and what is left tidied; two years kept.
    assert without_year("On 2027-03-01, what is the mileage rate?", 2027) == (
        "what is the mileage rate?"
    )
    assert without_year("What was the hotel cap under the 2023 policy, as of 2023-06-01?") == (
        "What was the hotel cap under the policy?"
    )
    # A month, a quarter, a half of that year: each with its word of time (a user pass: "in
    # March 2027" left "in March" behind, and nothing matched over the bar).
    for asked in ("in March 2027", "on 1 March 2027", "in Q3 2027", "in the second half of 2027"):
        assert without_year(f"What will the mileage rate be {asked}?", 2027) == (
            "What will the mileage rate be?"
        )
    for kept in (
        "Will the rate set on 2026-01-15 still apply on 2027-03-01?",
        "See policy-2027-03-01.pdf for the rate?",
        "2027-03-01?",
    ):
        assert without_year(kept, 2027) == kept


def test_a_pending_version_is_asked_for_in_a_period_it_is_in_force_during() -> None:
    pending = make_chunk(
        "travel-2027.md#3", "Claim €0.42 per km.", status="pending", effective_date=date(2027, 6, 1)
    )
    current = make_chunk("expenses.md#3", "Claim €0.35 per km.", effective_date=date(2024, 4, 1))
    for question in (
        "What will the mileage rate be in 2027?",
        "Mileage rate in 2030?",
        "What will the mileage rate be next year?",
        "I drive to a client on 3 June 2027: how much per km?",
    ):
        assert pending_asked(question, pending, TODAY), question
    # A user pass and a review: before it takes effect only today's rule applies.
    for question in (
        "I drive to a client in February 2027: how much per km?",
        "Mileage rate on March 1st, 2027?",
        "Mileage rate on 2027-03-01?",
        "Mileage in Q1 2027?",
        "What will the mileage rate be in 2026?",
        "What is the mileage rate?",
        "Can I claim 2030 EUR of mileage?",
    ):
        assert not pending_asked(question, pending, TODAY), question
    assert not pending_asked("What will the mileage rate be in 2027?", current, TODAY)
