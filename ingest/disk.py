"""Room on the data dir's disk before an index write. The embedded engine writes through
memory-mapped files: on a full disk it does not get an error it could report, the process
dies (SIGBUS). So a write that might not fit is refused first, with a reason a person can
act on, and nothing is written."""

from __future__ import annotations

import shutil
from pathlib import Path

from docent.contracts import Chunk
from ingest.errors import DiskFull

MIB = 2**20


def write_size(chunks: list[Chunk], dimension: int) -> int:
    """A generous estimate of what writing ``chunks`` takes on disk: every vector (the chunk
    and each unit) as float32, payload text, three times over (log, segment, index)."""
    vectors = sum(1 + len(c.sentences) for c in chunks) * dimension * 4
    text = sum(len(c.text.encode("utf-8")) * 2 for c in chunks)
    return 3 * (vectors + text)


def check_room(folder: Path, source: str, need: int, margin_mb: int) -> None:
    """Refuse with ``DiskFull`` unless ``need`` bytes and ``margin_mb`` MiB are free."""
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    wanted = need + margin_mb * MIB
    if free < wanted:
        raise DiskFull(
            source,
            f"the data dir's disk is nearly full ({free // MIB} MiB free, about "
            f"{-(-wanted // MIB)} MiB needed); free some space, then retry",
        )
