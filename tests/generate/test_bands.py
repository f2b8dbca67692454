"""Bands of a quantity among sibling list items and table rows (``generate.bands``): the
sibling whose band holds the quantity a question states answers, and is what a non-answer
highlights; caps (bands that overlap) choose nothing."""

import math

import pytest

from docent.contracts import Ambiguous, Answered, Hit
from generate.answer_gate import AnswerGate
from generate.bands import Band, band_pick, bands, quantities
from generate.extractive import ExtractiveGenerator
from generate.unit_scoring import Scored, Unit
from render.prompt import render
from tests.generate.answering import ask
from tests.render.builders import make_hit


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fewer than 3 years: 4 hours per pay period", Band(-math.inf, 3, "year", high_open=True)),
        ("Between 3 and 15 years: 6 hours per pay period", Band(3, 15, "year")),
        ("15+ years: 8 hours per pay period", Band(15, math.inf, "year")),
        ("3–15 years", Band(3, 15, "year")),
        ("5 years or more", Band(5, math.inf, "year")),
        ("purchases under €5,000 need one quote", Band(-math.inf, 5000, "€", high_open=True)),
        ("purchases from €5,000 to €25,000 need three", Band(5000, 25000, "€")),
        ("purchases above €25,000 need a tender", Band(25000, math.inf, "€", low_open=True)),
        ("up to 5 nights", Band(-math.inf, 5, "night")),
        ("not exceeding €5,000", Band(-math.inf, 5000, "€")),
        ("not more than 5 days", Band(-math.inf, 5, "day")),
        ("no less than 3 years", Band(3, math.inf, "year")),
        ("3 days or less", Band(-math.inf, 3, "day")),
    ],
)
def test_bands_read_ranges_bounds_and_open_ends(text: str, expected: Band) -> None:
    assert bands(text) == [expected]


def test_a_figure_that_is_no_bound_is_no_band() -> None:
    assert bands("Tier 1 cities cost €220 per night.") == []
    assert bands("You earn 4 hours per pay period.") == []
    assert bands("Aged 55 and 10 years of service") == []  # no range runs downwards
    assert bands("Clause 7.3 - 5 days") == []


@pytest.mark.parametrize("text", ["€12.000", "€12 000", "1,2,3 days", "3,5 years", "HR10 days"])
def test_a_number_written_another_way_is_skipped_not_guessed(text: str) -> None:
    """ "€12.000" may be twelve thousand: read as 12 it would pick the lowest band."""
    assert quantities(text) == []


@pytest.mark.parametrize(
    ("question", "value", "unit"),
    [
        ("with 10 years in government", 10, "year"),
        ("a €40k analytics platform", 40_000, "€"),
        ("about 2,500 dollars all-in", 2500, "$"),
        ("250km each way", 250, "km"),
        ("a €2m contract", 2_000_000, "€"),
        ("about €1.5 million", 1_500_000, "€"),
        ("USD 12,000 all in", 12_000, "$"),
    ],
)
def test_quantities_read_the_number_and_its_unit(question: str, value: float, unit: str) -> None:
    (found,) = quantities(question)
    assert (found.value, found.unit) == (value, unit)


LEAVE = (
    "Annual leave accrues based on how long you've worked for the federal government:",
    "Fewer than 3 years: 4 hours per pay period",
    "Between 3 and 15 years: 6 hours per pay period",
    "15+ years: 8 hours per pay period",
)


def leave_hit(scores: tuple[float, ...] = (0.55, 0.5, 0.5, 0.62)) -> Hit:
    """The 18F handbook's list, with the "15+ years" item scoring best (a user pass: "10
    years in government" was marked there)."""
    return make_hit(
        "leave.md#3",
        f"{LEAVE[0]}\n\n* {LEAVE[1]}\n* {LEAVE[2]}\n* {LEAVE[3]}",
        sentences=LEAVE,
        unit_scores=scores,
        score=0.7,
        heading_path=("Leave", "Annual leave"),
        best_sentence=LEAVE[3],
    )


@pytest.mark.parametrize(
    ("years", "item"), [("10 years", LEAVE[2]), ("2 years", LEAVE[1]), ("20 years", LEAVE[3])]
)
def test_the_item_whose_band_holds_the_asked_quantity_answers(years: str, item: str) -> None:
    outcome = ask(f"How much annual leave do I earn with {years} in government?", [leave_hit()])
    assert isinstance(outcome, Answered)
    assert item in outcome.answer
    assert [i for i in LEAVE[1:] if i in outcome.answer] == [item]
    assert outcome.answer.startswith(LEAVE[0])  # under the lead-in that says what it counts


def scored(text: str) -> Scored:
    return Scored(Unit(leave_hit(), text, "", 0), 0.5, 0.5, 0.0, 0.0)


def test_caps_that_overlap_choose_no_item() -> None:
    """A cap per tier is what a figure is tested against: "€180 a night" holds under both
    caps and chooses no tier (the tier is the asker's city's)."""
    caps = [scored("Tier 1 cities: up to €220 per night."), scored("Tier 2 cities: up to €160.")]
    assert band_pick("My hotel costs €180 a night, is that OK?", caps) is None
    assert band_pick("My hotel costs €200 a night, is that OK?", caps) is None


def test_bands_of_another_unit_or_a_shared_edge_choose_nothing() -> None:
    items = [scored(t) for t in LEAVE[1:]]
    assert band_pick("How much leave with 15 years in government?", items) is None  # two hold
    two = "I'm 2 years from retirement after 20 years in government; how much leave?"
    assert band_pick(two, items) is None  # the two quantities pick different items
    assert band_pick("How much leave with 10 months in government?", items) is None
    assert band_pick("How much annual leave do I earn?", items) is None


def test_a_bound_the_question_states_picks_the_band_that_contains_it() -> None:
    """A user pass: "Under the 2022 refunds policy, which finance role had to approve refunds
    above €500?" was answered with "A support team lead may approve refunds up to €500", the
    band whose edge €500 is, not the one the question's "above €500" is."""
    limits = [
        scored("A support team lead may approve refunds up to €500."),
        scored("Refunds above €500 need finance approval before they are paid."),
    ]
    assert band_pick("Who approves refunds above €500?", limits) is limits[1]
    assert band_pick("Who approves refunds of more than €800?", limits) is limits[1]
    assert band_pick("Who approves refunds up to €500?", limits) is limits[0]
    assert band_pick("Who approves refunds of up to €300?", limits) is limits[0]
    assert band_pick("Who approves a refund of €500?", limits) is limits[0]  # a figure, as before
    # A bound straddling both bands is in neither.
    assert band_pick("Who approves refunds up to €800?", limits) is None
    items = [scored(t) for t in LEAVE[1:]]
    assert band_pick("How much leave with more than 15 years in government?", items) is items[2]
    assert band_pick("How much leave with under 3 years in government?", items) is items[0]


THRESHOLDS = (
    "| Purchase value | Quotes needed |\n|---|---|\n"
    "| under €5,000 | one written quote |\n"
    "| from €5,000 to €25,000 | three written quotes |\n"
    "| above €25,000 | a formal tender |"
)
THRESHOLD_ROWS = (
    "Purchase value: under €5,000; Quotes needed: one written quote",
    "Purchase value: from €5,000 to €25,000; Quotes needed: three written quotes",
    "Purchase value: above €25,000; Quotes needed: a formal tender",
)


def test_a_table_row_whose_band_holds_the_quantity_answers() -> None:
    table = make_hit(
        "procurement.md#2",
        THRESHOLDS,
        kind="table",
        score=0.7,
        heading_path=("Procurement Policy", "Purchase thresholds"),
        sentences=THRESHOLD_ROWS,
        unit_scores=(0.8, 0.8, 0.8),
        best_sentence=THRESHOLD_ROWS[0],
    )
    outcome = ask("What do I need for a purchase of about €12,000?", [table])
    assert isinstance(outcome, Answered)
    assert "three written quotes" in outcome.answer
    assert "one written quote |" not in outcome.answer and "tender" not in outcome.answer
    unnamed = ask("What do I need for a purchase?", [table])
    assert isinstance(unnamed, Ambiguous)  # no quantity: no row is picked


def test_a_non_answer_highlights_the_item_whose_band_holds_the_quantity() -> None:
    """What the closest passage's excerpt marks (``generate.ask.closest_passages`` reads a
    block's first pointer): the held-back draft's item, not the lead-in or the best-scored
    "15+ years" item."""
    prompt = render(
        "How much annual leave do I earn with 10 years in government?", [leave_hit()], 2000
    )
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    generation = shut.generate(prompt, prompt.kept)
    assert not isinstance(generation.outcome, Answered)
    assert generation.pointers[0] == ("leave.md#3", LEAVE[2])
    low = leave_hit((0.2, 0.2, 0.2, 0.3))  # nothing close enough to draft an answer from
    prompt = render("How much annual leave do I earn with 2 years in government?", [low], 2000)
    assert shut.generate(prompt, prompt.kept).pointers[0] == ("leave.md#3", LEAVE[1])


def test_a_row_the_question_names_wins_over_a_band() -> None:
    units = (
        "Plan: Team; Users: up to 10 users; Price: €59/month",
        "Plan: Business; Users: from 11 to 25 users; Price: €199/month",
    )
    table = make_hit(
        "pricing.md#1",
        "| Plan | Users | Price |\n|---|---|---|\n| Team | up to 10 users | €59/month |\n"
        "| Business | from 11 to 25 users | €199/month |",
        kind="table",
        score=0.7,
        heading_path=("Pricing", "Plans"),
        sentences=units,
        unit_scores=(0.8, 0.8),
        best_sentence=units[1],
    )
    named = ask("How much does the Team plan cost for 20 users?", [table])  # band: Business
    assert isinstance(named, Answered) and "€59" in named.answer and "€199" not in named.answer
    picked = ask("How much does a plan cost for 20 users?", [table])
    assert isinstance(picked, Answered) and "€199" in picked.answer and "€59" not in picked.answer


def test_closed_ranges_that_overlap_still_pick_the_one_holding_the_figure() -> None:
    """Salary bands overlap at their ends; "€100,000" is in L5's alone (found in a user pass:
    the excerpt marked L7), "€116,000" in L5's and L6's (no pick)."""
    levels = [
        scored("Level: L5; Salary range: €92,000–€118,000"),
        scored("Level: L6; Salary range: €115,000–€142,000"),
        scored("Level: L7; Salary range: €138,000–€170,000"),
    ]
    assert band_pick("I earn €100,000, which level is that?", levels) is levels[0]
    assert band_pick("Which level pays €116,000?", levels) is None


def test_a_non_answer_marks_the_sentence_whose_bound_holds_the_figure() -> None:
    """Found in a user pass: "Who approves an expense claim of €3,000?" marked the line
    manager's "up to €2,500" sentence, not "Claims above €2,500 also need …"."""
    units = {
        "Your line manager approves claims up to €2,500 per claim.": 0.6,
        "Claims above €2,500 also need the approval of the Finance Director.": 0.5,
        "Nobody approves their own expenses.": 0.3,
    }
    block = make_hit(
        "expenses.md#6",
        " ".join(units),
        sentences=tuple(units),
        unit_scores=tuple(units.values()),
        score=0.7,
        heading_path=("Expenses", "Approval limits"),
    )
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    for amount, marked in (("€3,000", 1), ("€300", 0)):
        prompt = render(f"Who approves an expense claim of {amount}?", [block], 2000)
        assert shut.generate(prompt, prompt.kept).pointers[0][1] == list(units)[marked]


def test_a_non_answer_marks_the_one_sentence_that_bounds_the_figure() -> None:
    """Found on ../shared/corpora: "a nice dinner, maybe $200 ... do I need anyone's
    sign-off?" marked three sentences of the gifts policy, none of them "for any expenses
    exceeding $150, you'll need approval" (fourth by meaning). A lone bound in the figure's
    unit is marked first, on either side of it; a bound in another unit is not."""
    units = {
        "If you plan to give an informal gift, follow the process below.": 0.62,
        "Dinner with a customer might seem trivial but can carry great value.": 0.6,
        "Always ask what their own rules allow.": 0.55,
        "For any expenses exceeding $150, you will need approval from Legal in writing.": 0.5,
        "Trips longer than 3 days are reviewed by Finance.": 0.45,
    }
    block = make_hit(
        "gifts.md#2",
        " ".join(units),
        sentences=tuple(units),
        unit_scores=tuple(units.values()),
        score=0.7,
        heading_path=("Gifts and Entertainment", "Process"),
    )
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    for question, marked in (
        ("I want to take a customer to dinner, maybe $200. Do I need sign-off?", 3),
        ("Is a $40 lunch with a customer fine without approval?", 3),
        ("Can I take a customer to dinner on a 2 day trip?", 4),  # the bound in days
    ):
        prompt = render(question, [block], 2000)
        assert shut.generate(prompt, prompt.kept).pointers[0][1] == list(units)[marked], question
    # Two figures, each bounded by another sentence: neither is marked for it.
    prompt = render("Hired 3 days ago: can I take a customer to a $200 dinner?", [block], 2000)
    assert shut.generate(prompt, prompt.kept).pointers[0][1] not in (list(units)[3:])
    # No figure: meaning and shared words decide, not a bound.
    prompt = render("Can I take a customer to dinner?", [block], 2000)
    assert shut.generate(prompt, prompt.kept).pointers[0][1] == list(units)[1]
