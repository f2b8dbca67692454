"""How much an index write takes on disk, and refusing one that would not fit (the check
itself is ``docent.disk``, shared with the keyword index): a refused write fails its file
with ``DiskFull`` and nothing is written."""

from __future__ import annotations

from pathlib import Path

from docent.contracts import Chunk
from docent.disk import disk_full_reason
from ingest.errors import DiskFull

# A generous bound on one point's payload at the default chunk size: its text, its sentences
# (the text again) and its embedding text, plus the document fields.
PAYLOAD_BYTES = 8 * 1024


def write_size(chunks: list[Chunk], dimension: int) -> int:
    """A generous estimate of what writing ``chunks`` takes on disk: every vector (the chunk
    and each unit) as float32, payload text, three times over (log, segment, index)."""
    vectors = sum(1 + len(c.sentences) for c in chunks) * dimension * 4
    text = sum(len(c.text.encode("utf-8")) * 2 for c in chunks)
    return 3 * (vectors + text)


def remark_size(points: int) -> int:
    """A generous estimate of what re-marking ``points`` in place (``set_payload``) takes:
    the engine may store each point's whole payload anew, three times over as above."""
    return 3 * points * PAYLOAD_BYTES


class DiskRoom:
    """The data dir's disk as writers see it: ``check`` refuses a write that would leave
    less than ``margin_mb`` MiB free. Built once per ingestor and shared by its writers."""

    def __init__(self, folder: Path, margin_mb: int) -> None:
        if margin_mb < 0:
            raise ValueError("margin_mb must be 0 or more")
        self.folder = folder
        self.margin_mb = margin_mb

    def check(self, source: str, need: int) -> None:
        """Refuse with ``DiskFull`` (naming ``source``) unless ``need`` bytes fit."""
        reason = disk_full_reason(self.folder, need, self.margin_mb)
        if reason is not None:
            raise DiskFull(source, reason)
