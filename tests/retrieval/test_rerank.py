"""The offline sentence reranker (real model, stored vectors); the CrossEncoder path is in
``test_cross_encoder.py``."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray

from docent.contracts import Hit
from docent.wiring import Services
from retrieval.codes import code_coverage, query_codes
from retrieval.query_cache import QueryVectorCache
from retrieval.rerank import SentenceReranker, segment_argmax
from retrieval.tokenize import tokenize
from retrieval.vector_cache import stored_vectors
from store.edge import EdgeIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import CORPUS, hits_for, make_chunk, write_chunks
from tests.retrieval.counting_embedder import CountingEmbedder


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
        # A numbered part named as such is its code; the same number alone is a number.
        ("What does clause 7.4 say?", {"7.4"}),
        ("section 4.2.1 and § 3.1 apply", {"4.2.1", "3.1"}),
        ("A 7.4 kW charger for 2.5 hours", set()),
        ("clauses 7.4 and 7.5, sections 3.1-3.4", {"7.4", "7.5", "3.1", "3.4"}),
        ("a timeout of 1 sec 2.5 seconds, art 1.2 metres", set()),
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


def reference_rerank(reranker: SentenceReranker, query: str, hits: Sequence[Hit]) -> list[Hit]:
    """The reranker's rule written hit by hit (as it was before it was stacked into one
    product): the specification the stacked one is held to."""
    from retrieval.rerank import Scored, ranked

    q = unit(reranker.embedder.embed([query])[0])
    codes = query_codes(query)
    chunk_rows, sentence_rows = stored_vectors(reranker.index, [h.chunk.chunk_id for h in hits])
    scored: list[Scored] = []
    for hit in hits:
        chunk = hit.chunk
        if chunk.chunk_id not in chunk_rows:
            continue
        chunk_cos = float(unit(chunk_rows[chunk.chunk_id]) @ q)
        rows = sentence_rows.get(chunk.chunk_id)
        best_row, best_cos = None, chunk_cos
        units: tuple[float, ...] = ()
        if rows is not None and len(rows):
            sims = unit(rows) @ q
            choice = sims
            if codes and len(rows) == len(chunk.sentences):
                cover = [len(codes & set(tokenize(s))) / len(codes) for s in chunk.sentences]
                choice = sims + reranker.code_weight * np.asarray(cover, dtype=np.float32)
            best_row = int(np.argmax(choice))
            best_cos = float(sims[best_row])
            if len(rows) == len(chunk.sentences):
                units = tuple(round(float(x), 4) for x in sims)
        score = 0.5 * best_cos + 0.5 * chunk_cos
        if codes:
            words = set(tokenize(f"{chunk.heading}\n{chunk.text}"))
            score += reranker.code_weight * len(codes & words) / len(codes)
        if not chunk.sentences:
            best = chunk.text
        elif best_row is None or best_row >= len(chunk.sentences):
            best = None
        else:
            best = chunk.sentences[best_row]
        scored.append((hit, score, best, units))
    return ranked(scored)


def assert_same_ranking(got: list[Hit], want: list[Hit]) -> None:
    assert [h.chunk.chunk_id for h in got] == [h.chunk.chunk_id for h in want]
    assert [h.best_sentence for h in got] == [h.best_sentence for h in want]
    np.testing.assert_allclose([h.score for h in got], [h.score for h in want], atol=1e-6)
    for g, w in zip(got, want, strict=True):
        assert len(g.unit_scores) == len(w.unit_scores)
        np.testing.assert_allclose(g.unit_scores, w.unit_scores, atol=1.01e-4)  # 4-place rounding


@pytest.mark.parametrize(
    "query",
    [
        "How long is paid parental leave for birth parents?",
        "What is retention code RC-77?",
        "hotel cap in Lisbon per night",
        "Under Clause 7.3(b), who approves?",
        "executive bonus pool",
    ],
)
def test_the_stacked_rerank_is_the_hit_by_hit_rule(corpus_services: Services, query: str) -> None:
    reranker = SentenceReranker(corpus_services.embedder, corpus_services.index)
    candidates = hits_for(*[c.chunk_id for c in CORPUS])
    assert_same_ranking(
        reranker.rerank(query, candidates), reference_rerank(reranker, query, candidates)
    )


def test_the_stacked_rerank_on_odd_rows(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Sentence rows that do not line up with the units, a chunk with no units, a chunk
    deleted mid-query, a code named in one unit: each as the hit-by-hit rule has it."""
    embedder = HashingEmbedder(64)
    index = EdgeIndex(tmp_path / "odd", embedder.model_name, embedder.dimension)
    aligned = make_chunk("a.md", 0, "Form RC-77 is kept six years. Form RC-75 is kept two years.")
    short = make_chunk("b.md", 0, "Leave is 25 days. Carry over 5 days. Ask your manager.")
    bare = replace(make_chunk("c.md", 0, "A table row RC-77 | six years"), sentences=())
    gone = make_chunk("d.md", 0, "Leave was 20 days.")
    chunks = [aligned, short, bare, gone]
    vectors = embedder.embed([c.embed_text for c in chunks])
    rows = [
        embedder.embed(list(aligned.unit_embed_texts)),
        embedder.embed(["Leave is 25 days."]),  # one row for three units
        np.zeros((0, 64), dtype=np.float32),  # none: the index stores the chunk vector
        embedder.embed(list(gone.unit_embed_texts)),
    ]
    index.upsert(chunks, vectors, rows)
    index.delete_source("d.md")
    reranker = SentenceReranker(embedder, index)
    candidates = [Hit(chunk=c, rank=i, score=0.0) for i, c in enumerate(chunks, start=1)]
    try:
        for query in ("How long is form RC-77 kept?", "leave days", "RC-75"):
            with caplog.at_level(logging.WARNING, logger="retrieval.rerank"):
                got = reranker.rerank(query, candidates)
            assert_same_ranking(got, reference_rerank(reranker, query, candidates))
            assert "d.md#0" not in [h.chunk.chunk_id for h in got]
        assert "b.md#0 has 1 sentence vectors for 3 sentences" in caplog.text
        top = reranker.rerank("How long is form RC-77 kept?", candidates)[0]
        assert top.best_sentence == "Form RC-77 is kept six years."
    finally:
        index.close()


def test_segment_argmax_is_argmax_of_each_segment() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        counts = rng.integers(1, 7, size=rng.integers(1, 12)).astype(np.intp)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.intp)
        values = rng.integers(0, 4, size=int(counts.sum())).astype(np.float32)  # many ties
        want = [s + int(np.argmax(values[s : s + c])) for s, c in zip(starts, counts, strict=True)]
        assert segment_argmax(values, starts, counts).tolist() == want


@pytest.mark.parametrize(
    "text",
    [
        "Retention code RC-77 covers contracts.",
        "Retention code rc-77's scope",
        "ＲＣ－７７ in full width",
        "Clause 7.3(b) and 7.3(a)",
        "401(k) plan; the E:1 list; SEV1 pages; P-12 band L5",
        "limit RC-5,000 and €5,000",
        "RC‑77 with a non-breaking hyphen",
        "RC-770 is another code",
        "nothing to see",
        "",
    ],
)
def test_code_coverage_rules_out_only_texts_without_the_codes(text: str) -> None:
    for query in (
        "What is RC-77?",
        "Clause 7.3(b) or 401(k)?",
        "SEV1 for L5 under P-12 and E:1",
        "What about RC-5,000?",
    ):
        codes = query_codes(query)
        assert codes
        exact = len(codes & set(tokenize(text))) / len(codes)
        assert code_coverage(codes, text) == exact


def test_query_vector_cache() -> None:
    counting = CountingEmbedder(HashingEmbedder(32))
    cache = QueryVectorCache(counting, size=2)
    first = cache.embed(["annual leave"])
    first[0, 0] = 99.0  # a caller scribbling on its copy must not poison the cache
    again = cache.embed(["annual leave"])
    assert len(counting.texts) == 1 and again[0, 0] != 99.0
    np.testing.assert_array_equal(again, counting.inner.embed(["annual leave"]))
    cache.embed(["b"])
    cache.embed(["c"])  # evicts "annual leave"
    cache.embed(["annual leave"])
    assert len(counting.texts) == 4
    cache.embed(["x", "y"])  # batches pass through
    cache.embed(["x", "y"])
    assert len(counting.texts) == 8
    assert (cache.model_name, cache.dimension) == (counting.model_name, 32)
