"""The ChunkIndex contract: every adapter passes these (EdgeIndex, ServerIndex on local
mode, ServerIndex on a real server when DOCENT_TEST_QDRANT_URL is set)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docent.contracts import Chunk, Principal
from store import CHUNK_VECTOR, SENTENCE_VECTOR, AccessFilter, ModelMismatch, point_id
from store.protocol import ChunkIndex
from tests.ingest.hashing_embedder import HashingEmbedder
from tests.store.adapters import Adapter, write

EMB = HashingEmbedder(64)
EVERYONE = AccessFilter(levels=("public", "employee", "confidential", "restricted"))


def chunk(source: str, n: int, text: str, sentences: tuple[str, ...] = (), **kw: object) -> Chunk:
    return Chunk(
        chunk_id=f"{source}#{n}",
        doc_id=source,
        source=source,
        heading_path=("Doc", f"Part {n}"),
        kind="text",
        text=text,
        embed_text=text,
        sentences=sentences or (text,),
        content_hash=str(n),
        **kw,  # type: ignore[arg-type]
    )


def test_round_trip_keeps_payload_and_both_vectors(index: ChunkIndex) -> None:
    units = ("Leave is 25 days.", "Carry over five.", "Ask your manager.")
    written = chunk("a.md", 0, " ".join(units), units, groups=("hr",), access_level="public")
    write(index, EMB, [written])
    got = index.get(["a.md#0", "missing.md#0"], vectors=(CHUNK_VECTOR, SENTENCE_VECTOR))
    assert set(got) == {"a.md#0"}
    assert got["a.md#0"].chunk == written
    rows = got["a.md#0"].vectors[SENTENCE_VECTOR]
    assert rows.shape == (3, 64)
    assert np.allclose(rows, EMB.embed(list(written.unit_embed_texts)), atol=1e-5)
    assert np.allclose(got["a.md#0"].vectors[CHUNK_VECTOR], EMB.embed([written.text])[0], atol=1e-5)
    assert index.get(["a.md#0"])["a.md#0"].vectors == {}  # vectors only on request
    assert index.get([]) == {}


def test_vectors_reads_stored_vectors_of_existing_chunks_without_payload(
    index: ChunkIndex,
) -> None:
    units = ("Leave is 25 days.", "Carry over five.")
    written = [chunk("a.md", 0, " ".join(units), units), chunk("b.md", 1, "Expenses.")]
    write(index, EMB, written)
    both = (CHUNK_VECTOR, SENTENCE_VECTOR)
    got = index.vectors(["a.md#0", "missing.md#0", "b.md#1", ""], both)
    assert set(got) == {"a.md#0", "b.md#1"}
    assert got["a.md#0"][SENTENCE_VECTOR].dtype == np.float32
    want = EMB.embed(list(written[0].unit_embed_texts))
    assert np.allclose(got["a.md#0"][SENTENCE_VECTOR], want, atol=1e-5)
    same = index.get(["a.md#0"], vectors=both)["a.md#0"].vectors
    for name in both:
        assert np.array_equal(got["a.md#0"][name], same[name])
    # No names: which exist, nothing read.
    assert index.vectors(["b.md#1", "missing.md#0"], ()) == {"b.md#1": {}}
    index.delete_source("b.md")
    assert set(index.vectors(["a.md#0", "b.md#1"], both)) == {"a.md#0"}
    assert index.vectors([], both) == {}


def test_a_chunk_without_units_stores_its_chunk_vector_as_the_one_row(index: ChunkIndex) -> None:
    bare = chunk("t.md", 0, "| a | b |")
    index.upsert([bare], EMB.embed([bare.text]), [np.zeros((0, 64), dtype=np.float32)])
    rows = index.get(["t.md#0"], vectors=(SENTENCE_VECTOR,))["t.md#0"].vectors[SENTENCE_VECTOR]
    assert rows.shape == (1, 64)


def test_upsert_is_idempotent_and_ids_are_stable(index: ChunkIndex) -> None:
    chunks = [chunk("a.md", n, f"Leave rule {n}.") for n in range(3)]
    write(index, EMB, chunks)
    write(index, EMB, chunks)
    assert index.count() == 3
    assert point_id("a.md#0") == point_id("a.md#0") != point_id("a.md#1")
    assert index.chunks_of("a.md") == chunks
    changed = chunk("a.md", 1, "Leave rule one, changed.")
    write(index, EMB, [changed])
    assert index.count() == 3
    assert index.chunks_of("a.md")[1] == changed


def test_delete_and_set_payload_by_source(index: ChunkIndex) -> None:
    write(index, EMB, [chunk("old.md", n, f"old {n}") for n in range(3)])
    write(index, EMB, [chunk("new.md", 0, "new")])
    index.set_payload("old.md", {"status": "superseded", "superseded_by": "new.md"})
    assert {c.status for c in index.chunks_of("old.md")} == {"superseded"}
    assert {c.superseded_by for c in index.chunks_of("old.md")} == {"new.md"}
    assert [c.status for c in index.chunks_of("new.md")] == ["current"]
    index.delete_ids(["old.md#2", "never.md#0"])
    assert [c.chunk_id for c in index.chunks_of("old.md")] == ["old.md#0", "old.md#1"]
    index.delete_source("old.md")
    assert index.chunks_of("old.md") == []
    assert index.count() == 1
    index.delete_ids([])  # nothing to do is fine


def test_scroll_pages_through_everything(index: ChunkIndex) -> None:
    chunks = [chunk(f"d{n % 7}.md", n, f"text {n}") for n in range(40)]
    write(index, EMB, chunks)
    seen = [c.chunk_id for c in index.scroll(batch=6)]
    assert sorted(seen) == sorted(c.chunk_id for c in chunks)
    assert {c.source for c in index.scroll(source="d3.md")} == {"d3.md"}
    with pytest.raises(ValueError):
        list(index.scroll(batch=0))


def test_search_ranks_by_the_chunk_vector_with_the_filter_inside(index: ChunkIndex) -> None:
    write(
        index,
        EMB,
        [
            chunk("a.md", 0, "annual leave days", access_level="employee"),
            chunk("b.md", 0, "annual leave days carry over", access_level="restricted"),
            chunk("c.md", 0, "expense receipts", access_level="public"),
        ],
    )
    query = EMB.embed(["annual leave days"])[0]
    hits = index.search(query, EVERYONE, 3)
    assert [c.chunk_id for c, _ in hits][0] == "a.md#0"
    assert hits[0][1] == pytest.approx(1.0, abs=1e-4)
    assert hits[0][1] >= hits[1][1] >= hits[2][1]
    employee = AccessFilter.for_principal(
        Principal("e", "employee"), EVERYONE.levels, include_pending=False
    )
    assert "b.md#0" not in {c.chunk_id for c, _ in index.search(query, employee, 10)}
    assert len(index.search(query, employee, 1)) == 1
    with pytest.raises(ValueError, match="limit"):
        index.search(query, EVERYONE, 0)


def test_another_model_or_dimension_is_refused(adapter: Adapter, index: ChunkIndex) -> None:
    write(index, EMB, [chunk("a.md", 0, "kept")])
    adapter.release(index)
    with pytest.raises(ModelMismatch, match="built with 'hashing-64'.*another-model"):
        adapter.open("another-model", 64).ensure()
    with pytest.raises(ModelMismatch, match="384-d"):
        adapter.open("hashing-64", 384).ensure()
    again = adapter.open("hashing-64", 64)
    again.ensure()
    assert again.count() == 1  # the refusals touched nothing


def test_bad_arguments_are_refused_before_any_write(index: ChunkIndex) -> None:
    one = chunk("a.md", 0, "x")
    with pytest.raises(ValueError, match="differ in length"):
        index.upsert([one], EMB.embed(["x", "y"]), [EMB.embed(["x"])])
    with pytest.raises(ValueError, match="dimensions"):
        index.upsert([one], np.zeros((1, 8), dtype=np.float32), [EMB.embed(["x"])])
    assert index.count() == 0


def test_a_server_collection_of_bare_sentence_vectors_is_refused(tmp_path: Path) -> None:
    from qdrant_client import models as qm

    from store.server import ServerIndex

    client = ServerIndex.local(str(tmp_path / "local"), "old", "hashing-64", 64).client
    params = qm.VectorParams(size=64, distance=qm.Distance.COSINE)
    client.create_collection(  # as a Docent before units were embedded in context made it
        "old",
        vectors_config={CHUNK_VECTOR: params, SENTENCE_VECTOR: params},
        metadata={"embedding_model": "hashing-64", "dimension": 64},
    )
    try:
        with pytest.raises(ModelMismatch, match="bare sentences.*reindex"):
            ServerIndex(client, "old", "hashing-64", 64).ensure()
    finally:
        client.close()
