"""An embedded index whose sentence vectors embed units by an older rule (before nested list
items were read under their parents) is refused with the one command that rebuilds it;
``docent reindex`` moves it aside and rebuilds it in its place from the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docent.contracts import Embedder, Principal
from docent.settings import Settings
from docent.wiring import Services
from store import ModelMismatch
from store.errors import IndexLocked
from store.lock import FolderLock
from store.open import retire_outdated
from tests.store.reindex_support import assert_rebuilt, ingest_two_documents, run_reindex

OLDER_RULE = "heading-path+unit"


def make_older_index(settings: Settings, embedder: Embedder, tmp_path: Path) -> int:
    """Two documents ingested, then the index's record set back to the older unit rule."""
    chunks = ingest_two_documents(settings, embedder, tmp_path)
    meta_path = settings.index_path / "index.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta_path.write_text(json.dumps({**meta, "unit_text": OLDER_RULE}), encoding="utf-8")
    return chunks


def test_an_index_of_an_older_unit_rule_is_refused_then_rebuilt_in_place(
    settings: Settings,
    bundled_embedder: Embedder,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = make_older_index(settings, bundled_embedder, tmp_path)
    services = Services(settings, embedder=bundled_embedder)
    try:
        with pytest.raises(ModelMismatch, match=r"'heading-path\+unit'.*docent reindex"):
            services.searcher.search("remote work days", Principal("a", "employee"))
    finally:
        services.close()
    meta = json.loads((settings.index_path / "index.json").read_text(encoding="utf-8"))
    assert meta["unit_text"] == OLDER_RULE  # the refusal touched nothing

    output = run_reindex(settings, tmp_path, monkeypatch)
    assert "index of an older unit rule was moved to" in output
    (aside,) = settings.index_path.parent.glob(f"{settings.collection}.replaced-*")
    assert json.loads((aside / "index.json").read_text(encoding="utf-8"))["unit_text"] == OLDER_RULE
    assert_rebuilt(settings, bundled_embedder, chunks)


def test_an_index_in_use_is_not_moved(
    settings: Settings, bundled_embedder: Embedder, tmp_path: Path
) -> None:
    make_older_index(settings, bundled_embedder, tmp_path)
    holder = FolderLock(settings.index_path)
    holder.acquire()  # as a running `docent serve` holds it
    try:
        with pytest.raises(IndexLocked, match="one process owns"):
            retire_outdated(settings)
    finally:
        holder.release()
    assert (settings.index_path / "index.json").exists()
    assert not list(settings.index_path.parent.glob("*.replaced-*"))
