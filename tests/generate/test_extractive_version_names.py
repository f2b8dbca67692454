"""The extractive answerer and what a past version covers, over hand-built hits (as
test_extractive.py): a name the question gives that the version asked about never mentions
is not answered from that version's nearest unit; a version that says nothing of the
question is not called missing; today's rule beside an old one is of the same named thing."""

from datetime import date

import pytest

from docent.contracts import Answered, Hit, InsufficientEvidence
from generate.answer_gate import AnswerGate
from generate.extractive import ExtractiveGenerator
from generate.reasons import UNCLEAR, VERSION_MISSING
from render.prompt import render
from tests.generate.answering import ask, hit
from tests.generate.test_extractive_versions import superseded_pair


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


def unchanged_pair(score: float) -> list[Hit]:
    """A 2020 rule and today's, word for word the same."""
    rule = "Nationality and ethnicity are not used to flag users for sanctions restrictions."
    old = hit(
        "trade-2020.md#4",
        {rule: score},
        rank=1,
        score=0.8,
        heading_path=("Trade Controls", "FAQ"),
        effective_date=date(2020, 2, 10),
        status="superseded",
        superseded_by="trade.md",
        title="Trade Controls",
    )
    new = hit(
        "trade.md#4",
        {rule: score},
        rank=2,
        score=0.8,
        heading_path=("Trade Controls", "FAQ"),
        effective_date=date(2026, 3, 2),
        title="Trade Controls",
    )
    return [old, new]


def test_a_past_rule_unchanged_since_is_judged_as_today_s_answer_is() -> None:
    """A user pass: "Under the 2020 trade controls policy, how did users appeal a
    restriction?" quoted, ungated, a sentence both versions share that answers nothing. A
    rule that reads the same today is today's rule: the gate judges it; a changed one is
    asked for by name and shown (``superseded_pair``)."""
    question = "Under the 2020 trade controls policy, how did users appeal a restriction?"
    shut = ExtractiveGenerator(gate=AnswerGate(threshold=1.0))
    prompt = render(question, unchanged_pair(0.5), 2000)
    generation = shut.generate(prompt, prompt.kept)
    assert generation.outcome == InsufficientEvidence(UNCLEAR)
    assert generation.confidence is not None  # judged
    assert generation.pointers[0][0] == "trade-2020.md#4"  # the version asked about first
    opened = ask(question, unchanged_pair(0.5))
    assert isinstance(opened, Answered)
    assert opened.answer.startswith("Under the superseded version (effective 2020-02-10):")
    changed = render("How much could a team lead approve in 2022?", superseded_pair(1), 2000)
    outcome = shut.generate(changed, changed.kept)
    assert isinstance(outcome.outcome, Answered) and outcome.confidence is None


def test_a_past_version_quotes_the_sentence_whose_bound_holds_the_asked_amount() -> None:
    """A user pass: "Before the 2025 policy, who could approve a refund of 800 euros?"
    quoted the team lead's "up to €500"."""
    rules = {
        "A support team lead may approve refunds up to €500.": 0.8,
        "Refunds above €500 need finance approval before they are paid.": 0.6,
    }
    old = hit(
        "refunds-2022.md#1",
        rules,
        rank=1,
        score=0.8,
        heading_path=("Refunds Policy 2022", "Approval"),
        effective_date=date(2022, 4, 1),
        status="superseded",
        superseded_by="refunds.md",
        title="Refunds Policy 2022",
    )
    for amount, quoted in (("800 euros", list(rules)[1]), ("€300", list(rules)[0])):
        outcome = ask(f"Before the 2025 policy, who could approve a refund of {amount}?", [old])
        assert isinstance(outcome, Answered)
        assert outcome.answer.startswith("Under the superseded version (effective 2022-04-01):")
        assert quoted.rstrip(".") in outcome.answer


def test_a_past_rule_far_from_what_today_s_answer_quotes_is_not_the_answer() -> None:
    """A user pass: "In 2022, could refunds go to a different payment method?" was answered,
    checked, with the 2022 approval limit — the 2022 policy has no such rule, and today's
    answer is another sentence than that limit's counterpart (``OFF_TOPIC_GAP``)."""
    old = hit(
        "refunds-2022.md#1",
        {"A support team lead may approve refunds up to €500.": 0.5},
        rank=2,
        score=0.7,
        heading_path=("Refunds Policy 2022", "Approval"),
        effective_date=date(2022, 4, 1),
        status="superseded",
        superseded_by="refunds.md",
        title="Refunds Policy 2022",
    )
    new = hit(
        "refunds.md#2",
        {
            "A support team lead may approve refunds up to €1,000.": 0.45,
            "Refunds to a different payment method than the original one are never approved.": 0.9,
        },
        rank=1,
        score=0.8,
        heading_path=("Refunds Policy", "Approval"),
        effective_date=date(2025, 3, 1),
        title="Refunds Policy",
    )
    outcome = ask("In 2022, could refunds go to a different payment method?", [new, old])
    assert outcome == InsufficientEvidence(UNCLEAR)
    limit = ask("How much could a support team lead approve for refunds in 2022?", [new, old])
    assert isinstance(limit, Answered) and "€500" in limit.answer


def anti_bribery_versions() -> list[Hit]:
    units = {
        "Our standard resale agreements with Partners include mandatory anti-corruption "
        "clauses.": 0.8,
        # Well below the sentence asked about: a close one would leave the quote not
        # standing out in its passage (``stands_out``), and nothing would be quoted.
        "Going forward, our vendor contracts now require a commitment to comply with this "
        "statement.": 0.45,
    }
    old = hit(
        "anti-bribery-2019.md#6",
        units,
        score=0.8,
        heading_path=("Anti-Bribery Statement", "Engaging our Partners"),
        effective_date=date(2019, 7, 2),
        status="superseded",
        superseded_by="anti-bribery.md",
        title="Anti-Bribery Statement",
    )
    now = hit(
        "anti-bribery.md#6",
        {k.replace("with Partners", "with Channel Partners"): v for k, v in units.items()},
        rank=2,
        score=0.78,
        heading_path=("Anti-Bribery Statement", "Engaging our Partners"),
        effective_date=date(2026, 3, 2),
        title="Anti-Bribery Statement",
    )
    return [old, now]


def test_a_past_version_quotes_the_unit_its_meaning_points_to_not_a_rule_word() -> None:
    """Found with change set 40's diagnostic questions: shown without the gate, a past
    version's answer to a question of no particular kind quoted the "require" item, below
    the sentence naming the agreements asked about (the rule word is the gate's to weigh)."""
    outcome = ask(
        "In the previous version of the Anti-Bribery Statement, which standard agreements "
        "included mandatory anti-corruption clauses?",
        anti_bribery_versions(),
    )
    assert isinstance(outcome, Answered), outcome
    old_part = outcome.answer.split("The current version")[0]
    assert "resale agreements with Partners" in old_part
    assert "vendor contracts" not in old_part


def privacy_2019() -> list[Hit]:
    old = hit(
        "privacy-2019.md#19",
        {"We do not host advertising on GitHub.": 0.7},
        score=0.7,
        heading_path=("GitHub Privacy Statement", "How we share the information we collect"),
        effective_date=date(2019, 4, 19),
        status="superseded",
        superseded_by="privacy.md",
    )
    now = hit(
        "privacy.md#19",
        {"We do not host third-party advertising on GitHub.": 0.6},
        rank=2,
        score=0.6,
        heading_path=("GitHub Privacy Statement", "How we share the information we collect"),
        effective_date=date(2024, 2, 1),
    )
    return [old, now]


def test_a_past_version_of_another_kind_of_document_does_not_answer() -> None:
    """Found in a user pass: "In 2020 what did the GitHub terms of service say about
    advertising?" was answered, checked, from the 2019 privacy statement (the terms were not
    among the passages found). A privacy "policy" is the statement's own kind of name."""
    other = ask(
        "In 2020 what did the GitHub terms of service say about advertising?", privacy_2019()
    )
    assert not (isinstance(other, Answered) and "do not host advertising" in other.answer)
    own = ask("What did the 2019 privacy policy say about advertising?", privacy_2019())
    assert isinstance(own, Answered), own
    assert "We do not host advertising on GitHub" in own.answer
    # Found in a review: a kind word that names no document ("up to what price", "under
    # what conditions"), or a title word the question shares ("the 2022 refund terms" for
    # the "Refunds Policy 2022"), leaves the version asked about its answer.
    for question in (
        "In 2022, up to what price could a support team lead approve refunds?",
        "In 2022, under what conditions could a support team lead approve refunds?",
        "Under the 2022 refund terms, how much could a support team lead approve?",
    ):
        outcome = ask(question, superseded_pair(2))
        assert isinstance(outcome, Answered), (question, outcome)
        assert "€500" in outcome.answer.split("The current version")[0], question


def test_what_a_past_version_question_points_at_leads_with_that_version() -> None:
    """A past version's units lead what its question points at, whatever becomes of the
    answer (a user pass: a past version's answer a check refused showed only today's pages,
    not the 2019 privacy statement's "Cookies" section)."""
    question = (
        "In the previous version of the Anti-Bribery Statement, which standard agreements "
        "included mandatory anti-corruption clauses?"
    )
    hits = anti_bribery_versions()
    prompt = render(question, hits, 2000)
    generation = ExtractiveGenerator(gate=AnswerGate(threshold=0.0)).generate(prompt, prompt.kept)
    assert isinstance(generation.outcome, Answered)
    assert generation.pointers[0][0] == "anti-bribery-2019.md#6"
    assert "resale agreements with Partners" in generation.pointers[0][1]
