"""Questions embedded by the ONNX export search exactly as questions embedded by torch: over
an index the same float32 model wrote, the same hits in the same order, the same best
sentences, scores within 1e-5."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from docent.contracts import Principal
from docent.wiring import Services
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import OnnxQueryEncoder
from retrieval.query_cache import QueryVectorCache
from retrieval.rerank import SentenceReranker
from retrieval.searcher import Searcher
from retrieval.terms import WordVectorCache
from tests.retrieval.conftest import bump, make_settings
from tests.retrieval.corpus import CORPUS, write_chunks

pytestmark = pytest.mark.slow  # a float32 model of its own, and the export (~7 s once)

QUESTIONS = (
    "How long is paid parental leave for birth parents?",
    "What is retention code RC-77?",
    "hotel cap in Lisbon per night",
    "Who approves travel over budget?",
    "executive bonus pool",
    "Kann ich Urlaub ins nächste Jahr übertragen?",
)


@pytest.fixture(scope="module")
def onnx_services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    embedder = SentenceTransformerEmbedder("bundled", bf16=False)
    settings = make_settings(Path(tmp_path_factory.mktemp("onnx")), query_encoder="onnx")
    services = Services(settings, embedder)
    write_chunks(services.index, embedder, CORPUS)
    bump(services)
    yield services
    services.close()


def torch_searcher(services: Services) -> Searcher:
    s = services.settings
    queries = QueryVectorCache(services.embedder)
    return Searcher(
        services.index,
        queries,
        services.keyword_index,
        SentenceReranker(queries, services.index),
        services.sessions,
        levels=s.access_levels,
        leg_top_n=s.leg_top_n,
        fused_top_m=s.fused_top_m,
        rrf_k=s.rrf_k,
        top_k=s.top_k,
        threshold=0.0,
        include_pending=s.include_pending,
        order=services.searcher.order,  # the same order as the ONNX searcher's
        words=WordVectorCache(services.embedder, None),  # its words' vectors by torch too
    )


def test_onnx_questions_find_what_torch_questions_find(onnx_services: Services) -> None:
    assert isinstance(onnx_services.query_encoder, OnnxQueryEncoder)
    with_onnx, with_torch = onnx_services.searcher, torch_searcher(onnx_services)
    asker = Principal("e", "employee")
    for question in QUESTIONS:
        got = with_onnx.search(question, asker, threshold=0.0, top_k=10)
        want = with_torch.search(question, asker, threshold=0.0, top_k=10)
        assert got.stages == want.stages
        assert [h.chunk.chunk_id for h in got.hits] == [h.chunk.chunk_id for h in want.hits]
        assert [h.best_sentence for h in got.hits] == [h.best_sentence for h in want.hits]
        np.testing.assert_allclose(
            [h.score for h in got.hits], [h.score for h in want.hits], atol=1e-5
        )
