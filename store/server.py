"""``ServerIndex``: the chunk index on a Qdrant server (``DOCENT_QDRANT_URL``), through
qdrant-client. qdrant-client's local mode speaks the same API and is this adapter's test
double (a Python scan: never the embedded default, see ``store.edge``).

The collection records the embedding model and dimension in its metadata."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from docent.contracts import Chunk
from store.errors import IndexUnavailable, ModelMismatch
from store.ids import (
    CHUNK_VECTOR,
    INDEXED_FIELDS,
    PRECISION_KEY,
    SEARCH_PAYLOAD_EXCLUDES,
    SENTENCE_VECTOR,
    UNIT_TEXT,
    check_unit_text,
    point_id,
)
from store.points import PointReads, by_source
from store.protocol import check_upsert

log = logging.getLogger(__name__)
T = TypeVar("T")


class ServerTerms:
    """qdrant-client's filter models (``store.points.FilterTerms``)."""

    def match_any(self, key: str, values: Sequence[str]) -> Any:
        return qm.FieldCondition(key=key, match=qm.MatchAny(any=list(values)))

    def match_value(self, key: str, value: str) -> Any:
        return qm.FieldCondition(key=key, match=qm.MatchValue(value=value))

    def is_empty(self, key: str) -> Any:
        return qm.IsEmptyCondition(is_empty=qm.PayloadField(key=key))

    def has_ids(self, point_ids: Sequence[str]) -> Any:
        ids: list[qm.ExtendedPointId] = list(point_ids)
        return qm.HasIdCondition(has_id=ids)

    def where(self, must: Sequence[Any], must_not: Sequence[Any] = ()) -> Any:
        return qm.Filter(must=list(must), must_not=list(must_not) or None)

    def any_of(self, should: Sequence[Any]) -> Any:
        return qm.Filter(should=list(should))


SERVER_TERMS = ServerTerms()


class ServerIndex(PointReads):
    """Chunk points in one collection of a Qdrant server (or of qdrant-client local mode)."""

    terms = SERVER_TERMS

    def __init__(self, client: QdrantClient, name: str, model_name: str, dimension: int):
        if dimension <= 0:
            raise ValueError("dimension must be greater than 0")
        self.client = client
        self.name = name
        self.model_name = model_name
        self.dimension = dimension
        self.embedding_precision: str | None = None

    @classmethod
    def connect(
        cls, url: str, api_key: str | None, name: str, model_name: str, dimension: int
    ) -> ServerIndex:
        try:
            client = QdrantClient(url=url, api_key=api_key, timeout=30)
        except Exception as exc:  # qdrant-client raises ValueError, httpx and grpc errors
            log.warning("cannot open the Qdrant client for %s: %s", url, exc)
            raise IndexUnavailable(
                "cannot reach the Qdrant server named by DOCENT_QDRANT_URL"
            ) from exc
        return cls(client, name, model_name, dimension)

    @classmethod
    def local(cls, location: str, name: str, model_name: str, dimension: int) -> ServerIndex:
        """qdrant-client local mode (``":memory:"`` or a folder): the server's test double,
        and the old embedded engine the benchmarks compare with. Not for deployments."""
        if location == ":memory:":
            return cls(QdrantClient(location=":memory:"), name, model_name, dimension)
        return cls(QdrantClient(path=location), name, model_name, dimension)

    def ensure(self) -> None:
        def create_or_read() -> Any:
            if self.client.collection_exists(self.name):
                return self.client.get_collection(self.name)
            self.client.create_collection(
                self.name,
                vectors_config={
                    CHUNK_VECTOR: qm.VectorParams(size=self.dimension, distance=qm.Distance.COSINE),
                    SENTENCE_VECTOR: qm.VectorParams(
                        size=self.dimension,
                        distance=qm.Distance.COSINE,
                        multivector_config=qm.MultiVectorConfig(
                            comparator=qm.MultiVectorComparator.MAX_SIM
                        ),
                        # Read by id only (the reranker): no graph to build.
                        hnsw_config=qm.HnswConfigDiff(m=0),
                    ),
                },
                metadata={
                    "embedding_model": self.model_name,
                    "dimension": self.dimension,
                    "unit_text": UNIT_TEXT,
                },
            )
            # Local mode accepts payload indexes but ignores them (and warns each time).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for key in INDEXED_FIELDS:
                    self.client.create_payload_index(self.name, key, qm.PayloadSchemaType.KEYWORD)
            return None

        info = self._call(create_or_read)
        if info is None:
            return
        meta = info.config.metadata or {}
        model, dim = meta.get("embedding_model"), meta.get("dimension")
        if model != self.model_name or dim != self.dimension:
            raise ModelMismatch(
                f"index {self.name!r} was built with {model!r} ({dim}-d); the configured "
                f"embedder is {self.model_name!r} ({self.dimension}-d). Use the same model, "
                "or set DOCENT_COLLECTION to a new name and reindex."
            )
        check_unit_text(self.name, meta.get("unit_text"))
        precision = meta.get(PRECISION_KEY)
        self.embedding_precision = str(precision) if precision is not None else None

    def record_precision(self, precision: str) -> None:
        def record() -> Any:
            info = self.client.get_collection(self.name)
            meta = dict(info.config.metadata or {})
            meta[PRECISION_KEY] = precision
            return self.client.update_collection(self.name, metadata=meta)

        self._call(record)
        self.embedding_precision = precision

    # --- writes --------------------------------------------------------------------------
    def upsert(
        self,
        chunks: Sequence[Chunk],
        chunk_vectors: NDArray[np.float32],
        sentence_vectors: Sequence[NDArray[np.float32]],
    ) -> None:
        rows = check_upsert(chunks, chunk_vectors, sentence_vectors, self.dimension)
        if not chunks:
            return
        points = [
            qm.PointStruct(
                id=point_id(chunk.chunk_id),
                vector={CHUNK_VECTOR: vec.tolist(), SENTENCE_VECTOR: sent.tolist()},
                payload=chunk.to_payload(),
            )
            for chunk, vec, sent in zip(chunks, chunk_vectors, rows, strict=True)
        ]
        self._call(lambda: self.client.upsert(self.name, points=points, wait=True))

    def delete_source(self, source: str) -> None:
        selector = qm.FilterSelector(filter=by_source(source, SERVER_TERMS))
        self._call(lambda: self.client.delete(self.name, points_selector=selector, wait=True))

    def delete_ids(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            ids: list[qm.ExtendedPointId] = [point_id(c) for c in chunk_ids]
            self._call(lambda: self.client.delete(self.name, points_selector=ids, wait=True))

    def set_payload(self, source: str, values: Mapping[str, Any]) -> None:
        payload = dict(values)
        self._call(
            lambda: self.client.set_payload(
                self.name, payload=payload, points=by_source(source, SERVER_TERMS), wait=True
            )
        )

    # --- reads (``store.points.PointReads``) ----------------------------------------------
    def _open(self) -> None:
        pass  # the client connects on its first call

    def _retrieve(
        self, point_ids: list[str], vectors: list[str], payload: bool = True
    ) -> Sequence[Any]:
        ids: list[qm.ExtendedPointId] = list(point_ids)
        return self.client.retrieve(
            self.name, ids=ids, with_payload=payload, with_vectors=vectors or False
        )

    def _scroll_page(self, query_filter: Any, offset: Any, limit: int) -> tuple[Sequence[Any], Any]:
        return self.client.scroll(
            self.name,
            scroll_filter=query_filter,
            limit=limit,
            offset=offset,
            with_payload=True,
            with_vectors=False,
        )

    def _count(self, query_filter: Any) -> int:
        return int(self.client.count(self.name, count_filter=query_filter, exact=True).count)

    def _query(self, vector: NDArray[np.float32], query_filter: Any, limit: int) -> Sequence[Any]:
        return self.client.query_points(
            self.name,
            query=vector.tolist(),
            using=CHUNK_VECTOR,
            query_filter=query_filter,
            limit=limit,
            with_payload=qm.PayloadSelectorExclude(exclude=list(SEARCH_PAYLOAD_EXCLUDES)),
        ).points

    def close(self) -> None:
        self.client.close()

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (ValueError, TypeError):
            raise
        except Exception as exc:  # qdrant-client raises RuntimeError, httpx and grpc errors
            log.warning("Qdrant call on %r failed: %s: %s", self.name, type(exc).__name__, exc)
            raise IndexUnavailable("the vector index did not answer; try again shortly") from exc
