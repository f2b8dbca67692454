from datetime import date
from typing import Any

import pytest

from docent.contracts import Ambiguous, Answered, Hit, InsufficientEvidence
from generate.checks import verify
from generate.extractive import ExtractiveGenerator
from generate.tables import table_rows
from render.prompt import render
from tests.render.builders import make_hit

PER_DIEM = (
    "| City | Country | Tier | Daily per diem |\n"
    "|---|---|---|---|\n"
    "| Amsterdam | Netherlands | Tier 1 | €78 |\n"
    "| Lisbon | Portugal | Tier 1 | €64 |\n"
    "| Porto | Portugal | Tier 2 | €56 |"
)


def ask(question: str, hits: list[Hit], **options: Any) -> object:
    prompt = render(question, hits, 2000)
    generation = ExtractiveGenerator(**options).generate(prompt, prompt.kept)
    outcome, _ = verify(generation.outcome, prompt)  # what the user would see
    return outcome


def leave_hits() -> list[Hit]:
    return [
        make_hit(
            "handbook.md#3",
            "Full-time employees receive 25 days of paid annual leave per calendar year. "
            "Part-time employees receive a pro-rata share.",
            rank=1,
            score=0.71,
            heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
            best_sentence=(
                "Full-time employees receive 25 days of paid annual leave per calendar year."
            ),
        ),
        make_hit(
            "handbook.md#5",
            "You have 10 days of fully paid sick leave per calendar year.",
            rank=2,
            score=0.5,
            heading_path=("Employee Handbook", "Sick leave"),
            best_sentence="You have 10 days of fully paid sick leave per calendar year.",
        ),
    ]


def test_answers_with_the_supporting_sentence_and_its_citation() -> None:
    outcome = ask("How many days of paid annual leave do full-time employees get?", leave_hits())
    assert isinstance(outcome, Answered)
    assert outcome.answer == (
        "Full-time employees receive 25 days of paid annual leave per calendar year "
        "[handbook.md#3]."
    )
    (citation,) = outcome.citations
    assert citation.id == "handbook.md#3"
    assert citation.quote == (
        "Full-time employees receive 25 days of paid annual leave per calendar year."
    )


def test_abstains_when_no_sentence_answers_the_question() -> None:
    outcome = ask("What is the dress code for client meetings?", leave_hits())
    assert isinstance(outcome, InsufficientEvidence)


def test_a_quantity_question_needs_a_sentence_with_a_figure() -> None:
    hits = [
        make_hit(
            "remote.md#1",
            "Every employee who has completed probation may work remotely.",
            score=0.8,
            heading_path=("Remote Work", "Eligibility"),
            best_sentence="Every employee who has completed probation may work remotely.",
        )
    ]
    assert isinstance(ask("How many days may employees work remotely?", hits), InsufficientEvidence)
    assert isinstance(ask("Who may work remotely after probation?", hits), Answered)


def test_a_weakly_related_hit_is_not_an_answer() -> None:
    """Same subject, low reranker score: shares words, does not answer."""
    hits = [
        make_hit(
            "handbook.md#5",
            "You have 10 days of fully paid sick leave per calendar year.",
            score=0.36,
            heading_path=("Employee Handbook", "Sick leave"),
            best_sentence="You have 10 days of fully paid sick leave per calendar year.",
        )
    ]
    assert isinstance(
        ask("How many days of paid volunteering leave per year?", hits), InsufficientEvidence
    )


def superseded_pair(current_rank: int) -> list[Hit]:
    old = make_hit(
        "refunds-2022.md#1",
        "A support team lead may approve refunds up to €500.",
        rank=1 if current_rank == 2 else 2,
        score=0.8,
        heading_path=("Refunds Policy 2022", "Approval"),
        effective_date=date(2022, 4, 1),
        status="superseded",
        superseded_by="refunds.md",
        best_sentence="A support team lead may approve refunds up to €500.",
    )
    new = make_hit(
        "refunds.md#2",
        "A support team lead may approve refunds up to €1,000.",
        rank=current_rank,
        score=0.7,
        heading_path=("Refunds Policy", "Approval"),
        effective_date=date(2025, 3, 1),
        best_sentence="A support team lead may approve refunds up to €1,000.",
    )
    return sorted([old, new], key=lambda h: h.rank)


@pytest.mark.parametrize("current_rank", [1, 2])
def test_picks_the_current_figure_over_the_superseded_one(current_rank: int) -> None:
    outcome = ask(
        "How much can a support team lead approve for refunds?", superseded_pair(current_rank)
    )
    assert isinstance(outcome, Answered)
    assert "€1,000" in outcome.answer and "€500" not in outcome.answer
    assert [c.id for c in outcome.citations] == ["refunds.md#2"]
    assert outcome.citations[0].status == "current"


def test_a_superseded_block_whose_successor_is_present_is_never_quoted() -> None:
    old, new = superseded_pair(2)[0], superseded_pair(2)[1]
    # the successor is present but does not answer; the old block must still not be quoted
    off_topic = make_hit(
        "refunds.md#9",
        "Marketplace add-ons sold by third parties are not refunded.",
        rank=2,
        score=0.3,
        source="refunds.md",
        heading_path=("Refunds Policy", "Non-refundable items"),
    )
    outcome = ask("How much can a support team lead approve for refunds?", [old, off_topic])
    assert isinstance(outcome, InsufficientEvidence)
    # without its successor among the hits, a superseded block may answer (marked as such)
    outcome = ask("How much can a support team lead approve for refunds?", [old])
    assert isinstance(outcome, Answered)
    assert outcome.citations[0].status == "superseded"
    assert new.chunk.source == "refunds.md"


def table_hit(**fields: Any) -> Hit:
    return make_hit(
        "expenses.md#4",
        PER_DIEM,
        kind="table",
        score=0.72,
        heading_path=("Expenses and Travel Policy", "Per diem rates"),
        best_sentence="City: Lisbon; Country: Portugal; Tier: Tier 1; Daily per diem: €64",
        **fields,
    )


def test_a_table_answer_quotes_the_header_and_the_matching_row() -> None:
    outcome = ask("What is the daily per diem in Lisbon?", [table_hit()])
    assert isinstance(outcome, Answered)
    assert outcome.answer == (
        "| City | Country | Tier | Daily per diem |\n"
        "|---|---|---|---|\n"
        "| Lisbon | Portugal | Tier 1 | €64 | [expenses.md#4]"
    )
    assert outcome.citations[0].quote == outcome.answer.removesuffix(" [expenses.md#4]")
    assert "Amsterdam" not in outcome.answer and "€56" not in outcome.answer


def test_a_question_that_picks_no_row_is_ambiguous() -> None:
    outcome = ask("What is the daily per diem?", [table_hit()])
    assert isinstance(outcome, Ambiguous)
    assert outcome.readings == (
        "City: Amsterdam; Country: Netherlands; Tier: Tier 1; Daily per diem: €78",
        "City: Lisbon; Country: Portugal; Tier: Tier 1; Daily per diem: €64",
        "City: Porto; Country: Portugal; Tier: Tier 2; Daily per diem: €56",
    )
    assert outcome.clarifying_question == "Which one do you mean: Amsterdam, Lisbon or Porto?"


def test_a_question_naming_a_cell_shared_by_rows_quotes_those_rows() -> None:
    outcome = ask("What is the daily per diem in Portugal?", [table_hit()])
    assert isinstance(outcome, Answered)
    assert "| Lisbon | Portugal | Tier 1 | €64 |" in outcome.answer
    assert "| Porto | Portugal | Tier 2 | €56 |" in outcome.answer
    assert "Amsterdam" not in outcome.answer


def test_a_lead_in_with_items_of_different_figures_is_ambiguous_for_a_quantity_question() -> None:
    hit = make_hit(
        "expenses.md#2",
        "Hotel costs are capped per night, by city tier:\n"
        "- Tier 1 cities: up to €220 per night.\n- Tier 2 cities: up to €160 per night.",
        sentences=(
            "Hotel costs are capped per night, by city tier:",
            "Tier 1 cities: up to €220 per night.",
            "Tier 2 cities: up to €160 per night.",
        ),
        score=0.7,
        heading_path=("Expenses and Travel Policy", "Hotels"),
        best_sentence="Hotel costs are capped per night, by city tier:",
    )
    outcome = ask("What is the hotel cap per night?", [hit])
    assert isinstance(outcome, Ambiguous)
    assert outcome.readings == (
        "Tier 1 cities: up to €220 per night.",
        "Tier 2 cities: up to €160 per night.",
    )
    assert outcome.clarifying_question == "Which one do you mean: Tier 1 cities or Tier 2 cities?"
    tier_one = ask("What is the hotel cap per night in Tier 1 cities?", [hit])
    assert isinstance(tier_one, Answered)
    assert "€220" in tier_one.answer and "€160" not in tier_one.answer


def test_prefers_the_rerankers_best_sentence_among_equals() -> None:
    text = "Your probation review is in month 5. Probation lasts 6 months."
    hit = make_hit(
        "onboarding.md#3",
        text,
        score=0.74,
        heading_path=("New Starter Onboarding", "Probation"),
        best_sentence="Probation lasts 6 months.",
    )
    question = "How long is the probation period for new employees?"
    alone = ask(question, [hit], second_margin=0.0)
    assert isinstance(alone, Answered)
    assert alone.answer == "Probation lasts 6 months [onboarding.md#3]."
    both = ask(question, [hit])  # an equally close sentence of the same block joins it
    assert isinstance(both, Answered)
    assert both.answer == (
        "Your probation review is in month 5 [onboarding.md#3]. "
        "Probation lasts 6 months [onboarding.md#3]."
    )


def test_table_rows_parse_markdown_only() -> None:
    assert table_rows(PER_DIEM) == (
        "| City | Country | Tier | Daily per diem |\n|---|---|---|---|",
        [
            "| Amsterdam | Netherlands | Tier 1 | €78 |",
            "| Lisbon | Portugal | Tier 1 | €64 |",
            "| Porto | Portugal | Tier 2 | €56 |",
        ],
    )
    assert table_rows("no | table here") is None


def test_constructor_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="min_coverage"):
        ExtractiveGenerator(min_coverage=2)
    with pytest.raises(ValueError, match=">= 0"):
        ExtractiveGenerator(coverage_weight=-1)
