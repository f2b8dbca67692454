"""The past-version diagnostic case files (transfer.md, sessions 24 and 26) are valid case
files, and the sample's agrees with the superseded documents it is written over: every
expected substring of an answerable row is in its gold section of the old version. (The
GitHub files are written over ../shared/corpora, outside the repository; their substrings
were checked when written.)"""

from __future__ import annotations

from pathlib import Path

from docent.access import DEFAULT_LEVELS
from evals.cases import load_cases, normalise
from tests.evals.sample_corpus import section_text

CASES = Path(__file__).resolve().parents[2] / "evals" / "cases"
FILES = (
    "sample_past_versions.jsonl",
    "github_past_versions.jsonl",
    "github_past_versions_user_pass.jsonl",
)


def test_each_past_version_file_loads_as_dev_rows_answerable_or_silent() -> None:
    for name in FILES:
        cases = load_cases(CASES / name, DEFAULT_LEVELS)
        assert cases and {c.split for c in cases} == {"dev"}, name
        strata = {c.stratum for c in cases}
        assert "past_version" in strata and strata <= {"past_version", "out_of_corpus"}, name
        assert all(c.expect for c in cases if c.stratum == "past_version"), name


def test_the_sample_rows_expect_what_the_old_version_says() -> None:
    cases = load_cases(CASES / "sample_past_versions.jsonl", DEFAULT_LEVELS)
    answerable = [c for c in cases if c.stratum == "past_version"]
    assert len(answerable) == 14
    for case in answerable:
        (gold,) = case.gold
        assert gold.source in {"refunds-2022.md", "pricing-2023.md"}, case.qid
        text = section_text(gold.source, gold.heading_path)
        assert text is not None, (case.qid, str(gold))
        for expected in case.expect:
            assert normalise(expected) in normalise(text), (case.qid, expected)
