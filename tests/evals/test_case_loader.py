"""Loading and validating case files; deriving the unretrieved stratum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.cases import (
    ChunkRef,
    GoldRef,
    derive_unretrieved,
    load_cases,
    select_split,
    unmatched_gold,
)
from evals.errors import CaseFileError

GOOD = {
    "qid": "pto-1",
    "q": "How many vacation days?",
    "expect": ["25 days"],
    "gold": ["leave.md#Leave > Vacation"],
    "stratum": "answerable",
    "user_access": "employee",
}


def write(tmp_path: Path, *rows: object) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n",
        encoding="utf-8",
    )
    return path


def test_loads_a_good_file_ignoring_unknown_fields_and_blank_lines(tmp_path: Path) -> None:
    other = {
        **GOOD,
        "qid": "perm-1",
        "stratum": "permission",
        "expect": [],
        "note": "why",
        "forbidden": ["Bluebird"],
        "groups": ["hr"],
    }
    cases = load_cases(write(tmp_path, GOOD, "", other))
    assert [c.qid for c in cases] == ["pto-1", "perm-1"]
    assert cases[0].gold == (GoldRef("leave.md", ("Leave", "Vacation")),)
    assert cases[1].forbidden == ("Bluebird",) and cases[1].groups == ("hr",)


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "line 2: not valid JSON"),
        ("[1, 2]", "line 2: a case must be a JSON object"),
        (
            {**GOOD, "qid": "x", "stratum": "maybe"},
            "line 2: field 'stratum': 'maybe' is not one of",
        ),
        ({**GOOD, "qid": ""}, "line 2: field 'qid' must be a non-empty string"),
        ({k: v for k, v in GOOD.items() if k != "q"} | {"qid": "x"}, "line 2: field 'q' must be"),
        ({**GOOD, "qid": "x", "expect": "25 days"}, "line 2: field 'expect' must be a list"),
        ({**GOOD, "qid": "x", "expect": []}, "line 2: field 'expect': a answerable case needs"),
        (
            {**GOOD, "qid": "x", "gold": ["#Leave"]},
            "line 2: field 'gold': gold '#Leave' has no source",
        ),
        ({**GOOD, "qid": "x", "gold": ["a.md#A >  > B"]}, "line 2: field 'gold'"),
        ({**GOOD, "qid": "x", "user_access": "boss"}, "line 2: field 'user_access': 'boss'"),
        (GOOD, "line 2: field 'qid': 'pto-1' repeats line 1"),
        (
            {**GOOD, "qid": "x", "fact": "f", "phrasing": "slang"},
            "line 2: field 'phrasing': 'slang' is not one of doc, paraphrase, scenario",
        ),
        (
            {**GOOD, "qid": "x", "fact": "f", "split": "train"},
            "line 2: field 'split': 'train' is not one of dev, test",
        ),
        (
            {**GOOD, "qid": "x", "split": "dev"},
            "line 2: field 'split': a split is assigned per fact",
        ),
        ({**GOOD, "qid": "x", "fact": ""}, "line 2: field 'fact' must be a non-empty string"),
    ],
)
def test_a_bad_line_is_named_with_its_field_and_reason(
    tmp_path: Path, bad: object, message: str
) -> None:
    path = write(tmp_path, GOOD, bad)
    with pytest.raises(CaseFileError) as err:
        load_cases(path, levels=("public", "employee", "confidential", "restricted"))
    assert f"{path} {message}" in str(err.value)


def test_empty_and_missing_files_are_errors(tmp_path: Path) -> None:
    with pytest.raises(CaseFileError, match="no cases"):
        load_cases(write(tmp_path, ""))
    with pytest.raises(CaseFileError, match="cannot read"):
        load_cases(tmp_path / "absent.jsonl")


def test_fact_phrasing_and_split_are_read_and_optional(tmp_path: Path) -> None:
    tagged = {**GOOD, "qid": "t", "fact": "leave", "phrasing": "scenario", "split": "test"}
    plain, case = load_cases(write(tmp_path, GOOD, tagged))
    assert (plain.fact, plain.phrasing, plain.split) == (None, None, None)
    assert (case.fact, case.phrasing, case.split) == ("leave", "scenario", "test")


def test_a_fact_on_both_sides_of_the_split_is_refused(tmp_path: Path) -> None:
    dev = {**GOOD, "fact": "leave", "split": "dev"}
    test = {**GOOD, "qid": "pto-2", "fact": "leave", "split": "test"}
    with pytest.raises(CaseFileError, match="fact 'leave' is in both the dev and the test split"):
        load_cases(write(tmp_path, dev, test))


def test_select_split_keeps_one_side_or_everything(tmp_path: Path) -> None:
    dev = {**GOOD, "fact": "leave", "split": "dev"}
    test = {**GOOD, "qid": "pto-2", "fact": "pay", "split": "test"}
    cases = load_cases(write(tmp_path, dev, test))
    assert [c.qid for c in select_split(cases, "test")] == ["pto-2"]
    assert select_split(cases, None) == cases
    with pytest.raises(CaseFileError, match="'train' is not one of dev, test"):
        select_split(cases, "train")
    untagged = load_cases(write(tmp_path, GOOD))
    with pytest.raises(CaseFileError, match="no case in the dev split"):
        select_split(untagged, "dev")


def test_a_past_version_case_must_answer_with_the_old_value(tmp_path: Path) -> None:
    old = {**GOOD, "stratum": "past_version", "gold": ["leave-2022.md#Leave"]}
    (case,) = load_cases(write(tmp_path, old))
    assert case.must_answer
    with pytest.raises(CaseFileError, match="a past_version case needs at least one expected"):
        load_cases(write(tmp_path, {**old, "expect": []}))


CHUNKS = [
    ChunkRef("leave.md#0", "leave.md", ("Leave",), "employee"),
    ChunkRef("leave.md#1", "leave.md", ("Leave", "Vacation"), "employee"),
    ChunkRef("leave.md#2", "leave.md", ("Leave", "Vacation", "Carry-over"), "employee"),
    ChunkRef("old/leave.md#1", "old/leave.md", ("Leave", "Vacation"), "employee"),
]


def test_unretrieved_cases_withhold_every_chunk_of_the_gold_section(tmp_path: Path) -> None:
    no_gold = {**GOOD, "qid": "nogold", "gold": []}
    out = {**GOOD, "qid": "ooc", "stratum": "out_of_corpus", "expect": []}
    missing = {**GOOD, "qid": "gone", "gold": ["gone.md#X"]}
    cases = load_cases(write(tmp_path, GOOD, no_gold, out, missing))
    derived = derive_unretrieved(cases, CHUNKS)
    assert len(derived) == 1
    (d,) = derived
    assert (d.qid, d.stratum, d.derived_from) == ("pto-1~unretrieved", "unretrieved", "pto-1")
    assert d.exclude_chunk_ids == ("leave.md#1", "leave.md#2")
    assert d.q == cases[0].q
    assert unmatched_gold(cases, CHUNKS) == ["gone: gone.md#X"]
