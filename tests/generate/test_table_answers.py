"""Table answers: the row a question names, a superlative's row, a comparison between the
rows it names, and a clarifying question when no row is named."""

from typing import Any

from docent.contracts import Ambiguous, Answered, Hit
from tests.generate.answering import ask, hit
from tests.render.builders import make_hit

PER_DIEM = (
    "| City | Country | Tier | Daily per diem |\n"
    "|---|---|---|---|\n"
    "| Amsterdam | Netherlands | Tier 1 | €78 |\n"
    "| Lisbon | Portugal | Tier 1 | €64 |\n"
    "| Porto | Portugal | Tier 2 | €56 |"
)
PER_DIEM_UNITS = (
    "City: Amsterdam; Country: Netherlands; Tier: Tier 1; Daily per diem: €78",
    "City: Lisbon; Country: Portugal; Tier: Tier 1; Daily per diem: €64",
    "City: Porto; Country: Portugal; Tier: Tier 2; Daily per diem: €56",
)


def table_hit(scores: tuple[float, ...] = (0.4, 0.56, 0.45), **fields: Any) -> Hit:
    return make_hit(
        "expenses.md#4",
        PER_DIEM,
        kind="table",
        score=0.72,
        heading_path=("Expenses and Travel Policy", "Per diem rates"),
        sentences=PER_DIEM_UNITS,
        unit_scores=scores,
        best_sentence=PER_DIEM_UNITS[1],
        **fields,
    )


def test_a_table_answer_quotes_the_header_and_the_matching_row() -> None:
    outcome = ask("What's the daily allowance for food when I travel to Lisbon?", [table_hit()])
    assert isinstance(outcome, Answered)
    assert outcome.answer == (
        "| City | Country | Tier | Daily per diem |\n"
        "|---|---|---|---|\n"
        "| Lisbon | Portugal | Tier 1 | €64 | [expenses.md#4]"
    )
    assert outcome.citations[0].quote == outcome.answer.removesuffix(" [expenses.md#4]")


def test_a_question_that_picks_no_row_is_ambiguous() -> None:
    outcome = ask("What is the daily per diem?", [table_hit((0.6, 0.6, 0.6))])
    assert isinstance(outcome, Ambiguous)
    assert outcome.readings == PER_DIEM_UNITS
    assert outcome.clarifying_question == "Which one do you mean: Amsterdam, Lisbon or Porto?"


def test_a_question_naming_a_cell_shared_by_rows_quotes_those_rows() -> None:
    outcome = ask("What is the daily per diem in Portugal?", [table_hit((0.4, 0.6, 0.6))])
    assert isinstance(outcome, Answered)
    assert "| Lisbon | Portugal | Tier 1 | €64 |" in outcome.answer
    assert "| Porto | Portugal | Tier 2 | €56 |" in outcome.answer
    assert "Amsterdam" not in outcome.answer


def test_a_superlative_picks_the_row_by_the_column_it_names() -> None:
    chargers = (
        "| Space | Charger | Power | Connector |\n| --- | --- | --- | --- |\n"
        "| B1 | Wallbox Pulsar | 7.4 kW | Type 2 |\n| B3 | ABB Terra AC | 22 kW | Type 2 |\n"
        "| B4 | ABB Terra DC | 50 kW | CCS |"
    )
    prose = hit(
        "parking.md#0",
        {"Four of the spaces have EV chargers.": 0.62},
        score=0.6,
        heading_path=("Parking and EV Charging", "Parking spaces"),
    )
    table = make_hit(
        "parking.md#1",
        chargers,
        kind="table",
        rank=2,
        score=0.5,
        heading_path=("Parking and EV Charging", "EV chargers"),
        sentences=(
            "Space: B1; Charger: Wallbox Pulsar; Power: 7.4 kW; Connector: Type 2",
            "Space: B3; Charger: ABB Terra AC; Power: 22 kW; Connector: Type 2",
            "Space: B4; Charger: ABB Terra DC; Power: 50 kW; Connector: CCS",
        ),
        unit_scores=(0.33, 0.33, 0.34),
    )
    outcome = ask("Which EV charger at the office is the fastest?", [prose, table])
    assert isinstance(outcome, Answered)
    assert outcome.answer.endswith("| B4 | ABB Terra DC | 50 kW | CCS | [parking.md#1]")
    assert "7.4 kW" not in outcome.answer


def test_a_comparison_ranks_only_the_rows_the_question_names() -> None:
    outcome = ask("Which of Lisbon and Porto pays the bigger daily per diem?", [table_hit()])
    assert isinstance(outcome, Answered)
    assert "| Lisbon | Portugal | Tier 1 | €64 |" in outcome.answer
    assert "Amsterdam" not in outcome.answer and "Porto |" not in outcome.answer  # €78 is not asked
    overall = ask("Which city pays the biggest daily per diem?", [table_hit()])
    assert isinstance(overall, Answered) and "| Amsterdam |" in overall.answer


PLANS = (
    "| Plan | Price | Seats included |\n"
    "|---|---|---|\n"
    "| Starter | Free | 1 seat |\n"
    "| Team | €49/month | 5 seats |\n"
    "| Business | €179/month | 20 seats |"
)


def test_a_row_named_by_its_label_is_quoted_over_rows_matching_other_cells() -> None:
    """A user pass: "What was the monthly price of the Starter plan …?" quoted the Team and
    Business rows, whose prices say "/month", and not the Starter row the question names."""
    plans = make_hit(
        "pricing.md#1",
        PLANS,
        kind="table",
        score=0.7,
        heading_path=("Pricing", "Plans at a glance"),
        sentences=(
            "Plan: Starter; Price: Free; Seats included: 1 seat",
            "Plan: Team; Price: €49/month; Seats included: 5 seats",
            "Plan: Business; Price: €179/month; Seats included: 20 seats",
        ),
        unit_scores=(0.45, 0.6, 0.6),
    )
    outcome = ask("What is the monthly price of the Starter plan?", [plans])
    assert isinstance(outcome, Answered)
    assert "| Starter | Free | 1 seat |" in outcome.answer
    assert "Team" not in outcome.answer and "Business" not in outcome.answer
    # A question naming no row by its label still gets the rows its words match.
    by_price = ask("Which plans are priced per month?", [plans])
    assert not isinstance(by_price, Answered) or "Starter" not in by_price.answer
