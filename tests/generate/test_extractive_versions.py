"""The extractive answerer and versions, over hand-built hits (as test_extractive.py): the
current rule over a superseded one, a question naming a past version answered from it with
the current rule beside it — its counterpart, never another part's or document's sentence."""

from dataclasses import replace
from datetime import date

import pytest

from docent.contracts import Ambiguous, Answered, Hit, InsufficientEvidence
from generate.reasons import VERSION_MISSING
from tests.generate.answering import ask, hit
from tests.render.builders import make_hit


def superseded_pair(current_rank: int) -> list[Hit]:
    old = hit(
        "refunds-2022.md#1",
        {"A support team lead may approve refunds up to €500.": 0.8},
        rank=1 if current_rank == 2 else 2,
        score=0.8,
        heading_path=("Refunds Policy 2022", "Approval"),
        effective_date=date(2022, 4, 1),
        status="superseded",
        superseded_by="refunds.md",
        title="Refunds Policy 2022",
    )
    new = hit(
        "refunds.md#2",
        {"A support team lead may approve refunds up to €1,000.": 0.78},
        rank=current_rank,
        score=0.7,
        heading_path=("Refunds Policy", "Approval"),
        effective_date=date(2025, 3, 1),
        title="Refunds Policy",
    )
    return sorted([old, new], key=lambda h: h.rank)


@pytest.mark.parametrize("current_rank", [1, 2])
def test_picks_the_current_figure_over_the_superseded_one(current_rank: int) -> None:
    outcome = ask(
        "How much can a support team lead approve for refunds?", superseded_pair(current_rank)
    )
    assert isinstance(outcome, Answered)
    assert "€1,000" in outcome.answer and "€500" not in outcome.answer
    assert [c.status for c in outcome.citations] == ["current"]


@pytest.mark.parametrize(
    "question",
    [
        "How much could a support team lead approve for refunds under the 2022 policy?",
        "What was the old approval limit for refunds by a support team lead?",
    ],
)
def test_a_question_naming_a_past_version_is_answered_from_it_beside_the_current(
    question: str,
) -> None:
    outcome = ask(question, superseded_pair(1))
    assert isinstance(outcome, Answered)
    first, second = outcome.answer.split("\n")
    assert first.startswith("Under the superseded version (effective 2022-04-01):")
    assert "€500" in first and "€1,000" in second
    assert second.startswith("The current version (effective 2025-03-01):")
    assert [c.status for c in outcome.citations] == ["superseded", "current"]


def test_the_current_rule_is_shown_beside_the_old_even_when_it_scores_below_the_bar() -> None:
    old, new = superseded_pair(2)
    # The successor's block says it in other words, too far from the question to answer it
    # alone; without it beside the old rule, the checks refuse the answer (successor shown,
    # not cited) and a past-version question gets nothing.
    reworded = hit(
        "refunds.md#2",
        {"Leads sign off on customer reimbursements of at most €1,000.": 0.1},
        rank=2,
        score=0.2,
        heading_path=("Refunds Policy", "Approval"),
        effective_date=new.chunk.effective_date,
        title="Refunds Policy",
    )
    outcome = ask(
        "What was the old approval limit for refunds by a support team lead?", [old, reworded]
    )
    assert isinstance(outcome, Answered)
    first, second = outcome.answer.split("\n")
    assert "€500" in first and second.startswith("The current version (effective 2025-03-01):")
    assert "€1,000" in second
    assert [c.status for c in outcome.citations] == ["superseded", "current"]


@pytest.mark.parametrize("closeness", [0.2, 0.9])
def test_another_section_of_the_successor_is_never_quoted_as_the_current_rule(
    closeness: float,
) -> None:
    """However close to the question (0.9: a user pass saw a DMCA policy's "merit of their
    claims" quoted as the current rule on counter notices)."""
    old, _ = superseded_pair(2)
    eligibility = hit(
        "refunds.md#5",
        {"Customers must return the item within 30 days to be eligible.": closeness},
        rank=2,
        score=0.3,
        heading_path=("Refunds Policy", "Eligibility"),
        effective_date=date(2025, 3, 1),
        title="Refunds Policy",
    )
    outcome = ask(
        "What was the old approval limit for refunds by a support team lead?", [old, eligibility]
    )
    # Not "the current version: … within 30 days …": with no current approval rule shown,
    # the old rule alone fails the checks (its successor is shown and not cited).
    assert not isinstance(outcome, Answered)


def test_a_like_worded_sentence_of_another_section_is_not_the_counterpart() -> None:
    """A review: "Refunds to business accounts are approved by finance within 10 days"
    (another section) shares many of "Approved refunds are paid within 10 business days"'s
    words, the figure among them; it is not the current processing rule."""
    old = hit(
        "refunds-2022.md#3",
        {"Approved refunds are paid within 10 business days.": 0.8},
        score=0.7,
        heading_path=("Refunds Policy 2022", "Processing time"),
        status="superseded",
        superseded_by="refunds.md",
        effective_date=date(2022, 4, 1),
        title="Refunds Policy 2022",
    )
    business = hit(
        "refunds.md#6",
        {"Refunds to business accounts are approved by finance within 10 days of a request.": 0.8},
        rank=2,
        score=0.7,
        heading_path=("Refunds Policy", "Business accounts"),
        effective_date=date(2025, 3, 1),
        title="Refunds Policy",
    )
    outcome = ask(
        "How long did approved refunds take to be paid under the old policy?", [old, business]
    )
    assert not (isinstance(outcome, Answered) and "business accounts" in outcome.answer)


def test_another_documents_rule_is_never_quoted_as_the_current_version() -> None:
    old, _ = superseded_pair(2)
    handbook = hit(
        "handbook.md#9",
        {"A support team lead may approve goodwill credits up to €200.": 0.9},
        rank=2,
        score=0.8,
        heading_path=("Handbook", "Support"),
        effective_date=date(2024, 1, 1),
    )
    outcome = ask(
        "What was the old approval limit for refunds by a support team lead?", [old, handbook]
    )
    assert isinstance(outcome, Answered) and "€500" in outcome.answer
    assert "The current version" not in outcome.answer and "€200" not in outcome.answer


def test_a_superseded_block_whose_successor_is_present_is_never_quoted() -> None:
    old = superseded_pair(2)[0]
    off_topic = hit(
        "refunds.md#9",
        {"Marketplace add-ons sold by third parties are not refunded.": 0.2},
        rank=2,
        score=0.3,
        heading_path=("Refunds Policy", "Non-refundable items"),
    )
    question = "How much can a support team lead approve for refunds?"
    assert isinstance(ask(question, [old, off_topic]), InsufficientEvidence)
    alone = ask(question, [old])  # without its successor, a superseded block may answer
    assert isinstance(alone, Answered) and alone.citations[0].status == "superseded"


def test_the_current_version_beside_the_oldest_of_a_chain_is_the_one_in_force() -> None:
    """2022 → 2023 → 2025: the 2022 policy's successor is itself superseded; the rule beside
    the 2022 one is the 2025 policy's, labelled current (found in a review: none was shown)."""
    old, new = superseded_pair(2)
    middle = hit(
        "refunds-2023.md#2",
        {"A support team lead may approve refunds up to €750.": 0.79},
        rank=3,
        score=0.6,
        heading_path=("Refunds Policy 2023", "Approval"),
        effective_date=date(2023, 5, 1),
        status="superseded",
        superseded_by="refunds.md",
        title="Refunds Policy 2023",
    )
    oldest = replace(old.chunk, superseded_by="refunds-2023.md")
    hits = [replace(old, chunk=oldest), new, middle]
    outcome = ask("What could a support team lead approve for refunds under the 2022 policy?", hits)
    assert isinstance(outcome, Answered)
    first, second = outcome.answer.split("\n")
    assert "€500" in first and first.startswith("Under the superseded version (effective 2022")
    assert "€1,000" in second and second.startswith("The current version (effective 2025-03-01)")
    assert "€750" not in outcome.answer


PLANS_2023 = (
    "| Plan | Price | Seats included |\n|---|---|---|\n"
    "| Starter | Free | 1 seat |\n| Team | €49/month | 5 seats |\n"
    "| Business | €179/month | 20 seats |"
)
PLAN_ROWS_2023 = (
    "Plan: Starter; Price: Free; Seats included: 1 seat",
    "Plan: Team; Price: €49/month; Seats included: 5 seats",
    "Plan: Business; Price: €179/month; Seats included: 20 seats",
)


def plans_2023() -> Hit:
    return make_hit(
        "pricing-2023.md#1",
        PLANS_2023,
        kind="table",
        score=0.7,
        heading_path=("Pricing 2023", "Plans at a glance"),
        sentences=PLAN_ROWS_2023,
        unit_scores=(0.8, 0.82, 0.8),
        best_sentence=PLAN_ROWS_2023[1],
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )


def test_a_past_versions_table_the_question_names_no_row_of_is_quoted_whole() -> None:
    """Found in a user pass: "Which plans were offered in 2024?" was answered with the 2023
    Team row alone, as if it were the only plan."""
    outcome = ask("Which plans were offered in 2024?", [plans_2023()])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("Under the superseded version (effective 2023-01-01):")
    for plan in ("| Starter |", "| Team |", "| Business |"):
        assert plan in outcome.answer
    named = ask("What did the Business plan cost in 2024?", [plans_2023()])
    assert isinstance(named, Answered)
    assert "| Business |" in named.answer and "| Team |" not in named.answer


def test_a_long_past_table_the_question_names_no_row_of_asks_which_row() -> None:
    """More rows than an answer should quote (found in a review: they fell back to a row
    quoted without its "superseded" label)."""
    rows = tuple(f"City: City {n}; Daily per diem: €{40 + n}" for n in range(14))
    table = make_hit(
        "per-diem-2023.md#1",
        "| City | Daily per diem |\n|---|---|\n"
        + "\n".join(f"| City {n} | €{40 + n} |" for n in range(14)),
        kind="table",
        score=0.7,
        heading_path=("Per diem 2023", "Rates"),
        sentences=rows,
        unit_scores=(0.8,) * 14,
        best_sentence=rows[0],
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="per-diem.md",
        title="Per diem 2023",
    )
    outcome = ask("What were the daily per diem rates in 2023?", [table])
    assert isinstance(outcome, Ambiguous)


def test_a_past_tables_row_a_quantity_picks_is_quoted_alone_and_marked() -> None:
    rows = (
        "Purchase value: under €5,000; Quotes needed: one written quote",
        "Purchase value: from €5,000 to €25,000; Quotes needed: three written quotes",
        "Purchase value: above €25,000; Quotes needed: a formal tender",
    )
    table = make_hit(
        "procurement-2023.md#1",
        "| Purchase value | Quotes needed |\n|---|---|\n| under €5,000 | one written quote |\n"
        "| from €5,000 to €25,000 | three written quotes |\n| above €25,000 | a formal tender |",
        kind="table",
        score=0.7,
        heading_path=("Procurement 2023", "Thresholds"),
        sentences=rows,
        unit_scores=(0.8, 0.8, 0.8),
        best_sentence=rows[0],
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="procurement.md",
        title="Procurement 2023",
    )
    outcome = ask("What did a purchase of €12,000 need in 2023?", [table])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("Under the superseded version (effective 2023-01-01):")
    assert "three written quotes" in outcome.answer and "tender" not in outcome.answer


def test_a_past_versions_sentence_brings_the_one_that_goes_on_with_it_under_its_heading() -> None:
    """Found in a user pass: "What did the Business plan include in 2023?" dropped "It adds
    …"; "Did the 2023 Team plan include email support?" quoted "It includes …" with
    nothing for "It" to name."""
    old = hit(
        "pricing-2023.md#2",
        {
            "The Business plan costs €179/month and includes 20 seats.": 0.8,
            "It adds audit logs and priority support.": 0.5,
            "Invoices are monthly.": 0.2,
        },
        score=0.8,
        heading_path=("Pricing 2023", "Business plan"),
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )
    outcome = ask("What did the Business plan include in 2023?", [old])
    assert isinstance(outcome, Answered) and "audit logs" in outcome.answer
    alone = hit(
        "pricing-2023.md#3",
        {"Seats cost extra.": 0.2, "It includes unlimited dashboards and email support.": 0.9},
        score=0.8,
        heading_path=("Pricing 2023", "Team plan"),
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )
    marked = ask("Did the 2023 Team plan include email support?", [alone])
    assert isinstance(marked, Answered)
    assert "Team plan: It includes unlimited dashboards" in marked.answer


def test_an_old_rule_asked_for_without_an_earlier_version_among_the_passages_is_not_todays() -> (
    None
):
    """A user pass: "What was the old Tier 1 hotel cap?" got today's €220 as a checked
    answer; no earlier version of the hotel caps is in the documents. Only a rule named as
    old counts: "my old job", "prior written notice" ask for today's rule."""
    current = hit(
        "expenses.md#5",
        {"If you use your own car for business travel, claim €0.35 per km.": 0.78},
        score=0.75,
        heading_path=("Expenses and Travel Policy", "Mileage and ground transport"),
        effective_date=date(2024, 4, 1),
        title="Expenses and Travel Policy",
    )
    outcome = ask("What was the old mileage rate per km?", [current])
    assert isinstance(outcome, InsufficientEvidence) and outcome.missing == VERSION_MISSING
    today = ask("I used my old car for business travel: how much per km?", [current])
    assert isinstance(today, Answered) and "€0.35" in today.answer
