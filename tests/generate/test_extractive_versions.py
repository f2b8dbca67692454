"""The extractive answerer and versions, over hand-built hits (as test_extractive.py): the
current rule over a superseded one, a question naming a past version answered from it with
the current rule beside it — its counterpart, never another part's or document's sentence."""

from dataclasses import replace
from datetime import date

import pytest

from docent.contracts import Ambiguous, Answered, Hit, InsufficientEvidence
from generate.reasons import UNCLEAR, VERSION_MISSING
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


def pricing_versions() -> list[Hit]:
    old = hit(
        "pricing-2023.md#2",
        {"The Business plan costs €179/month and includes 20 seats.": 0.7},
        score=0.7,
        heading_path=("Pricing 2023", "Business plan"),
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )
    now = hit(
        "pricing.md#4",
        {"The Enterprise plan is priced on request and includes unlimited seats.": 0.8},
        rank=2,
        score=0.8,
        heading_path=("Pricing", "Enterprise plan"),
        effective_date=date(2025, 1, 1),
        title="Pricing",
    )
    business = hit(
        "pricing.md#3",
        {"The Business plan costs €199/month and includes 25 seats.": 0.6},
        rank=3,
        score=0.6,
        heading_path=("Pricing", "Business plan"),
        effective_date=date(2025, 1, 1),
        title="Pricing",
    )
    return [old, now, business]


def test_a_name_the_past_version_never_gives_is_not_answered_from_its_nearest_unit() -> None:
    """Found in a user pass: "What did the Enterprise plan cost in 2023?" got the 2023
    Business plan's price as a checked answer; the 2023 price list has no Enterprise plan."""
    outcome = ask("What did the Enterprise plan cost in 2023?", pricing_versions())
    assert isinstance(outcome, InsufficientEvidence)
    assert outcome.missing == UNCLEAR
    # A name the old version gives is answered from it as before.
    business = ask("What did the Business plan cost in 2023?", pricing_versions())
    assert isinstance(business, Answered), business
    assert "€179/month" in business.answer and "€199/month" in business.answer


def test_a_past_version_that_says_nothing_of_it_is_not_called_missing() -> None:
    """Found in a user pass: "Was there an uptime commitment in the 2023 pricing?" was told
    that version is not in the documents; it is, and says nothing about uptime."""
    _, now, _ = pricing_versions()
    silent = hit(
        "pricing-2023.md#5",
        {"Every paid plan starts with a 14-day free trial.": 0.05},
        score=0.3,
        heading_path=("Pricing 2023", "Free trial"),
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )
    outcome = ask("Was there an uptime commitment in the 2023 pricing?", [now, silent])
    assert isinstance(outcome, InsufficientEvidence)
    assert outcome.missing != VERSION_MISSING


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


@pytest.mark.parametrize(
    "question",
    [
        "what did the enterprise plan cost in 2023?",
        "Hi, What did the Enterprise plan cost in 2023?",
    ],
)
def test_a_name_is_read_in_any_case(question: str) -> None:
    """A review: all lower case, the name check was skipped and the Business plan's price came
    back; a sentence opened after a comma made "What" a name."""
    outcome = ask(question, pricing_versions())
    assert isinstance(outcome, InsufficientEvidence) and outcome.missing == UNCLEAR
    business = ask("Hi, What did the Business plan cost in 2023?", pricing_versions())
    assert isinstance(business, Answered) and "€179/month" in business.answer


def test_todays_rule_beside_an_old_one_is_of_the_same_named_thing() -> None:
    """A user pass: beside the 2023 Business plan's price, "The current version" quoted the
    Team plan's, which shares every other word."""
    old, _, _ = pricing_versions()
    team = hit(
        "pricing.md#2",
        {"The Team plan costs €59/month and includes 10 seats.": 0.5},
        rank=2,
        score=0.5,
        heading_path=("Pricing", "Team plan"),
        effective_date=date(2025, 1, 1),
        title="Pricing",
    )
    outcome = ask("What did the Business plan cost in 2023?", [old, team])
    assert not isinstance(outcome, Answered) or "Team plan" not in outcome.answer, outcome


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


def test_an_old_rule_asked_for_without_an_earlier_version_among_the_passages_is_not_todays() -> (
    None
):
    """A user pass: "What was the old Tier 1 hotel cap?" got today's €220 as a checked
    answer; no earlier version of the hotel caps is in the documents. Only a rule named as
    old counts: "my old job", "prior written notice" ask for today's rule."""
    _, current = pending_pair()
    outcome = ask("What was the old mileage rate per km?", [current])
    assert isinstance(outcome, InsufficientEvidence) and outcome.missing == VERSION_MISSING
    today = ask("I used my old car for business travel: how much per km?", [current])
    assert isinstance(today, Answered) and "€0.35" in today.answer
