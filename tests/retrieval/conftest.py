"""Retrieval fixtures: the synthetic corpus written once into a local-mode Qdrant with the
real bundled model, behind a real SQLite index-version row."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from docent.contracts import Chunk, Embedder
from docent.db.state import bump_index_version
from docent.settings import Settings
from docent.wiring import Services
from retrieval.searcher import Searcher
from tests.retrieval.corpus import CORPUS, write_chunks


def make_settings(data_dir: Path, **overrides: object) -> Settings:
    return Settings(_env_file=None, env="test", data_dir=data_dir, **overrides)  # type: ignore[call-arg, arg-type]


def bump(services: Services) -> int:
    with services.sessions.begin() as session:
        return bump_index_version(session)


@contextmanager
def services_over(
    data_dir: Path, embedder: Embedder, chunks: Sequence[Chunk]
) -> Iterator[Services]:
    """Services on a new data dir whose index holds ``chunks`` (version 1); closed after."""
    services = Services(make_settings(data_dir), embedder)
    try:
        write_chunks(services.index, embedder, chunks)
        bump(services)
        yield services
    finally:
        services.close()


@pytest.fixture(scope="package")
def corpus_services(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder
) -> Iterator[Services]:
    with services_over(tmp_path_factory.mktemp("retrieval"), bundled_embedder, CORPUS) as made:
        yield made


@pytest.fixture(scope="package")
def searcher(corpus_services: Services) -> Searcher:
    """The searcher exactly as ``Services`` builds it from default settings."""
    return corpus_services.searcher


def variant(services: Services, **overrides: object) -> Searcher:
    """A searcher over the same index with some parameters changed."""
    s = services.settings
    params: dict[str, object] = {
        "levels": s.access_levels,
        "leg_top_n": s.leg_top_n,
        "fused_top_m": s.fused_top_m,
        "rrf_k": s.rrf_k,
        "top_k": s.top_k,
        "threshold": s.relevance_threshold,
        "include_pending": s.include_pending,
    } | overrides
    return Searcher(
        services.index,
        services.query_embedder,
        services.keyword_index,
        services.reranker,
        services.sessions,
        **params,  # type: ignore[arg-type]
    )
