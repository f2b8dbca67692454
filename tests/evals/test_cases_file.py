"""The sample eval cases agree with the sample corpus they are written over.

Checks `evals/cases/sample.jsonl` against `examples/policies/`: every gold heading path
exists in its document, every expected substring is in the gold section's text, stale
figures come from superseded documents, forbidden strings exist only above the asker's
level, and the built DOCX/PDF files contain the expected substrings. Section text is read
as `tests/evals/sample_corpus.py` reads it; the corpus's own consistency is checked in
`test_sample_corpus.py`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Principal
from evals.cases import load_cases
from tests.evals.sample_corpus import (
    POLICIES,
    ROOT,
    folded,
    manifest,
    raw_text,
    section_text,
    status_of,
    whole_text,
)

CASES_FILE = ROOT / "evals" / "cases" / "sample.jsonl"

REQUIRED_KEYS = {"qid", "q", "expect", "gold", "stratum", "user_access"}
MINIMUM_PER_STRATUM = {
    "answerable": 150,
    "superseded": 15,
    "past_version": 15,
    "out_of_corpus": 15,
    "permission": 15,
    "permission_allowed": 15,
    "ambiguous": 15,
}
MUST_ANSWER = {"answerable", "superseded", "past_version", "permission_allowed"}
MUST_ABSTAIN_NO_GOLD = {"out_of_corpus", "permission"}


def can_read(case: dict[str, Any], source: str) -> bool:
    row = manifest()[source]
    principal = Principal("eval", case["user_access"], frozenset(case.get("groups", [])))
    groups = [g for g in row["groups"].split(";") if g]
    return visible(principal, row["access_level"], groups, DEFAULT_LEVELS)


# ---------------------------------------------------------------- the cases


def load_raw() -> list[dict[str, Any]]:
    lines = CASES_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = load_raw()
GOLD_REFS = sorted({(c["qid"], g) for c in CASES for g in c["gold"]})


def split_gold(ref: str) -> tuple[str, tuple[str, ...]]:
    source, _, heading = ref.partition("#")
    return source, tuple(part.strip() for part in heading.split(" > "))


def test_every_line_is_a_case_object_with_the_required_keys() -> None:
    for number, line in enumerate(CASES_FILE.read_text(encoding="utf-8").splitlines(), 1):
        case = json.loads(line)
        assert isinstance(case, dict), f"line {number}"
        assert REQUIRED_KEYS <= case.keys(), f"line {number}: missing {REQUIRED_KEYS - case.keys()}"
        assert isinstance(case["expect"], list) and isinstance(case["gold"], list)


def test_the_project_loader_reads_every_case() -> None:
    loaded = load_cases(CASES_FILE, DEFAULT_LEVELS)
    assert len(loaded) == len(CASES)


def test_qids_are_unique_and_strata_meet_their_minimums() -> None:
    qids = Counter(c["qid"] for c in CASES)
    assert [q for q, n in qids.items() if n > 1] == []
    strata = Counter(c["stratum"] for c in CASES)
    assert set(strata) <= set(MINIMUM_PER_STRATUM)
    for stratum, minimum in MINIMUM_PER_STRATUM.items():
        assert strata[stratum] >= minimum, stratum
    assert len(CASES) >= 250


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["qid"])
def test_case_shape_fits_its_stratum(case: dict[str, Any]) -> None:
    assert case["user_access"] in DEFAULT_LEVELS
    assert case["q"].strip()
    if case["stratum"] in MUST_ANSWER:
        assert case["expect"] and case["gold"]
    if case["stratum"] in MUST_ABSTAIN_NO_GOLD:
        assert case["expect"] == [] and case["gold"] == []
    if case["stratum"] == "permission":
        assert case["forbidden"]
    if case["stratum"] == "ambiguous":
        assert case["expect"] == [] and case["gold"] and len(case["readings"]) >= 2
    if case["stratum"] == "superseded":
        assert case["stale"]


@pytest.mark.parametrize("case", [c for c in CASES if c["gold"]], ids=lambda c: c["qid"])
def test_gold_documents_exist_are_current_and_readable_by_the_asker(case: dict[str, Any]) -> None:
    # A past-version question is answered from the version it names, which is superseded.
    wanted = "superseded" if case["stratum"] == "past_version" else "current"
    for ref in case["gold"]:
        source, _ = split_gold(ref)
        assert (POLICIES / source).is_file(), f"{ref}: no such document"
        assert status_of(manifest()[source]) == wanted, f"{ref}: gold must be {wanted}"
        assert can_read(case, source), f"{ref}: above {case['user_access']}"


@pytest.mark.parametrize("qid_ref", GOLD_REFS, ids=lambda x: f"{x[0]}:{x[1]}")
def test_gold_heading_path_exists_and_starts_at_the_title(qid_ref: tuple[str, str]) -> None:
    source, path = split_gold(qid_ref[1])
    assert section_text(source, path) is not None, f"no section {path} in {source}"
    assert path[0] == manifest()[source]["title"]


@pytest.mark.parametrize("case", [c for c in CASES if c["gold"]], ids=lambda c: c["qid"])
def test_expected_substrings_and_readings_are_in_a_gold_section(case: dict[str, Any]) -> None:
    texts = [section_text(*split_gold(ref)) or "" for ref in case["gold"]]
    for wanted in case["expect"] + case.get("readings", []):
        assert any(folded(wanted) in folded(t) for t in texts), f"{wanted!r} not in gold"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["stratum"] == "superseded"], ids=lambda c: c["qid"]
)
def test_stale_figures_come_from_superseded_documents(case: dict[str, Any]) -> None:
    superseded = [s for s, row in manifest().items() if status_of(row) == "superseded"]
    gold = " ".join(section_text(*split_gold(ref)) or "" for ref in case["gold"])
    for stale in case["stale"]:
        assert any(folded(stale) in folded(whole_text(s)) for s in superseded), stale
        assert folded(stale) not in folded(gold), f"{stale!r} is in the current answer"


@pytest.mark.parametrize("case", [c for c in CASES if c.get("forbidden")], ids=lambda c: c["qid"])
def test_forbidden_strings_exist_only_above_the_askers_reach(case: dict[str, Any]) -> None:
    for forbidden in case["forbidden"]:
        holders = [s for s in manifest() if folded(forbidden) in folded(raw_text(POLICIES / s))]
        assert holders, f"{forbidden!r} is in no document: the leak check could not fail"
        readable = [s for s in holders if can_read(case, s)]
        assert readable == [], f"{forbidden!r} is readable by the asker in {readable}"


def test_docx_and_pdf_gold_substrings_survive_into_the_built_files() -> None:
    for case in CASES:
        for ref in case["gold"]:
            source, _ = split_gold(ref)
            if Path(source).suffix in {".docx", ".pdf"}:
                text = folded(raw_text(POLICIES / source))
                for wanted in case["expect"]:
                    assert folded(wanted) in text, f"{case['qid']}: {wanted!r} not in {source}"
