"""``ServerIndex``: the chunk index on a Qdrant server (``DOCENT_QDRANT_URL``), through
qdrant-client. qdrant-client's local mode speaks the same API and is this adapter's test
double (a Python scan: never the embedded default, see ``store.edge``).

The collection records the embedding model and dimension in its metadata."""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray
from qdrant_client import QdrantClient
from qdrant_client import models as qm

from docent.contracts import Chunk
from store.access import PENDING, AccessFilter
from store.errors import IndexUnavailable, ModelMismatch
from store.ids import (
    CHUNK_VECTOR,
    INDEXED_FIELDS,
    PRECISION_KEY,
    SEARCH_PAYLOAD_EXCLUDES,
    SENTENCE_VECTOR,
    UNIT_TEXT,
    VECTOR_NAMES,
    check_unit_text,
    point_id,
)
from store.protocol import StoredChunk, check_upsert, chunk_order

log = logging.getLogger(__name__)
T = TypeVar("T")


def server_filter(access: AccessFilter) -> qm.Filter:
    """The access filter as a typed Qdrant filter (never a string, never a post-filter)."""
    if access.denies_all:
        return qm.Filter(must=[qm.FieldCondition(key="access_level", match=qm.MatchAny(any=[]))])
    # IsEmpty covers a missing field, null and [] alike: a chunk naming no groups is open.
    options: list[qm.Condition] = [qm.IsEmptyCondition(is_empty=qm.PayloadField(key="groups"))]
    if access.groups:
        options.append(
            qm.FieldCondition(key="groups", match=qm.MatchAny(any=sorted(access.groups)))
        )
    must: list[qm.Condition] = [
        qm.FieldCondition(key="access_level", match=qm.MatchAny(any=list(access.levels))),
        qm.Filter(should=options),
    ]
    must_not: list[qm.Condition] = []
    if not access.include_pending:
        must_not.append(qm.FieldCondition(key="status", match=qm.MatchValue(value=PENDING)))
    if access.exclude_chunk_ids:
        must_not.append(
            qm.HasIdCondition(has_id=[point_id(c) for c in sorted(access.exclude_chunk_ids)])
        )
    return qm.Filter(must=must, must_not=must_not or None)


def _by_source(source: str) -> qm.Filter:
    return qm.Filter(must=[qm.FieldCondition(key="source", match=qm.MatchValue(value=source))])


def _and(*filters: qm.Filter | None) -> qm.Filter | None:
    present: list[qm.Condition] = [f for f in filters if f is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else qm.Filter(must=present)  # type: ignore[return-value]


class ServerIndex:
    """Chunk points in one collection of a Qdrant server (or of qdrant-client local mode)."""

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
        selector = qm.FilterSelector(filter=_by_source(source))
        self._call(lambda: self.client.delete(self.name, points_selector=selector, wait=True))

    def delete_ids(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            ids: list[qm.ExtendedPointId] = [point_id(c) for c in chunk_ids]
            self._call(lambda: self.client.delete(self.name, points_selector=ids, wait=True))

    def set_payload(self, source: str, values: Mapping[str, Any]) -> None:
        payload = dict(values)
        self._call(
            lambda: self.client.set_payload(
                self.name, payload=payload, points=_by_source(source), wait=True
            )
        )

    # --- reads ---------------------------------------------------------------------------
    def get(
        self, chunk_ids: Sequence[str], *, vectors: Sequence[str] = ()
    ) -> dict[str, StoredChunk]:
        wanted = list(dict.fromkeys(c for c in chunk_ids if c))
        if not wanted:
            return {}
        names = [v for v in vectors if v in VECTOR_NAMES]
        ids: list[qm.ExtendedPointId] = [point_id(c) for c in wanted]
        records = self._call(
            lambda: self.client.retrieve(
                self.name, ids=ids, with_payload=True, with_vectors=names or False
            )
        )
        out: dict[str, StoredChunk] = {}
        for rec in records:
            if not rec.payload or rec.payload.get("chunk_id") not in wanted:
                continue
            got = rec.vector if isinstance(rec.vector, dict) else {}
            chunk = Chunk.from_payload(rec.payload)
            out[chunk.chunk_id] = StoredChunk(
                chunk, {n: np.asarray(got[n], dtype=np.float32) for n in names if n in got}
            )
        return out

    def scroll(
        self, *, source: str | None = None, access: AccessFilter | None = None, batch: int = 512
    ) -> Iterator[Chunk]:
        query_filter = _and(
            _by_source(source) if source is not None else None,
            server_filter(access) if access is not None else None,
        )
        offset: Any = None
        while True:
            page = self._call(
                partial(
                    self.client.scroll,
                    self.name,
                    scroll_filter=query_filter,
                    limit=batch,
                    offset=offset,
                    with_payload=True,
                    with_vectors=False,
                )
            )
            points, offset = page
            for point in points:
                yield Chunk.from_payload(point.payload or {})
            if offset is None:
                return

    def chunks_of(self, source: str) -> list[Chunk]:
        return chunk_order(list(self.scroll(source=source)))

    def count(self, *, access: AccessFilter | None = None) -> int:
        query_filter = server_filter(access) if access is not None else None
        result = self._call(
            lambda: self.client.count(self.name, count_filter=query_filter, exact=True)
        )
        return int(result.count)

    def search(
        self, vector: NDArray[np.float32], access: AccessFilter, limit: int
    ) -> list[tuple[Chunk, float]]:
        if limit <= 0:
            raise ValueError("limit must be greater than 0")
        if access.denies_all:
            return []
        query_filter = server_filter(access)
        result = self._call(
            lambda: self.client.query_points(
                self.name,
                query=np.asarray(vector, dtype=np.float32).tolist(),
                using=CHUNK_VECTOR,
                query_filter=query_filter,
                limit=limit,
                with_payload=qm.PayloadSelectorExclude(exclude=list(SEARCH_PAYLOAD_EXCLUDES)),
            )
        )
        return [(Chunk.from_payload(p.payload or {}), float(p.score)) for p in result.points]

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
