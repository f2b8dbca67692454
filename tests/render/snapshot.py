"""Committed text snapshots. A test compares its output with the file and fails with a
unified diff; run with ``DOCENT_UPDATE_SNAPSHOTS=1`` to (re)write the files after a change
that is meant. A missing snapshot fails too, so a deleted file cannot pass silently."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

UPDATE = os.environ.get("DOCENT_UPDATE_SNAPSHOTS") == "1"


def assert_snapshot(path: Path, actual: str) -> None:
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"snapshot {path} is missing; run with DOCENT_UPDATE_SNAPSHOTS=1 to write it")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{path.name} (committed)",
                tofile=f"{path.name} (rendered now)",
            )
        )
        pytest.fail(
            f"output differs from snapshot {path}; if the change is meant, rerun with "
            f"DOCENT_UPDATE_SNAPSHOTS=1\n{diff}"
        )
