"""The offline reranker's stored-vector cache (``retrieval/vector_cache.py``), on a real
embedded index: what it serves equals what the index holds, a passage deleted or rewritten
after it was kept is never served from memory, and it keeps within its budget."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from docent.contracts import Chunk, Hit
from retrieval.rerank import SentenceReranker
from retrieval.vector_cache import StoredVectorCache, stored_vectors
from store.edge import EdgeIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.retrieval.corpus import make_chunk, write_chunks

EMB = HashingEmbedder(64)
CHUNKS = (
    make_chunk("a.md", 0, "Annual leave is 25 days. Carry over 5 days."),
    make_chunk("b.md", 0, "Taxis need a receipt. Trains are booked in advance."),
    make_chunk("c.md", 0, "Laptops are returned on the last day."),
)


@pytest.fixture
def index(tmp_path: Path) -> Iterator[EdgeIndex]:
    opened = EdgeIndex(tmp_path / "vc", EMB.model_name, EMB.dimension)
    write_chunks(opened, EMB, CHUNKS)
    yield opened
    opened.close()


def test_what_it_serves_equals_the_index_first_read_and_kept(index: EdgeIndex) -> None:
    cache = StoredVectorCache(2**20)
    ids = [c.chunk_id for c in CHUNKS]
    direct = stored_vectors(index, ids)
    first = cache.read(index, CHUNKS)
    assert len(cache) == 3
    second = cache.read(index, CHUNKS)
    for got in (first, second):
        for want_rows, got_rows in zip(direct, got, strict=True):
            assert set(got_rows) == set(ids)
            for cid in ids:
                assert np.array_equal(got_rows[cid], want_rows[cid])
    # The second read is the kept arrays themselves, which no reader may change.
    assert second[1]["a.md#0"] is first[1]["a.md#0"]
    with pytest.raises(ValueError, match="read-only"):
        second[1]["a.md#0"][0, 0] = 1.0


def test_a_kept_passage_deleted_since_is_not_served(index: EdgeIndex) -> None:
    cache = StoredVectorCache(2**20)
    cache.read(index, CHUNKS)
    index.delete_source("b.md")
    chunk_rows, sentence_rows = cache.read(index, CHUNKS)
    assert set(chunk_rows) == set(sentence_rows) == {"a.md#0", "c.md#0"}
    hits = [Hit(chunk=c, rank=i, score=0.0) for i, c in enumerate(CHUNKS, start=1)]
    reranked = SentenceReranker(EMB, index, cache=cache).rerank("taxi receipt", hits)
    assert "b.md#0" not in [h.chunk.chunk_id for h in reranked]


def test_a_rewritten_passage_is_read_again_by_its_new_content_hash(index: EdgeIndex) -> None:
    cache = StoredVectorCache(2**20)
    cache.read(index, CHUNKS)
    rewritten = replace(
        make_chunk("c.md", 0, "Phones are returned to IT. Laptops go to the front desk."),
        content_hash="new",
    )
    write_chunks(index, EMB, [rewritten])
    _, sentence_rows = cache.read(index, [rewritten])
    assert sentence_rows["c.md#0"].shape == (2, EMB.dimension)
    assert np.allclose(sentence_rows["c.md#0"], EMB.embed(list(rewritten.unit_embed_texts)))


def test_reranks_alike_with_and_without_it(index: EdgeIndex) -> None:
    hits = [Hit(chunk=c, rank=i, score=0.0) for i, c in enumerate(CHUNKS, start=1)]
    plain = SentenceReranker(EMB, index).rerank("how many days of leave", hits)
    cached = SentenceReranker(EMB, index, cache=StoredVectorCache(2**20))
    for _ in range(2):  # first read, then from memory
        assert cached.rerank("how many days of leave", hits) == plain


def passage_bytes(chunk: Chunk) -> int:
    return (1 + len(chunk.sentences)) * EMB.dimension * 4


def test_it_keeps_within_its_budget_least_recently_used_out_first(index: EdgeIndex) -> None:
    a, b, c = CHUNKS
    cache = StoredVectorCache(passage_bytes(a) + passage_bytes(b))
    cache.read(index, [a, b])
    cache.read(index, [a])  # a is now the more recently used
    cache.read(index, [c])
    assert cache.size_bytes <= cache.budget_bytes
    assert (a in cache, b in cache, c in cache) == (True, False, True)
    nothing = StoredVectorCache(0)
    assert set(nothing.read(index, CHUNKS)[0]) == {"a.md#0", "b.md#0", "c.md#0"}
    assert len(nothing) == 0
    with pytest.raises(ValueError, match="0 or more"):
        StoredVectorCache(-1)


def test_fill_reads_passages_until_the_budget_is_reached(index: EdgeIndex) -> None:
    a, b, c = CHUNKS
    cache = StoredVectorCache(passage_bytes(a) + passage_bytes(b))
    cache.fill(index, CHUNKS, batch=1)
    assert (a in cache, b in cache, c in cache) == (True, True, False)
    everything = StoredVectorCache(2**20)
    everything.fill(index, CHUNKS)
    assert len(everything) == 3
