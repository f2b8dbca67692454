"""The extractive answerer over hand-built hits whose ``unit_scores`` are what the reranker
records (question–sentence cosines): the choice by meaning and answer type, abstention;
versions are in test_extractive_versions.py, lists in test_extractive_lists.py, tables in
test_table_answers.py. What the user would see is checked after ``verify``. The answer gate
is open here (these tests are about which unit answers); tests/generate/test_answer_gate.py
tests whether one should."""

import pytest

from docent.contracts import Answered, Hit, InsufficientEvidence
from generate.unit_scoring import Weights
from tests.generate.answering import ask, hit
from tests.render.builders import make_hit


def leave_hits() -> list[Hit]:
    return [
        hit(
            "handbook.md#3",
            {
                "Full-time employees receive 25 days of paid annual leave per calendar year.": 0.7,
                "Part-time employees receive a pro-rata share.": 0.3,
            },
            score=0.71,
            heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
        ),
        hit(
            "handbook.md#5",
            {"You have 10 days of fully paid sick leave per calendar year.": 0.45},
            score=0.5,
            rank=2,
            heading_path=("Employee Handbook", "Sick leave"),
        ),
    ]


def test_answers_with_the_supporting_sentence_and_its_citation() -> None:
    outcome = ask("How many days of paid annual leave do full-time employees get?", leave_hits())
    assert isinstance(outcome, Answered)
    # The block's other sentence shares the question's words ("employees"): it reads with it.
    assert outcome.answer == (
        "Full-time employees receive 25 days of paid annual leave per calendar year "
        "[handbook.md#3]. Part-time employees receive a pro-rata share [handbook.md#3]."
    )
    (citation,) = outcome.citations
    assert citation.quote == (
        "Full-time employees receive 25 days of paid annual leave per calendar year. "
        "Part-time employees receive a pro-rata share."
    )


def test_abstains_when_no_unit_is_close_enough() -> None:
    hits = [
        hit(
            "handbook.md#3",
            {"Full-time employees receive 25 days of paid annual leave per calendar year.": 0.12},
            score=0.41,
        )
    ]
    assert isinstance(
        ask("What is the dress code for client meetings?", hits), InsufficientEvidence
    )


def test_meaning_wins_over_shared_words() -> None:
    """ "Spain", "summer" and "weeks" are in no sentence: the abroad rule answers by meaning,
    not the working-week sentence that shares "work" and "week"."""
    hits = [
        hit(
            "handbook.md#1",
            {"Our standard working week is 39 hours for full-time staff.": 0.31},
            score=0.45,
            heading_path=("Employee Handbook", "Working hours"),
        ),
        hit(
            "remote-work.md#2",
            {
                "You may work from a country other than your country of employment for up to "
                "30 working days per calendar year.": 0.59,
            },
            score=0.56,
            rank=2,
            heading_path=("Remote Work Policy", "Working from abroad"),
        ),
    ]
    outcome = ask("Can I work from Spain for a few weeks in the summer?", hits)
    assert isinstance(outcome, Answered)
    assert "30 working days" in outcome.answer and "39 hours" not in outcome.answer


def test_a_days_question_is_answered_by_a_number_of_days_not_of_months() -> None:
    hits = [
        hit(
            "holidays.html#0",
            {
                "If you are asked to work on a public holiday, you receive a day off in lieu, "
                "to be taken within 3 months.": 0.56,
            },
            score=0.56,
            heading_path=("Public Holidays 2026", "How holidays work"),
        ),
        hit(
            "handbook.md#2",
            {
                "Full-time employees receive 25 days of paid annual leave per calendar year, in "
                "addition to the public holidays of the country where they are employed.": 0.55,
            },
            score=0.49,
            rank=2,
            heading_path=("Employee Handbook", "Annual leave", "Entitlement"),
        ),
    ]
    outcome = ask("How many holiday days do I get a year?", hits)
    assert isinstance(outcome, Answered)
    assert "25 days" in outcome.answer and "3 months" not in outcome.answer


def test_a_figure_question_without_a_unit_of_that_figure_abstains() -> None:
    rule = "Every employee who has completed probation may work remotely."
    hits = [
        hit("remote.md#1", {rule: 0.75}, score=0.8, heading_path=("Remote Work", "Eligibility"))
    ]
    assert isinstance(ask("How many days may employees work remotely?", hits), InsufficientEvidence)
    assert isinstance(ask("Who may work remotely after probation?", hits), Answered)


def test_a_policy_overview_quotes_the_policy_not_its_scope() -> None:
    scope = hit(
        "severance.pdf#0",
        {"These guidelines set the severance the company offers to redundant roles.": 0.69},
        score=0.65,
        heading_path=("Severance Guidelines", "Scope"),
        title="Severance Guidelines",
    )
    standard = hit(
        "severance.pdf#1",
        {
            "The standard package pays two weeks of base pay per completed year of service.": 0.21,
            "Statutory redundancy pay is included in this amount.": 0.42,
        },
        score=0.54,
        rank=2,
        heading_path=("Severance Guidelines", "Standard package"),
        title="Severance Guidelines",
    )
    outcome = ask("What is the severance policy?", [scope, standard])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("The standard package pays two weeks")
    assert "These guidelines" not in outcome.answer


def test_a_rule_and_its_exception_in_a_short_block_read_together() -> None:
    block = hit(
        "remote-work.md#1",
        {
            "Every employee who has completed probation may work fully remotely.": 0.41,
            "During probation we ask new starters to spend at least two days a week in an "
            "office.": 0.33,
        },
        score=0.49,
        heading_path=("Remote Work Policy", "Eligibility"),
    )
    outcome = ask("How many days a week can I work remotely?", [block])
    assert isinstance(outcome, Answered)
    assert "fully remotely" in outcome.answer and "two days a week" in outcome.answer


def test_a_sentence_referring_back_to_the_answer_goes_on_with_it() -> None:
    """Found in a user pass: "What does the Business plan include?" got the price and seats
    without "It adds audit logs, …", which shares none of the question's words."""
    units = {
        "The Business plan costs €199/month and includes 25 seats.": 0.8,
        "It adds audit logs, custom data retention and priority support.": 0.4,
        "Invoices are sent monthly.": 0.3,
        "Enterprise pricing is by quote.": 0.3,
        "Seats can be added at any time.": 0.3,
    }
    block = hit("pricing.md#3", units, score=0.7, heading_path=("Pricing", "Business plan"))
    outcome = ask("What does the Business plan include?", [block])
    assert isinstance(outcome, Answered)
    assert "audit logs" in outcome.answer
    assert "Invoices" not in outcome.answer and "Enterprise" not in outcome.answer


def test_a_sentence_referring_back_one_sentence_on_comes_with_the_one_between() -> None:
    """Found in a user pass: "What does the Team plan include?" got the price and seats; its
    "It includes …" comes after the extra seat's price. A figure question keeps to its
    figure: the sentence between gives another price."""
    units = {
        "The Team plan costs €59/month and includes 10 seats.": 0.8,
        "Each additional seat costs €7 per seat per month.": 0.5,
        "It includes unlimited dashboards, scheduled reports, and email support.": 0.5,
        "Invoices are sent monthly.": 0.3,
        "Seats can be added at any time.": 0.3,
    }
    block = hit("pricing.md#2", units, score=0.7, heading_path=("Pricing", "Team plan"))
    outcome = ask("What does the Team plan include?", [block])
    assert isinstance(outcome, Answered)
    assert "€7 per seat" in outcome.answer and "scheduled reports" in outcome.answer
    assert "Invoices" not in outcome.answer
    priced = ask("How much does the Team plan cost per month?", [block])
    assert isinstance(priced, Answered) and "€59/month" in priced.answer
    assert "€7" not in priced.answer and "scheduled reports" not in priced.answer


@pytest.mark.parametrize(
    ("question", "after"),
    [
        ("How often are laptops replaced?", "IT asset tags must never be removed."),
        ("How often are laptops replaced?", "This policy is reviewed annually by Finance."),
        ("How often are laptops replaced?", "These exceptions apply:"),
        ("How many days of leave do new staff get?", "Their managers get 30 days."),
    ],
)
def test_a_sentence_after_the_answer_that_goes_elsewhere_is_not_quoted_with_it(
    question: str, after: str
) -> None:
    """Found in a review: a department ("IT"), a sentence about the document, a lead-in
    without its items, another figure of the asked kind."""
    first = (
        "Laptops are replaced every three years."
        if "laptops" in question
        else "New staff get 20 days of leave."
    )
    units = {first: 0.8, after: 0.3, "Ask the service desk.": 0.2, "Keep receipts.": 0.2}
    units |= {"Other rules live elsewhere.": 0.2}
    block = hit("it.md#1", units, score=0.7, heading_path=("IT Policy", "Equipment"))
    outcome = ask(question, [block])
    assert isinstance(outcome, Answered)
    assert after.rstrip(":.") not in outcome.answer


def test_an_answer_opening_it_names_what_it_is_about() -> None:
    """Found in a user pass: "Does the Team plan include scheduled reports?" was answered
    "It includes unlimited dashboards, scheduled reports, …", "It" naming nothing."""
    units = {
        "The Team plan costs €59/month.": 0.3,
        "Each additional seat costs €7.": 0.2,
        "It includes unlimited dashboards, scheduled reports and email support.": 0.9,
    }
    block = hit("pricing.md#2", units, score=0.7, heading_path=("Pricing", "Team plan"))
    outcome = ask("Does the Team plan include scheduled reports?", [block])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("Team plan: It includes unlimited dashboards")


def test_a_worked_example_is_not_quoted_as_the_rule() -> None:
    """A user pass got "You will earn 104 more sick leave hours (26 pay periods x 4 hours per
    pay period)" at 87 % for "how many hours do I earn each pay period": the figures of a
    "For example:" paragraph are someone's case."""
    example = {
        "For example: You have one year left on your term, which equals to 26 pay periods.": 0.5,
        "You will earn 104 more sick leave hours (26 pay periods x 4 hours per pay period).": 0.72,
    }
    advanced = make_hit(
        "advanced-sick-leave.md#0",
        "You can request up to 240 hours of advanced sick leave.\n\n" + " ".join(example),
        sentences=("You can request up to 240 hours of advanced sick leave.", *example),
        unit_scores=(0.4, *example.values()),
        score=0.7,
        heading_path=("Advanced sick leave",),
    )
    rule = hit(
        "leave.md#7",
        {"All employees accrue four hours of sick leave per pay period.": 0.68},
        score=0.65,
        rank=2,
        heading_path=("Leave", "Sick leave"),
    )
    question = "How many hours of sick leave do I earn each pay period?"
    outcome = ask(question, [advanced, rule])
    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("All employees accrue four hours")
    assert "104" not in outcome.answer
    # A passage's own rule before its example; with nothing else to say it, an example
    # still answers (and the gate judges it).
    own = ask(question, [advanced])
    assert isinstance(own, Answered) and "104" not in own.answer
    only = make_hit(
        "advanced-sick-leave.md#1",
        " ".join(example),
        sentences=tuple(example),
        unit_scores=tuple(example.values()),
        score=0.7,
    )
    alone = ask(question, [only])
    assert isinstance(alone, Answered) and "104" in alone.answer


def test_without_unit_scores_the_hit_relevance_stands_in() -> None:
    """A reranker that read no units (or an older index) still gets answers."""
    plain = make_hit(
        "handbook.md#3",
        "Full-time employees receive 25 days of paid annual leave per calendar year.",
        score=0.75,
        best_sentence="Full-time employees receive 25 days of paid annual leave per calendar year.",
    )
    outcome = ask("How many days of paid annual leave do full-time employees get?", [plain])
    assert isinstance(outcome, Answered) and "25 days" in outcome.answer


def test_the_threshold_is_the_weights_min_score() -> None:
    hits = leave_hits()
    question = "How many days of paid annual leave do full-time employees get?"
    assert isinstance(ask(question, hits, Weights(min_score=9.0)), InsufficientEvidence)


def test_weights_refuse_negative_margins() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        Weights(same_block_margin=-0.1)


def test_the_same_sentence_in_a_copy_of_the_document_is_quoted_once() -> None:
    rule = "We work in 6-week cycles, followed by two weeks of cool-down."
    original = hit("handbook/cycles.md#1", {rule: 0.7}, score=0.7)
    copy = hit("formats/cycles.html#1", {rule: 0.7}, score=0.7, rank=2)
    outcome = ask("How long is a work cycle?", [original, copy])
    assert isinstance(outcome, Answered)
    assert outcome.answer.count("6-week cycles") == 1
    assert [c.id for c in outcome.citations] == ["handbook/cycles.md#1"]


def test_a_runner_up_inside_a_longer_quoted_figure_is_still_another_answer() -> None:
    weekly = hit("a.md#0", {"Lisbon: €640 per week.": 0.7}, score=0.7)
    daily = hit("b.md#0", {"Lisbon: €64": 0.69}, score=0.7, rank=2)
    outcome = ask("What is the Lisbon rate?", [weekly, daily])
    assert isinstance(outcome, Answered)
    assert [c.id for c in outcome.citations] == ["a.md#0", "b.md#0"]
