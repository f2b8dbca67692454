"""The sample case file's dev/test split: by fact, deterministic, and every answerable fact asked
in all three phrasings (document words, paraphrase, scenario)."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from docent.access import DEFAULT_LEVELS
from evals.cases import PHRASINGS, SPLITS, Case, assign_split, load_cases

CASES_FILE = Path(__file__).resolve().parents[2] / "evals" / "cases" / "sample.jsonl"
CASES = load_cases(CASES_FILE, DEFAULT_LEVELS)


def facts_by_split(cases: list[Case]) -> dict[str, set[str]]:
    sides: dict[str, set[str]] = defaultdict(set)
    for case in cases:
        assert case.fact is not None and case.split is not None, case.qid
        sides[case.split].add(case.fact)
    return sides


def test_every_case_names_its_fact_phrasing_and_split() -> None:
    for case in CASES:
        assert case.fact and case.split in SPLITS, case.qid
        assert case.phrasing in PHRASINGS, case.qid


def test_dev_and_test_are_disjoint_by_fact() -> None:
    sides = facts_by_split(CASES)
    assert sides["dev"] and sides["test"]
    assert sides["dev"].isdisjoint(sides["test"])


def test_the_split_is_the_deterministic_one_of_each_fact() -> None:
    wrong = [c.qid for c in CASES if c.fact is not None and c.split != assign_split(c.fact)]
    assert wrong == []


def test_the_split_is_roughly_even_in_cases_and_answerable_facts() -> None:
    cases = Counter(c.split for c in CASES)
    assert 0.4 <= cases["dev"] / len(CASES) <= 0.6
    answerable = facts_by_split([c for c in CASES if c.stratum == "answerable"])
    share = len(answerable["dev"]) / (len(answerable["dev"]) + len(answerable["test"]))
    assert 0.4 <= share <= 0.6


def test_every_answerable_fact_has_all_three_phrasings_with_one_expectation_set() -> None:
    phrasings: dict[str, set[str]] = defaultdict(set)
    golds: dict[str, set[tuple[str, ...]]] = defaultdict(set)
    for case in CASES:
        if case.stratum == "answerable":
            assert case.fact is not None and case.phrasing is not None
            phrasings[case.fact].add(case.phrasing)
            golds[case.fact].add(tuple(str(g) for g in case.gold))
    assert len(phrasings) >= 50
    missing = {f: set(PHRASINGS) - p for f, p in phrasings.items() if p != set(PHRASINGS)}
    assert missing == {}
    assert {f: g for f, g in golds.items() if len(g) > 1} == {}


def test_a_fact_belongs_to_one_answer_kind() -> None:
    """A fact's cases agree on whether an answer is due (permission and permission_allowed
    may share a fact: the same question from below and from above the document's level)."""
    kinds: dict[str, set[str]] = defaultdict(set)
    for case in CASES:
        assert case.fact is not None
        kind = "permission*" if case.stratum.startswith("permission") else case.stratum
        kinds[case.fact].add(kind)
    assert {f: k for f, k in kinds.items() if len(k) > 1} == {}


# The nine questions of issue 13's "Why", each asked as the user the issue names.
ISSUE_QUESTIONS = {
    "How many holiday days do I get a year?": ("answerable", "employee", "25 days"),
    "How many days a week can I work remotely?": ("answerable", "employee", "fully remotely"),
    "Can I work from Spain for a few weeks in the summer?": (
        "answerable",
        "employee",
        "30 working days",
    ),
    "A customer wants a refund 3 weeks after buying. Are we still allowed to give it?": (
        "superseded",
        "public",
        "30 days",
    ),
    "What's the daily allowance for food when I travel to Lisbon?": (
        "answerable",
        "employee",
        "€64",
    ),
    "How much severance would I get if my role is made redundant?": (
        "permission_allowed",
        "confidential",
        "two weeks",
    ),
    "What is the severance policy?": ("permission_allowed", "confidential", "two weeks"),
    "What was the refund window under the 2022 policy?": ("past_version", "public", "14 days"),
    "Which EV charger at the office is the fastest?": ("answerable", "employee", "50 kW"),
}


def test_the_issue_questions_are_cases_with_the_right_expectation() -> None:
    by_question: dict[str, list[Case]] = defaultdict(list)
    for case in CASES:
        by_question[case.q].append(case)
    for question, (stratum, access, expected) in ISSUE_QUESTIONS.items():
        found = [
            c
            for c in by_question[question]
            if (c.stratum, c.user_access) == (stratum, access) and expected in c.expect
        ]
        assert found, question
    severance_as_employee = [
        c.stratum
        for c in by_question["How much severance would I get if my role is made redundant?"]
    ]
    assert "permission" in severance_as_employee
