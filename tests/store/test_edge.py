"""EdgeIndex specifics: one process owns a shard (a second opener is told who), the shard
survives a reopen, and the HNSW build runs off the request path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from docent.contracts import Principal
from store import AccessFilter, IndexLocked
from store.edge import EdgeIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import make_chunk
from tests.store.adapters import write

ROOT = Path(__file__).resolve().parents[2]
EMB = HashingEmbedder(64)
SECOND_OPENER = """
import sys
from store.edge import EdgeIndex
from store.errors import IndexLocked
try:
    EdgeIndex(sys.argv[1], "hashing-64", 64).ensure()
except IndexLocked as exc:
    print("REFUSED", exc.message)
else:
    print("OPENED")
"""


def test_a_second_process_is_told_which_process_holds_the_shard(tmp_path: Path) -> None:
    index = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    index.ensure()
    try:
        done = subprocess.run(
            [sys.executable, "-c", SECOND_OPENER, str(tmp_path / "docent")],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("REFUSED")
        assert f"process {os.getpid()}" in done.stdout
        assert str(tmp_path / "docent") in done.stdout
        assert "DOCENT_QDRANT_URL" in done.stdout
        assert "Traceback" not in done.stdout + done.stderr
        # In this process too: a second index object on the same folder is refused.
        with pytest.raises(IndexLocked):
            EdgeIndex(tmp_path / "docent", "hashing-64", 64).ensure()
    finally:
        index.close()
    # Once closed, the next opener gets it.
    again = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    again.ensure()
    again.close()


def test_writes_survive_a_reopen(tmp_path: Path) -> None:
    index = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    chunks = [make_chunk("a.md", n, f"Rule {n} of the leave policy.") for n in range(5)]
    write(index, EMB, chunks)  # ensure() runs on first use
    index.close()
    again = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    again.ensure()
    try:
        assert again.chunks_of("a.md") == chunks
    finally:
        again.close()


def test_hnsw_is_built_in_the_background_and_search_keeps_answering(tmp_path: Path) -> None:
    index = EdgeIndex(tmp_path / "docent", "hashing-64", 64, hnsw_min_points=4_000, quiet_s=0.5)
    rng = np.random.default_rng(3)
    n = 8_000
    chunks = [make_chunk(f"d{i // 40}.md", i % 40, f"text {i}") for i in range(n)]
    flat = rng.standard_normal((n, 64)).astype(np.float32)
    rows = [flat[i : i + 1] for i in range(n)]
    try:
        for start in range(0, n, 2_000):
            index.upsert(
                chunks[start : start + 2_000],
                flat[start : start + 2_000],
                rows[start : start + 2_000],
            )
        everyone = AccessFilter.for_principal(
            Principal("r", "restricted"),
            ("public", "employee", "confidential", "restricted"),
            include_pending=True,
        )
        # Answers while the graph is being built, and after.
        assert index.search(flat[17], everyone, 1)[0][0].chunk_id == chunks[17].chunk_id
        index.wait_optimized(timeout=300)
        assert not index.optimizing()
        assert index.last_optimize_s is not None
        assert index.search(flat[42], everyone, 1)[0][0].chunk_id == chunks[42].chunk_id
        assert index.count() == n
    finally:
        index.close()


def test_a_build_not_yet_started_is_dropped_at_close_and_resumed_at_the_next_open(
    tmp_path: Path,
) -> None:
    rng = np.random.default_rng(5)
    chunks = [make_chunk("d.md", i, f"text {i}") for i in range(300)]
    flat = rng.standard_normal((300, 64)).astype(np.float32)
    index = EdgeIndex(tmp_path / "docent", "hashing-64", 64, hnsw_min_points=200, quiet_s=60)
    index.upsert(chunks, flat, [flat[i : i + 1] for i in range(300)])
    assert index.optimizing()  # waiting for writes to pause
    index.close()  # does not wait a minute: the waiting build is dropped
    assert index.last_optimize_s is None
    again = EdgeIndex(tmp_path / "docent", "hashing-64", 64, hnsw_min_points=200, quiet_s=0)
    again.ensure()  # starts the build again, in the background
    try:
        again.wait_optimized(timeout=120)
        assert again.last_optimize_s is not None
        assert again.count() == 300
    finally:
        again.close()


def test_an_index_of_bare_sentence_vectors_is_refused_with_what_to_do(tmp_path: Path) -> None:
    import json

    from store import ModelMismatch

    index = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    index.ensure()
    write(index, EMB, [make_chunk("a.md", 0, "Kept text.")])
    meta_path = index.meta_path
    index.close()
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    assert meta["unit_text"] == "heading-path+parent-items+unit"
    del meta["unit_text"]  # as an index written before units were embedded in context
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelMismatch, match="bare sentences.*reindex"):
        EdgeIndex(tmp_path / "docent", "hashing-64", 64).ensure()
    meta["unit_text"] = "heading-path+unit"  # before nested items were read under parents
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelMismatch, match="'heading-path\\+unit'.*reindex"):
        EdgeIndex(tmp_path / "docent", "hashing-64", 64).ensure()
    meta["unit_text"] = "heading-path+parent-items+unit"
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    again = EdgeIndex(tmp_path / "docent", "hashing-64", 64)
    again.ensure()
    try:
        assert again.count() == 1  # the refusal touched nothing
    finally:
        again.close()


def test_the_lock_names_the_holders_command_without_its_options(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The holder "docent serve --port" read as a cut-off command; a value may be a secret."""
    from store.lock import FolderLock

    monkeypatch.setattr(sys, "argv", ["/x/bin/docent", "serve", "--port", "8731"])
    held = FolderLock(tmp_path)
    held.acquire()
    try:
        with pytest.raises(IndexLocked) as refused:
            FolderLock(tmp_path).acquire()
        assert f"is open in process {os.getpid()} (docent serve);" in refused.value.message
        assert "--port" not in refused.value.message and "8731" not in refused.value.message
    finally:
        held.release()
