"""The data dir's disk full when the keyword index would write its snapshot file: the
scenario runs on a small tmpfs (``tests/small_disk.py``) filled with a ballast file, and
reports what it saw (tests/retrieval/keyword_diskfull_scenario.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.small_disk import run_on_small_disk

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REFUSED = "keyword index not persisted: the data dir's disk is nearly full ("


def test_a_full_disk_keeps_the_snapshot_in_memory_and_writes_no_file(tmp_path: Path) -> None:
    seen = run_on_small_disk("tests.retrieval.keyword_diskfull_scenario", tmp_path)
    assert seen["ingested"] == "succeeded" and seen["ballast_bytes"] > 0
    # Refused in our words, before anything was written (not even a temporary file), and the
    # keyword leg still answers from memory.
    full = seen["while_full"]
    assert [w for w in full["warnings"] if w.startswith(REFUSED)] == full["warnings"]
    assert len(full["warnings"]) == 1, full["warnings"]
    assert full["files"] == []
    assert full["hits"] > 0
    # Once the disk has room, the same load writes the file.
    freed = seen["after_free"]
    assert freed["warnings"] == []
    assert [f for f in freed["files"] if f.endswith(".pkl")] == freed["files"] != []
    assert freed["hits"] == full["hits"]
