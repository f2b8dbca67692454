"""The data dir's disk full during an ingest write: the data dir is a 192 MiB tmpfs in a
private mount namespace (``unshare --mount --map-root-user``: no change to the machine's
mounts), filled with a ballast file before the second document is ingested
(tests/ingest/diskfull_scenario.py runs there and reports what it saw)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]


def test_a_full_disk_fails_the_file_clearly_and_a_retry_after_freeing_it_completes(
    tmp_path: Path,
) -> None:
    mount = tmp_path / "data"
    mount.mkdir()
    script = (
        f"mount -t tmpfs -o size=192m tmpfs {mount} && "
        f"exec {sys.executable} -m tests.ingest.diskfull_scenario {mount} {tmp_path / 'corpus'}"
    )
    unshare = shutil.which("unshare") or "/usr/bin/unshare"
    done = subprocess.run(
        [unshare, "--mount", "--map-root-user", "sh", "-c", script],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["first"] == "succeeded" and seen["ballast_bytes"] > 0
    while_full = seen["while_full"]
    # The file did not go in, and says why in our words, before anything was written.
    assert while_full["state"] == "failed", while_full
    ((state, error),) = while_full["files"]
    assert state == "failed" and error.startswith("the data dir's disk is nearly full ("), error
    # The registry never names the document that did not fit, the index agrees with it
    # (nothing of the file was written), and the rest is untouched.
    assert seen["registry_while_full"] == ["first.md"]
    assert seen["consistent_while_full"] is True
    assert seen["first_still_indexed"] is True
    assert seen["after_free"] == "succeeded"
    assert seen["consistent_after_free"] is True
    assert seen["documents"] == ["first.md", "second.md"]
