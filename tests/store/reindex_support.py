"""What the tests of `docent reindex`'s rebuilds share: a data dir with two sample documents,
the command run in-process, and the check that every chunk came back."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from docent.commands.reindex import register
from docent.contracts import Embedder, Principal
from docent.settings import Settings, get_settings
from docent.wiring import Services

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "policies"


def ingest_two_documents(settings: Settings, embedder: Embedder, tmp_path: Path) -> int:
    """Two sample documents ingested into ``settings``' data dir; how many chunks."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("remote-work.md", "expenses.md"):
        shutil.copy2(SAMPLE / name, corpus / name)
    services = Services(settings, embedder=embedder)
    try:
        services.ingestor.run(services.ingestor.submit([corpus], root=corpus))
        return services.index.count()
    finally:
        services.close()


def run_reindex(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """`docent reindex` over ``settings``' data dir; its output (it must succeed)."""
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


def assert_rebuilt(settings: Settings, embedder: Embedder, chunks: int) -> None:
    """Every chunk is back, and a question finds its document."""
    services = Services(settings, embedder=embedder)
    try:
        assert services.index.count() == chunks
        hits = services.searcher.search(
            "How many days can I work remotely?", Principal("a", "employee")
        )
        assert any(h.chunk.source == "remote-work.md" for h in hits.hits)
    finally:
        services.close()
