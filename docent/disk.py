"""Room on the data dir's disk before a write. The embedded engine writes through
memory-mapped files: on a full disk it does not get an error it could report, the process
dies (SIGBUS). So every writer to the data dir (index writes and re-marks, the keyword
snapshot) first asks whether its write fits and leaves a margin, and a write that might not
is refused with a reason a person can act on, before anything is written. Here, not in a
stage package: ingest and retrieval both write, and retrieval never imports ingest."""

from __future__ import annotations

import shutil
from pathlib import Path

MIB = 2**20


def disk_full_reason(folder: Path, need: int, margin_mb: int) -> str | None:
    """Why a write of ``need`` bytes under ``folder`` must be refused (it would leave less
    than ``margin_mb`` MiB free), or ``None`` when it fits."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    wanted = need + margin_mb * MIB
    if free >= wanted:
        return None
    return (
        f"the data dir's disk is nearly full ({free // MIB} MiB free, about "
        f"{-(-wanted // MIB)} MiB needed); free some space, then retry"
    )
