"""The data dir's disk full during an ingest write and during re-marks in place: each
scenario runs on a small tmpfs (``tests/small_disk.py``) filled with a ballast file, and
reports what it saw (tests/ingest/diskfull_scenario.py, remark_diskfull_scenario.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.small_disk import run_on_small_disk

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FULL = "the data dir's disk is nearly full ("


def test_a_full_disk_fails_the_file_clearly_and_a_retry_after_freeing_it_completes(
    tmp_path: Path,
) -> None:
    seen = run_on_small_disk("tests.ingest.diskfull_scenario", tmp_path)
    assert seen["first"] == "succeeded" and seen["ballast_bytes"] > 0
    while_full = seen["while_full"]
    # The file did not go in, and says why in our words, before anything was written.
    assert while_full["state"] == "failed", while_full
    ((state, error),) = while_full["files"]
    assert state == "failed" and error.startswith(FULL), error
    # The registry never names the document that did not fit, the index agrees with it
    # (nothing of the file was written), and the rest is untouched.
    assert seen["registry_while_full"] == ["first.md"]
    assert seen["consistent_while_full"] is True
    assert seen["first_still_indexed"] is True
    assert seen["after_free"] == "succeeded"
    assert seen["consistent_after_free"] is True
    assert seen["documents"] == ["first.md", "second.md"]


def test_re_marks_in_place_on_a_full_disk_are_refused_whole_and_go_through_once_freed(
    tmp_path: Path,
) -> None:
    seen = run_on_small_disk("tests.ingest.remark_diskfull_scenario", tmp_path)
    assert seen["ingested"] == ["succeeded"] * 3 and seen["ballast_bytes"] > 0
    before = seen["before"]
    assert before["registry"]["pending.md"]["status"] == "pending"
    # Each re-mark was refused in our words: the access level change and the supersession
    # fail their file, the promotion raises; none of them wrote anything.
    refused = seen["while_full"]
    ((state, error),) = refused["access_level"]
    assert state == "failed" and error.startswith(FULL), error
    ((state, error),) = refused["supersede"]
    assert state == "failed" and error.startswith(FULL), error
    assert refused["promote"].startswith(FULL), refused["promote"]
    # Registry, index and version are as they were, and agree.
    assert seen["after_refusal"] == before
    assert seen["consistent_while_full"] is True
    # Once the disk has room, the same re-marks go through, in the registry and the index.
    freed = seen["after_free"]
    assert [s for s, _ in freed["access_level"]] == ["indexed"]
    assert [s for s, _ in freed["supersede"]] == ["indexed"]
    assert freed["promote"] == ["pending.md"]
    after = seen["after"]
    assert after["registry"]["first.md"] == {
        "access_level": "confidential",
        "status": "superseded",
        "superseded_by": "second.md",
    }
    assert after["registry"]["pending.md"]["status"] == "current"
    assert after["index"] == {
        source: [json.dumps(marks, sort_keys=True)] for source, marks in after["registry"].items()
    }
    assert seen["consistent_after_free"] is True
