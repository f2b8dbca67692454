"""What a question asks for, read from its words alone, and how a unit carries it."""

import pytest

from generate.answer_types import counted_units, type_fit, wants_figure
from generate.question_types import expect


@pytest.mark.parametrize(
    ("question", "kind", "units", "per"),
    [
        ("How many holiday days do I get a year?", "quantity", {"day"}, "year"),
        ("How many days a week can I work remotely?", "quantity", {"day"}, "week"),
        (
            "how many weeks of severance pay do people get per year of service?",
            "quantity",
            {"week"},
            "year",
        ),
        ("How many roles does the restructuring plan cut?", "quantity", {"role"}, None),
        ("What's the daily allowance for food when I travel to Lisbon?", "money", set(), None),
        ("How much is the home office stipend?", "money", set(), None),
        ("How much can a team lead approve for refunds?", "quantity", set(), None),
        ("How long is parental leave for the main caregiver?", "duration", None, None),
        ("How long must a password be?", "quantity", set(), None),  # a length, not a time
        ("What was the refund window under the 2022 policy?", "duration", None, None),
        ("When do I get paid?", "date", set(), None),
        ("Can I work from Spain for a few weeks in the summer?", "yesno", set(), None),
        (
            "A customer wants a refund 3 weeks after buying. Are we still allowed to give it?",
            "yesno",
            set(),
            None,
        ),
        ("Who approves expenses above €2,500?", "who", set(), None),
        ("Where do I book a desk?", "where", set(), None),
        ("How do I report a lost laptop?", "other", set(), None),  # no how-to rule
        ("What is the severance policy?", "overview", set(), None),
        ("What percentage of severance is taxed?", "quantity", {"%"}, None),
        ("Tell me about the dress code", "other", set(), None),
        # What "how many" counts is the unit of time among its words, not the last word.
        (
            "After how many days off sick do I need a medical certificate?",
            "quantity",
            {"day"},
            None,
        ),
        (
            "we just had a fire drill, how many of those do we do per year?",
            "quantity",
            set(),
            "year",
        ),
        # "How much of the cost" asks for an amount (no share rule).
        (
            "If the company asks me to relocate abroad, how much of the cost does it cover?",
            "money",
            set(),
            None,
        ),
        # A limit wants the figure the rule sets, not a row picked by a superlative.
        ("What's the most I can spend on a hotel per night?", "money", set(), None),
        ("what's the max state paid medical leave per year?", "quantity", set(), None),
        ("Is there a maximum number of hours I can carry over?", "quantity", set(), None),
    ],
)
def test_expect_reads_the_asked_type(
    question: str, kind: str, units: set[str] | None, per: str | None
) -> None:
    got = expect(question)
    assert got.kind == kind
    if units is not None:
        assert got.units == frozenset(units)
    assert got.per == per


def test_a_subordinate_when_does_not_make_a_date_question() -> None:
    assert expect("What's the daily allowance when I travel to Lisbon?").kind == "money"
    assert expect("When must I submit my expenses?").kind == "date"


def test_superlatives_name_a_direction_and_column_hints() -> None:
    fastest = expect("Which EV charger at the office is the fastest?").superlative
    assert fastest is not None and fastest.direction == "max" and "power" in fastest.hints
    cheapest = expect("Which is the cheapest paid plan?").superlative
    assert cheapest is not None and cheapest.direction == "min"
    assert expect("How many days of leave do I get?").superlative is None


def test_a_limit_is_not_a_superlative_unless_the_question_picks_a_row() -> None:
    assert expect("What is the maximum nightly hotel rate in a Tier 1 city?").superlative is None
    assert expect("what's the most i can claim for lunch?").superlative is None
    row = expect("Which charger has the maximum power?").superlative
    assert row is not None and row.direction == "max" and not row.between


def test_counted_units_read_a_qualified_unit_of_time_and_only_whole_words() -> None:
    assert counted_units("You can have up to 24 credit hours accrued.") == {"credit", "hour"}
    assert counted_units("You can have it") == set()  # the "an" of "can" counts nothing
    assert counted_units("25 days of leave") == {"day"}


def test_how_many_times_wants_a_frequency_in_words_or_figures() -> None:
    often = expect("how many times a year does the company hold the All Hands?")
    assert often.kind == "frequency" and wants_figure(often)
    assert type_fit(often, "At the end of every cycle, we hold an All Hands meeting.") == 1.0
    assert type_fit(often, "Each office holds a fire drill twice a year.") == 1.0
    assert type_fit(often, "The All Hands is run by the COO.") == 0.0


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Is the minimum age 18?", "yesno"),
        ("Does the max apply to contractors?", "yesno"),
        ("Can Max approve my expenses?", "yesno"),
        ("How do I request more than the maximum?", "other"),
        ("What happens if I exceed the maximum?", "other"),
    ],
)
def test_a_question_that_only_mentions_a_limit_keeps_its_own_kind(question: str, kind: str) -> None:
    assert expect(question).kind == kind


@pytest.mark.parametrize(
    "question",
    [
        "What is the higher education allowance?",
        "What's the Greater London weighting?",
        "What should I do if my manager is slower to respond than the SLA?",
    ],
)
def test_a_comparative_that_names_no_rows_is_no_comparison(question: str) -> None:
    assert expect(question).superlative is None


def test_a_rate_is_not_a_count_of_its_time_unit() -> None:
    assert "day" not in counted_units("Meals are reimbursed at €10 per day.")
    assert "month" not in counted_units("We pay 30 each month.")


def test_how_many_times_is_a_frequency() -> None:
    assert expect("how many times a year can I work remotely?").kind == "frequency"


def test_the_most_i_can_roll_over_is_a_limit() -> None:
    limit = expect("what's the most annual leave I can roll over into next year?")
    assert limit.superlative is None and limit.kind == "quantity"


def test_a_comparison_picks_between_the_rows_it_names() -> None:
    bigger = expect("Which of Lisbon and Porto pays the bigger daily allowance?").superlative
    assert bigger is not None and bigger.direction == "max" and bigger.between
    cheaper = expect("Which plan is cheaper, Team or Business?").superlative
    assert cheaper is not None and cheaper.direction == "min"
    # A comparison with a rule ("longer than 30 days") picks no row.
    assert expect("Which rule applies if I stay longer than 30 days?").superlative is None
    assert expect("Can I work abroad for longer than 30 days?").superlative is None


def test_a_days_question_fits_days_best_then_other_figures_then_none() -> None:
    days = expect("How many holiday days do I get a year?")
    assert type_fit(days, "You receive 25 days of paid annual leave per calendar year.") == 1.0
    assert type_fit(days, "You may carry up to 5 unused days into the next year.") == 0.7
    assert type_fit(days, "Take the time off within 3 months.") == 0.35
    assert type_fit(days, "Request leave in Harbor.") == 0.0


def test_a_per_week_question_prefers_a_per_week_figure() -> None:
    weekly = expect("How many days a week can I work remotely?")
    assert type_fit(weekly, "Spend at least two days a week in the office.") == 1.0
    assert type_fit(weekly, "Up to 30 working days per calendar year.") == 0.3


def test_money_is_an_amount_or_pay_counted_in_time() -> None:
    money = expect("How much severance would I get?")
    assert type_fit(money, "Refunds up to €1,000 are approved by a lead.") == 1.0
    assert type_fit(money, "It pays two weeks of base pay per year of service.") == 1.0
    assert type_fit(money, "Outplacement support lasts 3 months.") == 0.5
    assert type_fit(money, "These guidelines set the severance.") == 0.0


def test_yes_no_wants_a_rule_and_a_superlative_wants_a_table_row() -> None:
    yesno = expect("Can I work from Spain for a few weeks?")
    assert type_fit(yesno, "You may work from abroad for up to 30 days.") == 1.0
    assert type_fit(yesno, "Larkspur has offices in Dublin and Lisbon.") == 0.4
    fastest = expect("Which EV charger is the fastest?")
    assert type_fit(fastest, "| B4 | ABB Terra DC | 50 kW |", row=True) == 1.0
    assert type_fit(fastest, "Four of the spaces have EV chargers.") == 0.3


def test_figure_kinds() -> None:
    assert wants_figure(expect("How many days?"))
    assert not wants_figure(expect("Who approves refunds?"))


def test_how_quickly_is_answered_by_a_span_or_by_no_time_at_all() -> None:
    """A user pass: "… how quickly would GitHub delete my profile after I cancel my account?"
    quoted where to cancel, not "within 90 days" ("how quickly" asked for nothing in
    particular); a review: read as "how long", it refused "Company matching contributions
    vest immediately." "How long" still asks for a span."""
    quickly = expect("How quickly do company matching contributions vest?")
    assert quickly.kind == "duration" and quickly.at_once
    assert type_fit(quickly, "We will delete your full profile within 90 days.") == 1.0
    assert type_fit(quickly, "Company matching contributions vest immediately.") >= 0.7
    assert type_fit(quickly, "You may cancel your account in your user profile.") == 0.0
    assert expect("How fast do you answer an urgent ticket?").at_once
    long = expect("How long until my matching contributions vest?")
    assert long.kind == "duration" and not long.at_once
    assert type_fit(long, "Company matching contributions vest immediately.") == 0.0
