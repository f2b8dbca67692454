"""QdrantIndex in local mode: stable point ids, in-place re-marking, the model guard, and a
clear error when the index folder is held by another process."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from qdrant_client import QdrantClient

from docent.contracts import Chunk
from ingest.embedding import HashingEmbedder
from ingest.vector_store import IndexUnavailable, ModelMismatch, QdrantIndex, point_id


def _chunk(source: str, n: int, text: str, sentences: tuple[str, ...]) -> Chunk:
    return Chunk(
        chunk_id=f"{source}#{n}",
        doc_id=source,
        source=source,
        heading_path=("Doc", f"Part {n}"),
        kind="text",
        text=text,
        embed_text=text,
        sentences=sentences,
        content_hash=str(n),
    )


@pytest.fixture
def index(tmp_path: Path):  # type: ignore[no-untyped-def]
    client = QdrantClient(path=str(tmp_path / "q"))
    idx = QdrantIndex(client, "docs", "hashing-64", 64)
    idx.ensure_collection()
    yield idx
    client.close()


def _write(index: QdrantIndex, chunks: list[Chunk]) -> None:
    emb = HashingEmbedder(64)
    index.upsert(
        chunks,
        emb.embed([c.embed_text for c in chunks]),
        [emb.embed(list(c.sentences)) for c in chunks],
    )


def test_upsert_is_idempotent_and_ids_are_stable(index: QdrantIndex) -> None:
    chunks = [_chunk("a.md", 0, "Leave is 25 days.", ("Leave is 25 days.",))]
    _write(index, chunks)
    _write(index, chunks)
    assert index.count() == 1
    assert point_id("a.md#0") == point_id("a.md#0") != point_id("a.md#1")
    assert index.chunks_of("a.md") == chunks


def test_sentence_vectors_align_with_sentences(index: QdrantIndex) -> None:
    sentences = ("Leave is 25 days.", "Carry over five.", "Ask your manager.")
    _write(index, [_chunk("a.md", 0, " ".join(sentences), sentences)])
    vectors = index.sentence_vectors(["a.md#0"])["a.md#0"]
    expected = HashingEmbedder(64).embed(list(sentences))
    assert vectors.shape == (3, 64)
    assert np.allclose(vectors, expected, atol=1e-6)


def test_set_payload_remarks_one_document_in_place(index: QdrantIndex) -> None:
    _write(index, [_chunk("old.md", 0, "x", ("x",)), _chunk("new.md", 0, "y", ("y",))])
    index.set_payload("old.md", {"status": "superseded", "superseded_by": "new.md"})
    assert [c.status for c in index.chunks_of("old.md")] == ["superseded"]
    assert [c.status for c in index.chunks_of("new.md")] == ["current"]
    index.delete_source("old.md")
    assert index.count() == 1


def test_a_different_model_is_refused_with_a_clear_error(index: QdrantIndex) -> None:
    other = QdrantIndex(index.client, "docs", "another-model", 64)
    with pytest.raises(ModelMismatch, match="built with 'hashing-64'.*another-model"):
        other.ensure_collection()
    with pytest.raises(ModelMismatch, match="384-d"):
        QdrantIndex(index.client, "docs", "hashing-64", 384).ensure_collection()


def test_a_folder_held_by_another_process_is_a_clear_error(
    index: QdrantIndex, tmp_path: Path
) -> None:
    from docent.settings import Settings
    from ingest.vector_store import open_qdrant

    held = Settings(_env_file=None, data_dir=tmp_path)  # type: ignore[call-arg]
    # ``index`` holds tmp_path/"q"; point a second client at the same folder.
    held_path = tmp_path / "qdrant"
    held_path.symlink_to(tmp_path / "q")
    with pytest.raises(IndexUnavailable, match="cannot open the vector index"):
        open_qdrant(held)
