"""``ChunkIndex``: the one contract every engine adapter meets (``tests/store`` holds the
suite each must pass). Chunks go in with their chunk vector and sentence multivector;
reads come back as ``Chunk`` values, never vendor records."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk
from store.access import AccessFilter


@dataclass(frozen=True)
class StoredChunk:
    """A chunk read back by id, with the named vectors asked for (``chunk``: 1-d,
    ``sentences``: one row per unit of ``chunk.sentences``)."""

    chunk: Chunk
    vectors: Mapping[str, NDArray[np.float32]] = field(default_factory=dict)


class ChunkIndex(Protocol):
    """One collection (or shard) of chunk points."""

    name: str
    model_name: str
    dimension: int
    # The precision its vectors were computed in (``fp32`` / ``bf16``) as recorded; ``None``
    # before ``ensure``, for a new index, and for one built before the record existed.
    embedding_precision: str | None

    def ensure(self) -> None:
        """Create the index if missing, recording the model and dimension; refuse
        (``ModelMismatch``) an index built with another."""

    def record_precision(self, precision: str) -> None:
        """Record the precision of the index's vectors (``embedding_precision`` after)."""

    def upsert(
        self,
        chunks: Sequence[Chunk],
        chunk_vectors: NDArray[np.float32],
        sentence_vectors: Sequence[NDArray[np.float32]],
    ) -> None:
        """Write (or overwrite, by stable point id) the chunks; durable when it returns."""

    def delete_source(self, source: str) -> None: ...

    def delete_ids(self, chunk_ids: Sequence[str]) -> None: ...

    def set_payload(self, source: str, values: Mapping[str, Any]) -> None:
        """Re-mark every chunk of one document in place (status, access, ...)."""

    def get(
        self, chunk_ids: Sequence[str], *, vectors: Sequence[str] = ()
    ) -> dict[str, StoredChunk]:
        """The chunks that exist, by chunk id (missing ids are absent)."""

    def vectors(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> dict[str, dict[str, NDArray[np.float32]]]:
        """The named stored vectors of the chunks that exist, by chunk id (missing ids are
        absent), without their payload: the reranker's read, a question's ~50 candidates
        each time. ``names=()`` only tells which exist."""

    def scroll(
        self, *, source: str | None = None, access: AccessFilter | None = None, batch: int = 512
    ) -> Iterator[Chunk]:
        """Every chunk (of one source, visible through ``access``), in no promised order."""

    def chunks_of(self, source: str) -> list[Chunk]:
        """One document's chunks in chunk order."""

    def count(self, *, access: AccessFilter | None = None) -> int: ...

    def search(
        self, vector: NDArray[np.float32], access: AccessFilter, limit: int
    ) -> list[tuple[Chunk, float]]:
        """Nearest chunks by the chunk vector, ``access`` applied inside the query. Hits
        carry no ``embed_text`` (``SEARCH_PAYLOAD_EXCLUDES``): read it with ``get``."""

    def close(self) -> None: ...


def chunk_order(chunks: Sequence[Chunk]) -> list[Chunk]:
    return sorted(chunks, key=lambda c: int(c.chunk_id.rsplit("#", 1)[-1]))


def check_upsert(
    chunks: Sequence[Chunk],
    chunk_vectors: NDArray[np.float32],
    sentence_vectors: Sequence[NDArray[np.float32]],
    dimension: int,
) -> list[NDArray[np.float32]]:
    """Argument checks shared by the adapters; returns each chunk's sentence rows (a chunk
    with no units falls back to its chunk vector: a multivector needs one row)."""
    if not (len(chunks) == len(chunk_vectors) == len(sentence_vectors)):
        raise ValueError("chunks, chunk vectors and sentence vectors differ in length")
    if len(chunks) and np.asarray(chunk_vectors).shape[1] != dimension:
        raise ValueError(f"chunk vectors must have {dimension} dimensions")
    return [
        (sent if len(sent) else vec[None, :])
        for vec, sent in zip(chunk_vectors, sentence_vectors, strict=True)
    ]
