"""A past version's answer is shown only when its quote stands out in its own passage
(``generate.version_answers.stands_out``, called by the extractive answerer): it leads every
other unit of that passage by ``PAST_QUOTE_LEAD``; and only when the question names no other
part of that version than the quote's (``names_another_part``). A user pass of 50
past-version questions: 8 of 26 answers shown were wrong, most quoting another sentence of
the right section ("within how many days of cancellation did I need to ask for a copy of my
account contents?" got the deletion sentence beside "make this request within 90 days").
Over hand-built hits (as test_version_silence.py): each sentence's question cosine is
given."""

from datetime import date

from docent.contracts import Answered, Hit, InsufficientEvidence
from generate.reasons import UNCLEAR
from generate.unit_scoring import Scored, Unit
from generate.version_answers import PAST_QUOTE_LEAD, names_another_part, stands_out
from tests.generate.answering import ask, hit

QUESTION = (
    "Under the 2019 terms, within how many days of cancellation did I need to ask for a copy "
    "of my account contents?"
)
REQUEST = (
    "If you would like a copy of your account contents, you must make this request within 90 "
    "days of cancellation."
)
DELETION = "We will delete your account contents within 90 days of cancellation."
NOW_REQUEST = "You may request a copy of your account contents within 30 days of cancellation."


def terms(old: dict[str, float]) -> list[Hit]:
    heading = ("Terms of Service", "Upon Cancellation")
    return [
        hit(
            "terms-2019.md#3",
            old,
            score=0.6,
            heading_path=heading,
            effective_date=date(2019, 4, 19),
            status="superseded",
            superseded_by="terms.md",
            title="Terms of Service",
        ),
        hit(
            "terms.md#3",
            {NOW_REQUEST: 0.6},
            rank=2,
            score=0.6,
            heading_path=heading,
            effective_date=date(2024, 1, 1),
            title="Terms of Service",
        ),
    ]


def test_a_quote_its_passage_s_next_sentence_nearly_ties_is_not_the_answer() -> None:
    outcome = ask(QUESTION, terms({DELETION: 0.62, REQUEST: 0.6}))
    assert isinstance(outcome, InsufficientEvidence), outcome
    assert outcome.missing == UNCLEAR


def test_a_quote_that_stands_out_in_its_passage_is_that_version_s_answer() -> None:
    outcome = ask(QUESTION, terms({DELETION: 0.2, REQUEST: 0.75}))
    assert isinstance(outcome, Answered), outcome
    assert outcome.answer.startswith("Under the superseded version (effective 2019-04-19):")
    assert "make this request within 90 days" in outcome.answer
    assert "We will delete" not in outcome.answer


def scored(block: Hit, text: str, score: float, index: int) -> Scored:
    return Scored(
        Unit(block, text, "Terms of Service Upon Cancellation", index), score, 0.5, 0.5, 1.0
    )


def test_the_lead_is_read_within_the_quote_s_own_passage() -> None:
    passage = hit("terms-2019.md#3", {REQUEST: 0.6, DELETION: 0.6}, score=0.6)
    other = hit("terms-2019.md#4", {"Account contents are kept for 90 days.": 0.6}, score=0.6)
    quote = scored(passage, REQUEST, 1.5, 0)
    # A rival in another passage of the version does not count; one in its own does.
    elsewhere = scored(other, "Account contents are kept for 90 days.", 1.49, 0)
    assert stands_out(quote, [quote, elsewhere], REQUEST)
    assert stands_out(quote, [quote, scored(passage, DELETION, 1.49 - PAST_QUOTE_LEAD, 1)], REQUEST)
    close = scored(passage, DELETION, 1.5 - PAST_QUOTE_LEAD / 2, 1)
    assert not stands_out(quote, [quote, close], REQUEST)
    assert stands_out(quote, [quote, close], f"{REQUEST} {DELETION}")  # quoted with it
    assert stands_out(quote, [quote], REQUEST)  # a passage of one unit


def plans(section: str, text: str, n: int) -> Hit:
    return hit(
        f"pricing-2023.md#{n}",
        {text: 0.6},
        score=0.6,
        rank=n,
        heading_path=("Pricing 2023", section),
        effective_date=date(2023, 1, 1),
        status="superseded",
        superseded_by="pricing.md",
        title="Pricing 2023",
    )


TEAM = "The Team plan costs €49/month and includes 5 seats."
BUSINESS = "The Business plan costs €179/month and includes 20 seats."


def test_a_question_naming_another_part_of_the_version_is_not_answered_from_this_one() -> None:
    """A user pass: "What did the Business plan add on top of Team under the old 2023
    pricing?" was answered with the Team plan's section."""
    team, business = plans("Team plan", TEAM, 1), plans("Business plan", BUSINESS, 2)
    units = [scored(team, TEAM, 1.4, 0), scored(business, BUSINESS, 1.1, 0)]
    question = "What did the Business plan add on top of Team under the old 2023 pricing?"
    assert names_another_part(question, units[0], TEAM, units)
    # Either plan's section alone is half the answer: both parts are shown, not one quoted.
    assert names_another_part(question, units[1], BUSINESS, units)
    business_only = "What did the Business plan cost in 2023?"
    assert not names_another_part(business_only, units[1], BUSINESS, units)
    assert names_another_part(business_only, units[0], TEAM, units)
    # A name no other part gives, or one the quote's own headings give, is no other part.
    assert not names_another_part("What did the Team plan cost in 2023?", units[0], TEAM, units)
    assert not names_another_part("In Pricing 2023, what did Team cost?", units[0], TEAM, units)


def test_a_question_naming_another_row_of_the_quoted_table_is_not_answered_from_it() -> None:
    """A user pass: "What was the monthly price of the Starter plan under the 2023 price
    list?" quoted the Team and Business rows (both priced "/month")."""
    table = plans("Plans at a glance", "Plan: Starter; Price: Free", 1)
    rows = [
        Scored(
            Unit(table, f"Plan: {name}; Price: {price}", "", i, "| Plan | Price |"),
            score,
            0.5,
            0.5,
            1.0,
        )
        for i, (name, price, score) in enumerate(
            (("Starter", "Free", 1.2), ("Team", "€49/month", 1.3), ("Business", "€179/month", 1.3))
        )
    ]
    quote = "| Plan | Price |\nPlan: Team; Price: €49/month\nPlan: Business; Price: €179/month"
    question = "What was the monthly price of the Starter plan under the 2023 price list?"
    assert names_another_part(question, rows[1], quote, rows)
    assert not names_another_part("What did the Team plan cost in 2023?", rows[1], quote, rows)
