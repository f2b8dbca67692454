"""The extractive answerer and lists, over hand-built hits (as test_extractive.py): a lead-in
quoted with its items, an item one reading of several, a list item's later paragraph under
its first line, a bare list's item under its heading."""

from dataclasses import replace

from docent.contracts import Ambiguous, Answered, Hit
from generate.answer_gate import AnswerGate
from generate.extractive import ExtractiveGenerator
from render.prompt import render
from tests.generate.answering import ask, hit
from tests.render.builders import make_hit


def test_a_lead_in_with_items_of_different_figures_is_ambiguous_for_a_quantity_question() -> None:
    items = {
        "Hotel costs are capped per night, by city tier:": 0.7,
        "Tier 1 cities: up to €220 per night.": 0.62,
        "Tier 2 cities: up to €160 per night.": 0.6,
    }
    hotel = make_hit(
        "expenses.md#2",
        "Hotel costs are capped per night, by city tier:\n"
        "- Tier 1 cities: up to €220 per night.\n- Tier 2 cities: up to €160 per night.",
        sentences=tuple(items),
        unit_scores=tuple(items.values()),
        score=0.7,
        heading_path=("Expenses and Travel Policy", "Hotels"),
        best_sentence="Hotel costs are capped per night, by city tier:",
    )
    outcome = ask("What is the hotel cap per night?", [hotel])
    assert isinstance(outcome, Ambiguous)
    assert outcome.readings == tuple(list(items)[1:])
    assert outcome.clarifying_question == "Which one do you mean: Tier 1 cities or Tier 2 cities?"
    tier_one = ask("What is the hotel cap per night in Tier 1 cities?", [hotel])
    assert isinstance(tier_one, Answered)
    assert "€220" in tier_one.answer and "€160" not in tier_one.answer


def test_a_lead_in_quoted_beside_the_best_unit_brings_its_items() -> None:
    """Found in a user pass: "What hotel caps applied …?" quoted "… by city tier:" and the
    next rule, without the caps the lead-in introduces."""
    units = {
        "Hotel costs are capped per night, by city tier, excluding local tourist taxes:": 0.63,
        "Tier 1 cities: up to €220 per night.": 0.3,
        "Tier 2 cities: up to €160 per night.": 0.3,
        "If no hotel is available under the cap within 2 km of where you are working, ask "
        "your manager to approve the higher rate in TripDesk before you book.": 0.62,
    }
    hotels = make_hit(
        "expenses.md#2",
        "Hotel costs are capped per night, by city tier, excluding local tourist taxes:\n\n"
        "- Tier 1 cities: up to €220 per night.\n- Tier 2 cities: up to €160 per night.\n\n"
        "If no hotel is available under the cap within 2 km of where you are working, ask "
        "your manager to approve the higher rate in TripDesk before you book.",
        sentences=tuple(units),
        unit_scores=tuple(units.values()),
        score=0.7,
        heading_path=("Expenses and Travel Policy", "Hotels"),
    )
    outcome = ask("Which hotel caps apply?", [hotels])
    assert isinstance(outcome, Answered)
    assert "by city tier" in outcome.answer
    assert "€220" in outcome.answer and "€160" in outcome.answer
    assert outcome.citations[0].quote.splitlines()[:3] == list(units)[:3]


def hotel_list(tier_one: float, tier_two: float) -> Hit:
    units = {
        "Hotel costs are capped per night, by city tier:": 0.3,
        "Tier 1 cities: up to €220 per night.": tier_one,
        "Tier 2 cities: up to €160 per night.": tier_two,
        "Book through TripDesk.": 0.1,
    }
    return make_hit(
        "expenses.md#2",
        "Hotel costs are capped per night, by city tier:\n\n- Tier 1 cities: up to €220 per "
        "night.\n- Tier 2 cities: up to €160 per night.\n\nBook through TripDesk.",
        sentences=tuple(units),
        unit_scores=tuple(units.values()),
        score=0.7,
        heading_path=("Expenses and Travel Policy", "Hotels"),
    )


def test_a_list_item_whose_sibling_gives_another_figure_as_near_is_one_reading_of_two() -> None:
    """A user pass got "Tier 1 cities: up to €220 per night" alone, at 87 %, for "How much
    can I spend on a hotel per night?": the Tier 2 cap scored as near."""
    outcome = ask("How much can I spend on a hotel per night?", [hotel_list(0.62, 0.6)])
    assert isinstance(outcome, Ambiguous)
    assert outcome.readings == (
        "Tier 1 cities: up to €220 per night.",
        "Tier 2 cities: up to €160 per night.",
    )
    # A question that picks one out gets it alone.
    picked = ask("How much can I spend on a hotel per night in Tier 2?", [hotel_list(0.5, 0.75)])
    assert isinstance(picked, Answered)
    assert "€160" in picked.answer and "€220" not in picked.answer


def test_a_later_paragraph_of_a_list_item_is_quoted_under_the_items_first_line() -> None:
    """ "… should also be billed here." was the answer to "Which Tock code …?" at 88 %,
    without the item it means by "here" ("18F Hiring / Onboarding - #1241: …")."""
    units = {
        "Administrative - #1814: Time spent on required administrative tasks.": 0.3,
        "Hiring / Onboarding - #1241: Time spent on hiring and onboarding.": 0.5,
        "Interviews,": 0.2,
        "New employee onboarding activities during the first two weeks should also be billed "
        "here.": 0.74,
    }
    tock = make_hit(
        "tock.md#3",
        "- Administrative - #1814: Time spent on required administrative tasks.\n"
        "- Hiring / Onboarding - #1241: Time spent on hiring and onboarding.\n"
        "  - Interviews,\n"
        "  New employee onboarding activities during the first two weeks should also be "
        "billed here.",
        kind="list",
        sentences=tuple(units),
        unit_scores=tuple(units.values()),
        score=0.7,
        heading_path=("Tock", "Quick reference"),
    )
    outcome = ask(
        "Which code do new employees bill onboarding in their first two weeks to?", [tock]
    )
    assert isinstance(outcome, Answered)
    assert "#1241" in outcome.answer and "#1814" not in outcome.answer
    assert outcome.answer.index("#1241") < outcome.answer.index("billed here")


def test_list_items_quoted_together_are_each_the_block_s_own_line() -> None:
    items = {
        "First class airfare to offices for Executive Briefings ✈️+🍾": 0.66,
        "Winery tours 🍷": 0.1,
        "Economy class airfare to offices for Executive Briefings ✈️": 0.67,
    }
    block = make_hit(
        "gifts.md#4",
        "- " + "\n- ".join(items),
        score=0.6,
        kind="list",
        sentences=tuple(items),
        unit_scores=tuple(items.values()),
    )
    outcome = ask("Is first class airfare for an executive briefing ok?", [block])
    assert isinstance(outcome, Answered)  # the checks found the quote verbatim
    assert outcome.citations[0].quote.splitlines() == [
        "First class airfare to offices for Executive Briefings ✈️+🍾",
        "Economy class airfare to offices for Executive Briefings ✈️",
    ]


def test_an_item_of_a_bare_list_is_answered_under_its_heading() -> None:
    """ "- Alcohol, except at a client dinner approved in advance." under "Non-reimbursable
    expenses" reads as the opposite without its heading (found in a user pass); a list
    with a lead-in sentence says what its items are itself."""
    items = {
        "Alcohol, except at a client dinner approved in advance.": 0.8,
        "Fines, including parking and speeding fines.": 0.2,
    }
    bare = hit(
        "expenses.md#7",
        items,
        score=0.8,
        heading_path=("Expenses and Travel Policy", "Non-reimbursable expenses"),
        kind="list",
    )
    bare = replace(bare, chunk=replace(bare.chunk, text="\n".join(f"- {i}" for i in items)))
    outcome = ask("Can I claim alcohol at a client dinner?", [bare])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith(
        "Non-reimbursable expenses: Alcohol, except at a client dinner approved in advance"
    )
    led = replace(bare, chunk=replace(bare.chunk, text="We never pay for:\n" + bare.chunk.text))
    outcome = ask("Can I claim alcohol at a client dinner?", [led])
    assert isinstance(outcome, Answered) and "Non-reimbursable" not in outcome.answer


def test_a_held_draft_marks_its_best_unit_not_the_first_of_its_quote() -> None:
    """A user pass: "Is travel insurance reimbursable?" marked "Alcohol, …", the first item
    of the list quote the held-back draft began with, not the item it was built around."""
    items = (
        "Alcohol, except at a client dinner approved in advance.",
        "Upgrades to flights or hotels beyond the policy.",
        "Travel insurance: the company policy already covers you.",
    )
    listed = make_hit(
        "expenses.md#non-reimbursable",
        "\n".join(f"- {item}" for item in items),
        kind="list",
        sentences=items,
        unit_scores=(0.6, 0.55, 0.8),
        score=0.7,
        heading_path=("Expenses", "Non-reimbursable expenses"),
        best_sentence=items[2],
    )
    prompt = render("Is travel insurance reimbursable?", [listed], 2000)
    opened = ExtractiveGenerator(gate=AnswerGate(threshold=0.0)).generate(prompt, prompt.kept)
    assert isinstance(opened.outcome, Answered) and "Alcohol, except" in opened.outcome.answer
    held = ExtractiveGenerator(gate=AnswerGate(threshold=1.0)).generate(prompt, prompt.kept)
    assert held.pointers[0] == ("expenses.md#non-reimbursable", items[2])
