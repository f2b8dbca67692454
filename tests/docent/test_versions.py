"""Questions about a past version, and which chunks are that version."""

from datetime import date

import pytest

from docent.versions import (
    VersionRequest,
    names_version,
    version_request,
    without_year,
)
from tests.render.builders import make_chunk


@pytest.mark.parametrize(
    ("question", "request_"),
    [
        (
            "What was the refund window under the 2022 policy?",
            VersionRequest(year=2022, dated=True),
        ),
        ("What did the Team plan cost in the 2023 pricing?", VersionRequest(year=2023, dated=True)),
        ("What was the old refund limit?", VersionRequest(older=True, old_rule=True)),
        ("What did the original refunds policy allow?", VersionRequest(older=True, old_rule=True)),
        # "original" in its ordinary sense asks for today's rule; asked in the past tense,
        # for the first version.
        ("Do approved refunds go back to the original payment method?", None),
        ("Can I keep my original plan price after the change?", None),
        ("What was the original refund window?", VersionRequest(older=True, old_rule=True)),
        ("What were the rules before 2025?", VersionRequest(before=2025, older=True)),
        # "pre-2020" is "before 2020", not the version in force in 2020.
        ("In the pre-2020 terms, what was allowed?", VersionRequest(before=2020, older=True)),
        ("What did the pre 2020 policy say?", VersionRequest(before=2020, older=True)),
        ("What was the prepaid 2020 plan?", VersionRequest(year=2020, dated=True)),
        # Without a date, "old", "prior", "former" name a version only before a word naming
        # one, or in a question asked in the past tense (a user pass: "a former employee's
        # manager", "a prior customer" got the 2022 refund rules as checked answers).
        ("Can a former employee's manager approve refunds up to €800?", None),
        ("A prior customer wants a refund 10 days after renewing; is that allowed?", None),
        ("Do I need prior approval for a conference?", None),
        ("Can the laptop be used to access client data?", None),
        # A review: a measure, a person or the asker's own past is no version.
        ("Is the prior written notice period 30 days?", None),
        ("What's the prior approval process for conferences?", None),
        ("What happens to my manager's prior approval if the amount changes?", None),
        ("The customer's previous plan was Team; can they get a refund?", None),
        ("What was my former manager's approval limit?", None),
        ("Who was the previous owner of this policy?", None),
        ("I used to be a support team lead; how much can I approve?", None),
        ("Which tool is used to submit expenses?", None),
        (
            "Back under GitHub's old terms, could staff open my private repo?",
            VersionRequest(older=True, old_rule=True),
        ),
        ("What did the Team plan used to cost?", VersionRequest(older=True)),
        ("What did the archived refunds policy say?", VersionRequest(older=True)),
        (
            "Before the switch, what was the old amount of time a repo owner got?",
            VersionRequest(older=True, old_rule=True),
        ),
        # Only before a word naming a version: an asker's date or a thing's age is no version.
        ("I was hired pre-2020; how much leave do I get now?", None),
        ("Are pre-2020 laptops still supported?", None),
        ("How many days of annual leave do I get?", None),
        ("Which public holidays are there in 2026?", VersionRequest(year=2026)),
        # A question asked in the past tense names the rule in force that year …
        ("What were the hotel caps in 2019?", VersionRequest(year=2019, dated=True)),
        ("How much was the mileage rate in 2020?", VersionRequest(year=2020, dated=True)),
        ("Did the refund window in 2022 cover sale items?", VersionRequest(year=2022, dated=True)),
        ("In 2019, what were the hotel caps?", VersionRequest(year=2019, dated=True)),
        ("What hotel caps applied in 2019?", VersionRequest(year=2019, dated=True)),
        ("Which plans existed back in 2022?", VersionRequest(year=2022, dated=True)),
        ("What per diem applied to Lisbon in 2023?", VersionRequest(year=2023, dated=True)),
        # … but not a past-tense clause about the asker …
        # (a year dating the asker's own case names no version at all) …
        ("What leave do I get if I was hired in 2019?", None),
        ("What if I was hired in 2020, am I eligible?", None),
        ("What if I started in 2019?", None),
        ("I bought the Team plan in 2022, can I get a refund?", None),
        ("We moved offices in 2021; is parking still free?", None),
        # … while a possessive alone dates nothing of the asker's …
        ("What was our refund policy in 2022?", VersionRequest(year=2022, dated=True)),
        ("Which refund rules did we have in 2022?", VersionRequest(year=2022, dated=True)),
        # … and a present passive is not past.
        ("What receipts are required in 2024?", VersionRequest(year=2024)),
        ("What per diem applied to New York in 2023?", VersionRequest(year=2023, dated=True)),
        (
            "I read the 2022 refunds policy: what did it allow?",
            VersionRequest(year=2022, dated=True),
        ),
        ("What expenses incurred in 2019 can I still claim?", VersionRequest(year=2019)),
        # … and a question about the future names no past version.
        ("What will the hotel cap be in 2027?", None),
        ("What will the mileage rate be from June 2027?", None),
        # A version named outright stays one, whatever the tense.
        (
            "Under the 2022 policy, will I get a full refund after 20 days?",
            VersionRequest(year=2022, dated=True),
        ),
        # An age is not a version.
        ("my 12 year old nephew wants his own github account, is he allowed?", None),
        ("Can I bring my 6-month-old to the office?", None),
        ("How old do you have to be to open an account?", None),
        ("is a 3 years old laptop old enough to replace?", None),
        ("What did my 10 year old laptop's old warranty say?", VersionRequest(older=True)),
        ("Can a two-year-old come to the office party?", None),
        # A word that is not a count keeps "old" a version word.
        ("What was the rule last year old or new?", VersionRequest(older=True)),
    ],
)
def test_version_request(question: str, request_: VersionRequest | None) -> None:
    assert version_request(question) == request_


def old_refunds() -> object:
    return make_chunk(
        "refunds-2022.md#0",
        "Customers may request a full refund within 14 days.",
        status="superseded",
        superseded_by="refunds.md",
        effective_date=date(2022, 4, 1),
        title="Refunds Policy 2022",
    )


def test_only_superseded_chunks_of_the_named_year_qualify() -> None:
    old = old_refunds()
    current = make_chunk("refunds.md#0", "Within 30 days.", effective_date=date(2025, 3, 1))
    assert names_version(VersionRequest(year=2022), old)  # type: ignore[arg-type]
    assert names_version(VersionRequest(older=True), old)  # type: ignore[arg-type]
    assert not names_version(VersionRequest(year=2022), current)
    # In force in 2023 (effective 2022, its successor only from 2025) …
    assert names_version(VersionRequest(year=2023), old, date(2025, 3, 1))  # type: ignore[arg-type]
    # … but not in 2026, once the successor took over.
    assert not names_version(VersionRequest(year=2026), old, date(2025, 3, 1))  # type: ignore[arg-type]
    assert not names_version(VersionRequest(year=2021), old)  # type: ignore[arg-type]
    assert names_version(VersionRequest(before=2025, older=True), old)  # type: ignore[arg-type]
    # In force for part of the year its successor took over in (a user pass: "In 2020 what
    # did the GitHub terms say ...?" — the 2019 terms, replaced in November 2020); not when
    # the successor took over on the year's first day.
    assert names_version(VersionRequest(year=2025), old, date(2025, 3, 1))  # type: ignore[arg-type]
    assert not names_version(VersionRequest(year=2025), old, date(2025, 1, 1))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("question", "read"),
    [
        ("What was the hotel cap in 2023?", "What was the hotel cap?"),
        ("Which plans were offered in 2024?", "Which plans were offered?"),
        ("What did the 2019 terms say about refunds?", "What did the terms say about refunds?"),
        # No past version dated by a year: the question is read as asked.
        ("When is St Brigid's Day in 2026?", None),  # maybe a document's own year
        ("On the previous (2023) price list, how many seats?", None),
        ("I bought the Team plan in 2022, can I get a refund?", None),
        ("What was the refund window before the 2025 policy?", None),
        ("How many seats does the Team plan include?", None),
    ],
)
def test_without_year_drops_only_the_year_dating_a_past_version(
    question: str, read: str | None
) -> None:
    assert without_year(question) == (read or question)


@pytest.mark.parametrize(
    "question",
    [
        "My contract was signed in 2022; how long do refunds take to process?",
        "Our office opened in 2021, what is the hotel cap?",
        "been here since 2019. How many holidays do I get?",
    ],
)
def test_a_year_in_a_statement_before_the_question_names_no_version(question: str) -> None:
    """Found in a user pass: the first got the superseded 2022 refund rule as a checked
    answer (10 business days; 5 today)."""
    assert version_request(question) is None


def test_a_time_frame_or_a_named_version_before_the_question_still_dates_it() -> None:
    framed = version_request("In 2023, what was the hotel cap?")
    assert framed is not None and framed.year == 2023 and framed.dated
    named = version_request("I joined in 2019; what did the 2021 policy say?")
    assert named is not None and named.year == 2021  # the version's own year, not the first


@pytest.mark.parametrize(
    "question",
    [
        "Who can approve a refund of 2022 euros?",
        "What was the approval needed for a 2019 EUR expense claim?",
        "Could refunds of €2022 be approved by a team lead?",
    ],
)
def test_an_amount_is_no_year(question: str) -> None:
    """A user pass: "a refund of 2022 euros" got the superseded 2022 approval limit as a
    checked answer; "a 2019 EUR expense claim" was told that version is missing."""
    assert version_request(question) is None


def test_only_a_version_named_plainly_is_explicit() -> None:
    assert VersionRequest(before=2020, older=True).explicit
    assert VersionRequest(year=2019, dated=True).explicit
    assert VersionRequest(older=True, old_rule=True).explicit
    # "Which public holidays are there in 2026?", "prior written notice": not plainly.
    assert not VersionRequest(year=2026).explicit
    assert not VersionRequest(older=True).explicit
