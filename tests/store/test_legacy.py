"""A data dir written by an older Docent (its index in qdrant-client local mode) is refused at
start with the one command that rebuilds it, never a traceback or a silently empty index;
``docent reindex`` rebuilds it from the registry and moves the old folder aside."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docent.contracts import Embedder, Principal
from docent.settings import Settings
from docent.wiring import Services
from store import LegacyIndex
from store.server import ServerIndex
from tests.store.reindex_support import assert_rebuilt, ingest_two_documents, run_reindex

ROOT = Path(__file__).resolve().parents[2]


def make_old_data_dir(settings: Settings, embedder: Embedder, tmp_path: Path) -> int:
    """A registry with documents and the index in the old local-mode layout only."""
    chunks = ingest_two_documents(settings, embedder, tmp_path)
    shutil.rmtree(settings.index_path.parent)  # no new-format index: only the old one
    old = ServerIndex.local(
        str(settings.data_dir / "qdrant"), settings.collection, embedder.model_name, 384
    )
    old.ensure()
    old.close()
    return chunks


def test_an_old_index_is_refused_with_the_rebuild_command(
    settings: Settings, bundled_embedder: Embedder, tmp_path: Path
) -> None:
    make_old_data_dir(settings, bundled_embedder, tmp_path)
    services = Services(settings, embedder=bundled_embedder)
    try:
        with pytest.raises(LegacyIndex, match="docent reindex") as caught:
            services.searcher.search("remote work days", Principal("a", "employee"))
        assert str(settings.data_dir / "qdrant") in caught.value.message
    finally:
        services.close()
    assert not settings.index_path.exists()  # nothing was created beside it

    # From the command line: one plain line, exit 1, no traceback.
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DOCENT_DATA_DIR": str(settings.data_dir),
        "DOCENT_ENV": "test",
    }
    done = subprocess.run(
        [sys.executable, "-c", "from docent.cli import main; main()", "search", "remote work"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    assert "error: the vector index in" in done.stderr
    assert "docent reindex" in done.stderr


def test_reindex_rebuilds_from_the_registry_and_moves_the_old_folder_aside(
    settings: Settings,
    bundled_embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = make_old_data_dir(settings, bundled_embedder, tmp_path)
    assert "moved to" in run_reindex(settings, tmp_path, monkeypatch)
    assert not (settings.data_dir / "qdrant").exists()
    assert list(settings.data_dir.glob("qdrant.replaced-*"))
    assert_rebuilt(settings, bundled_embedder, chunks)
