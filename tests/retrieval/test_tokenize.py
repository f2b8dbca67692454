"""Tokens for BM25: case, punctuation, numbers with units, hyphens, codes."""

import pytest

from retrieval.tokenize import stem, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Russia is on the E:1 list.", ["russia", "e:1", "1", "list"]),
        ("The 401(k) match", ["401(k)", "401", "match"]),
        ("Clause 7.3(b) applies", ["clause", "7.3(b)", "7.3", "apply"]),
        ("over €5,000", ["over", "€5000", "5000"]),
        ("full-time staff", ["full-time", "full", "time", "staff"]),
        ("a 30-day window", ["30-day", "30", "day", "window"]),
        ("5kg or 10% or $1,234.56", ["5kg", "5", "kg", "10%", "10", "$1234.56", "1234.56"]),
        ("POLICIES, Policy; policy!", ["policy", "policy", "policy"]),
        ("the employee's manager", ["employee", "manager"]),
        ("Retention code RC-77.", ["retention", "code", "rc-77", "rc", "77"]),
        ("version 2.5 ends here.", ["version", "2.5", "end", "here"]),
        ("10,000,000 and 1,2", ["10000000", "1", "2"]),
        ("", []),
        ("?!  ... ---", []),
    ],
)
def test_tokenize(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


def test_query_forms_meet_document_forms() -> None:
    doc = set(tokenize("Expenses over €5,000 need approval; a 30-day notice; the E:1 list"))
    for query in ["€5,000", "5000", "30 days", "E:1", "expense approvals"]:
        assert set(tokenize(query)) & doc, query
    # A code is a token of its own, so it is rare and BM25 weighs it heavily.
    assert "e:1" in doc and "7.3(b)" in tokenize("see 7.3(b)")


def test_unicode_is_normalised() -> None:
    assert tokenize("ＦＵＬＬ–time employee’s") == tokenize("FULL–time employee's")
    assert tokenize("Café") == ["café"]


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        ("policies", "policy"),
        ("days", "day"),
        ("approves", "approve"),
        ("status", "status"),
        ("glass", "glass"),
        ("bus", "bus"),
        ("2020s", "2020s"),
        ("its", "its"),
    ],
)
def test_stem_only_strips_plurals(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed
