"""A process killed with SIGKILL in the middle of a large upsert: the index reopens (no
corrupt shard), holds every acknowledged write in a consistent state, and re-ingesting the
same batches completes it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from store import CHUNK_VECTOR, SENTENCE_VECTOR
from tests.store.crash_writer import chunks, open_index, vectors

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("kind", "total", "batch", "kill_after"),
    [("edge", 20_000, 1_000, 3_000), ("local", 800, 50, 200)],
)
def test_sigkill_mid_upsert_loses_no_acknowledged_write(
    tmp_path: Path, kind: str, total: int, batch: int, kill_after: int
) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.store.crash_writer",
            kind,
            str(tmp_path),
            str(total),
            str(batch),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )
    acked = 0
    assert child.stdout is not None
    for line in child.stdout:
        if line.startswith("ack "):
            acked = int(line.split()[1])
        if acked >= kill_after:
            break
    child.send_signal(signal.SIGKILL)  # in the middle of the next batch
    _, errors = child.communicate(timeout=60)  # reaps it and closes both pipes
    assert child.returncode == -signal.SIGKILL, errors
    assert 0 < acked < total

    index = open_index(kind, tmp_path)
    index.ensure()  # reopens: WAL replayed, no corrupt shard
    try:
        stored = index.count()
        assert acked <= stored < total
        # Consistent: every acknowledged chunk is whole (payload and both vectors).
        wanted = [c.chunk_id for c in chunks(0, acked)][:: max(1, acked // 200)]
        got = index.get(wanted, vectors=(CHUNK_VECTOR, SENTENCE_VECTOR))
        assert set(got) == set(wanted)
        for item in got.values():
            assert item.vectors[CHUNK_VECTOR].shape == (64,)
            assert item.vectors[SENTENCE_VECTOR].shape == (2, 64)
        # Scrolling reads every stored point without a fault.
        assert sum(1 for _ in index.scroll(batch=2_000)) == stored
        # Re-ingest completes it: the interrupted batch and the rest, same point ids.
        for start in range(acked, total, batch):
            stop = min(total, start + batch)
            flat, rows = vectors(start, stop)
            index.upsert(chunks(start, stop), flat, rows)
        assert index.count() == total
    finally:
        index.close()
