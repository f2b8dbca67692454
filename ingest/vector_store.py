"""The vector index: one Qdrant collection of chunks, reached through qdrant-client.

A Qdrant server when ``DOCENT_QDRANT_URL`` is set, else local mode under the data dir
(one process owns that folder at a time). Each point is one chunk: a named dense vector
``chunk`` (the heading-prefixed chunk text) and a multivector ``sentences`` (one row per
sentence, table row or list item, for the offline reranker), with the chunk as payload.
Vendor errors are wrapped at this edge as ``IndexUnavailable``.
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from docent.contracts import Chunk
from docent.errors import Conflict, Unavailable
from docent.settings import Settings

CHUNK_VECTOR = "chunk"
SENTENCE_VECTOR = "sentences"
_POINT_NAMESPACE = uuid.UUID("6f1c2b8e-5d7a-4c1e-9a3b-2f4e8d6c0b1a")
# Heavy fields the keyword index and listings do not need.
_LIGHT_PAYLOAD = qm.PayloadSelectorExclude(exclude=["embed_text"])


class IndexUnavailable(Unavailable):
    code = "index_unavailable"


class ModelMismatch(Conflict):
    code = "embedding_model_mismatch"


def point_id(chunk_id: str) -> str:
    """Stable point id: the same chunk id always lands on the same point."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


def open_qdrant(settings: Settings) -> QdrantClient:
    try:
        if settings.qdrant_url:
            key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
            return QdrantClient(url=settings.qdrant_url, api_key=key, timeout=30)
        settings.qdrant_path.mkdir(parents=True, exist_ok=True)
        return QdrantClient(path=str(settings.qdrant_path))
    except Exception as exc:  # qdrant-client raises RuntimeError, httpx and grpc errors
        raise IndexUnavailable(f"cannot open the vector index: {exc}") from exc


class QdrantIndex:
    """Chunk points in one collection. The collection records the embedding model and
    dimension it was built with and refuses to be written with another."""

    def __init__(self, client: QdrantClient, collection: str, model_name: str, dimension: int):
        if dimension <= 0:
            raise ValueError("dimension must be greater than 0")
        self.client = client
        self.collection = collection
        self.model_name = model_name
        self.dimension = dimension

    # --- collection ----------------------------------------------------------------------
    def ensure_collection(self) -> None:
        try:
            if not self.client.collection_exists(self.collection):
                self.client.create_collection(
                    self.collection,
                    vectors_config={
                        CHUNK_VECTOR: qm.VectorParams(
                            size=self.dimension, distance=qm.Distance.COSINE
                        ),
                        SENTENCE_VECTOR: qm.VectorParams(
                            size=self.dimension,
                            distance=qm.Distance.COSINE,
                            multivector_config=qm.MultiVectorConfig(
                                comparator=qm.MultiVectorComparator.MAX_SIM
                            ),
                        ),
                    },
                    metadata={"embedding_model": self.model_name, "dimension": self.dimension},
                )
                # Local mode accepts payload indexes but ignores them (and warns each time);
                # a server uses them. The warning says nothing a user can act on.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    self._payload_indexes()
                return
            info = self.client.get_collection(self.collection)
        except Exception as exc:
            raise IndexUnavailable(f"vector index not reachable: {exc}") from exc
        meta = info.config.metadata or {}
        model, dim = meta.get("embedding_model"), meta.get("dimension")
        if model != self.model_name or dim != self.dimension:
            raise ModelMismatch(
                f"collection {self.collection!r} was built with {model!r} ({dim}-d); "
                f"the configured embedder is {self.model_name!r} ({self.dimension}-d). "
                "Use the same model, or set DOCENT_COLLECTION to a new collection and reindex."
            )

    def _payload_indexes(self) -> None:
        for key, schema in (
            ("source", qm.PayloadSchemaType.KEYWORD),
            ("access_level", qm.PayloadSchemaType.KEYWORD),
            ("groups", qm.PayloadSchemaType.KEYWORD),
            ("status", qm.PayloadSchemaType.KEYWORD),
        ):
            self.client.create_payload_index(self.collection, key, schema)

    # --- writes --------------------------------------------------------------------------
    def upsert(
        self,
        chunks: Sequence[Chunk],
        chunk_vectors: NDArray[np.float32],
        sentence_vectors: Sequence[NDArray[np.float32]],
    ) -> None:
        if not (len(chunks) == len(chunk_vectors) == len(sentence_vectors)):
            raise ValueError("chunks, chunk vectors and sentence vectors differ in length")
        points = [
            qm.PointStruct(
                id=point_id(chunk.chunk_id),
                vector={
                    CHUNK_VECTOR: vec.tolist(),
                    # A chunk always has at least one unit; fall back to the chunk vector.
                    SENTENCE_VECTOR: (sent if len(sent) else vec[None, :]).tolist(),
                },
                payload=chunk.to_payload(),
            )
            for chunk, vec, sent in zip(chunks, chunk_vectors, sentence_vectors, strict=True)
        ]
        self._call(lambda: self.client.upsert(self.collection, points=points, wait=True))

    def delete_source(self, source: str) -> None:
        self._call(
            lambda: self.client.delete(
                self.collection,
                points_selector=qm.FilterSelector(filter=_by_source(source)),
                wait=True,
            )
        )

    def delete_ids(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            ids: list[qm.ExtendedPointId] = [point_id(c) for c in chunk_ids]
            self._call(lambda: self.client.delete(self.collection, points_selector=ids, wait=True))

    def set_payload(self, source: str, values: dict[str, Any]) -> None:
        """Re-mark every chunk of one document in place (status, superseded_by, access...)."""
        self._call(
            lambda: self.client.set_payload(
                self.collection, payload=values, points=_by_source(source), wait=True
            )
        )

    # --- reads ---------------------------------------------------------------------------
    def count(self, query_filter: qm.Filter | None = None) -> int:
        return int(
            self._call(
                lambda: (
                    self.client.count(self.collection, count_filter=query_filter, exact=True).count
                )
            )
        )

    def scroll_chunks(
        self, query_filter: qm.Filter | None = None, batch: int = 512
    ) -> Iterator[Chunk]:
        offset: Any = None
        while True:
            points, offset = self._call(
                lambda offset=offset: self.client.scroll(
                    self.collection,
                    scroll_filter=query_filter,
                    limit=batch,
                    offset=offset,
                    with_payload=True,
                    with_vectors=False,
                )
            )
            for point in points:
                yield Chunk.from_payload(point.payload or {})
            if offset is None:
                return

    def chunks_of(self, source: str) -> list[Chunk]:
        chunks = list(self.scroll_chunks(_by_source(source)))
        return sorted(chunks, key=lambda c: int(c.chunk_id.rsplit("#", 1)[-1]))

    def search(
        self, vector: NDArray[np.float32], query_filter: qm.Filter | None, limit: int
    ) -> list[tuple[Chunk, float]]:
        """Nearest chunks by the chunk vector, the filter applied inside the query."""
        if limit <= 0:
            raise ValueError("limit must be greater than 0")
        result = self._call(
            lambda: self.client.query_points(
                self.collection,
                query=vector.tolist(),
                using=CHUNK_VECTOR,
                query_filter=query_filter,
                limit=limit,
                with_payload=True,
            )
        )
        return [(Chunk.from_payload(p.payload or {}), float(p.score)) for p in result.points]

    def sentence_vectors(self, chunk_ids: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The per-unit vectors of the given chunks (rows in the order of ``chunk.sentences``)."""
        if not chunk_ids:
            return {}
        ids: list[qm.ExtendedPointId] = [point_id(c) for c in chunk_ids]
        records = self._call(
            lambda: self.client.retrieve(
                self.collection, ids=ids, with_payload=["chunk_id"], with_vectors=[SENTENCE_VECTOR]
            )
        )
        out: dict[str, NDArray[np.float32]] = {}
        for rec in records:
            vectors = rec.vector if isinstance(rec.vector, dict) else {}
            out[str((rec.payload or {})["chunk_id"])] = np.asarray(
                vectors.get(SENTENCE_VECTOR, []), dtype=np.float32
            )
        return out

    def _call(self, fn: Any) -> Any:
        try:
            return fn()
        except (ValueError, TypeError):
            raise
        except Exception as exc:
            raise IndexUnavailable(f"vector index call failed: {exc}") from exc


def _by_source(source: str) -> qm.Filter:
    return qm.Filter(must=[qm.FieldCondition(key="source", match=qm.MatchValue(value=source))])
