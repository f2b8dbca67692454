"""Run a scenario module on a small disk: its data dir is a 192 MiB tmpfs in a private mount
namespace (``unshare --mount --map-root-user``: no change to the machine's mounts). The
module takes the data dir and a scratch folder, and prints one JSON object with what it saw,
its last line (not a test module)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run_on_small_disk(module: str, tmp_path: Path) -> dict[str, Any]:
    mount = tmp_path / "data"
    mount.mkdir()
    script = (
        f"mount -t tmpfs -o size=192m tmpfs {mount} && "
        f"exec {sys.executable} -m {module} {mount} {tmp_path / 'corpus'}"
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
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return seen
