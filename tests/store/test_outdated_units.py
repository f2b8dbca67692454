"""An embedded index whose sentence vectors embed units by an older rule (before nested list
items were read under their parents) is refused with the one command that rebuilds it;
``docent reindex`` moves it aside and rebuilds it in its place from the registry."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from docent.commands.reindex import register
from docent.contracts import Embedder, Principal
from docent.settings import Settings, get_settings
from docent.wiring import Services
from store import ModelMismatch
from store.errors import IndexLocked
from store.lock import FolderLock
from store.open import retire_outdated

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "policies"
OLDER_RULE = "heading-path+unit"


def make_older_index(settings: Settings, embedder: Embedder, tmp_path: Path) -> int:
    """Two documents ingested, then the index's record set back to the older unit rule."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("remote-work.md", "expenses.md"):
        shutil.copy2(SAMPLE / name, corpus / name)
    services = Services(settings, embedder=embedder)
    try:
        services.ingestor.run(services.ingestor.submit([corpus], root=corpus))
        chunks = services.index.count()
    finally:
        services.close()
    meta_path = settings.index_path / "index.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    meta_path.write_text(json.dumps({**meta, "unit_text": OLDER_RULE}), encoding="utf-8")
    return chunks


def reindex(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """Docent (test app)."""

    register(app)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DOCENT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("DOCENT_ENV", "test")
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(app, ["reindex"])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    return result.output


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

    output = reindex(settings, tmp_path, monkeypatch)
    assert "index of an older unit rule was moved to" in output
    (aside,) = settings.index_path.parent.glob(f"{settings.collection}.replaced-*")
    assert json.loads((aside / "index.json").read_text(encoding="utf-8"))["unit_text"] == OLDER_RULE
    services = Services(settings, embedder=bundled_embedder)
    try:
        assert services.index.count() == chunks
        hits = services.searcher.search(
            "How many days can I work remotely?", Principal("a", "employee")
        )
        assert any(h.chunk.source == "remote-work.md" for h in hits.hits)
    finally:
        services.close()


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
