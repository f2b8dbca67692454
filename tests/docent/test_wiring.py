"""The composition root (docent/wiring.py): what ``open_services`` opens when — an ingest job
is submitted and watched on the database alone, the index and the model open when a file
needs them — and an ``index_opener`` in place of the configured adapter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docent.contracts import Embedder
from docent.settings import Settings
from docent.wiring import open_services
from store.server import ServerIndex
from tests.ingest.pipeline_support import write_doc

OPENED_ON_USE = ("index", "embedder", "configured_embedder", "keyword_index", "searcher")


def test_submitting_and_watching_a_job_opens_neither_the_index_nor_the_model(
    settings: Settings, tmp_path: Path
) -> None:
    write_doc(tmp_path / "c" / "a.md", "Policy A", 2, seed=1)
    services = open_services(settings)  # the configured model: none is injected
    try:
        ingestor = services.ingestor
        job_id = ingestor.submit([tmp_path / "c"])
        assert ingestor.job_status(job_id)["state"] == "queued"
        assert ingestor.documents() == []
        assert [name for name in OPENED_ON_USE if name in vars(services)] == []
    finally:
        services.close()


def test_ingesting_a_file_opens_the_index_and_embeds_with_the_injected_model(
    settings: Settings, hashing_embedder: Any, tmp_path: Path
) -> None:
    write_doc(tmp_path / "c" / "a.md", "Policy A", 2, seed=1)
    services = open_services(settings, embedder=hashing_embedder)
    try:
        ingestor = services.ingestor
        job_id = ingestor.submit([tmp_path / "c"])
        ingestor.run(job_id)
        status = ingestor.job_status(job_id)
        assert status["state"] == "succeeded"
        assert services.index.count() == status["chunks"] > 0
        assert services.embedder is hashing_embedder  # no precision to bind
    finally:
        services.close()


def test_an_index_opener_replaces_the_configured_adapter(
    settings: Settings, hashing_embedder: Any, tmp_path: Path
) -> None:
    asked: list[Embedder] = []

    def in_memory(model: Embedder) -> ServerIndex:
        asked.append(model)
        index = ServerIndex.local(
            ":memory:", settings.collection, model.model_name, model.dimension
        )
        index.ensure()
        return index

    write_doc(tmp_path / "c" / "a.md", "Policy A", 2, seed=1)
    services = open_services(settings, embedder=hashing_embedder, index_opener=in_memory)
    try:
        ingestor = services.ingestor
        ingestor.run(ingestor.submit([tmp_path / "c"]))
        assert isinstance(services.index, ServerIndex) and services.index.count() > 0
        assert asked == [hashing_embedder]  # opened once, for the configured model
        assert not settings.index_path.exists()  # the embedded adapter was never opened
    finally:
        services.close()
