"""Retrieval fixtures: the synthetic corpus written once into a local-mode Qdrant with the
real bundled model, behind a real SQLite index-version row."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from docent.contracts import Embedder
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


@pytest.fixture(scope="package")
def corpus_services(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Embedder
) -> Iterator[Services]:
    services = Services(make_settings(tmp_path_factory.mktemp("retrieval")), bundled_embedder)
    write_chunks(services.index, bundled_embedder, CORPUS)
    bump(services)
    yield services
    services.close()


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
