"""``EdgeIndex``: the chunk index embedded in the process with Qdrant Edge (qdrant-edge-py,
the Qdrant engine in Rust; no server). The default when ``DOCENT_QDRANT_URL`` is unset.

On disk, under ``<data_dir>/index/<name>/``:

- ``shard/``: the Edge shard (segments, payload indexes, write-ahead log). Every write is in
  the WAL before ``update`` returns, so a process killed mid-ingest reopens to a consistent
  shard holding every acknowledged write; an interrupted batch is completed by re-ingest
  (point ids are stable).
- ``index.json``: the embedding model and dimension the shard was built with (both it and
  the shard's engine configuration are in ``store.edge_shard``).
- ``LOCK``: one process owns the shard. Held with ``flock`` for the life of the index and
  naming the owner's pid, so a second opener is told who holds it instead of failing
  inside the engine.

Search is exact (a scan of the payload-filtered points) until a segment passes the
optimizer's indexing threshold; ``optimize()`` then builds the HNSW graph. It blocks, so it
runs on a background thread, never on the request path (queries keep running meanwhile),
once there are ``hnsw_min_points`` points with enough of them unindexed and writes have
paused for ``quiet_s`` (so a bulk ingest is not slowed by it). An index closed before the
build started starts it again on the next open.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import qdrant_edge as qe
from numpy.typing import NDArray

from docent.contracts import Chunk
from store.edge_shard import check_model, open_shard, record_precision
from store.errors import IndexUnavailable
from store.ids import (
    CHUNK_VECTOR,
    SEARCH_PAYLOAD_EXCLUDES,
    SENTENCE_VECTOR,
    point_id,
)
from store.lock import FolderLock
from store.points import PointReads, by_source
from store.protocol import check_upsert

log = logging.getLogger(__name__)
T = TypeVar("T")
# The shard's record (model, dimension, unit rule, precision) inside the index folder.
META_FILE = "index.json"


class EdgeTerms:
    """Qdrant Edge's filter objects (``store.points.FilterTerms``)."""

    def match_any(self, key: str, values: Sequence[str]) -> Any:
        return qe.FieldCondition(key, match=qe.MatchAny(list(values)))

    def match_value(self, key: str, value: str) -> Any:
        return qe.FieldCondition(key, match=qe.MatchValue(value))

    def is_empty(self, key: str) -> Any:
        return qe.IsEmptyCondition(key)

    def has_ids(self, point_ids: Sequence[str]) -> Any:
        return qe.HasIdCondition(set(point_ids))

    def where(self, must: Sequence[Any], must_not: Sequence[Any] = ()) -> Any:
        return qe.Filter(must=list(must), must_not=list(must_not) or None)

    def any_of(self, should: Sequence[Any]) -> Any:
        return qe.Filter(should=list(should))


EDGE_TERMS = EdgeTerms()


def _vectors(chunk: NDArray[np.float32], sentences: NDArray[np.float32]) -> Any:
    return {
        CHUNK_VECTOR: np.ascontiguousarray(chunk, dtype=np.float32),
        SENTENCE_VECTOR: np.ascontiguousarray(sentences, dtype=np.float32),
    }


class EdgeIndex(PointReads):
    terms = EDGE_TERMS

    def __init__(
        self,
        folder: Path,
        model_name: str,
        dimension: int,
        *,
        hnsw_min_points: int = 20_000,
        quiet_s: float = 3.0,
    ) -> None:
        if dimension <= 0:
            raise ValueError("dimension must be greater than 0")
        if hnsw_min_points < 0 or quiet_s < 0:
            raise ValueError("hnsw_min_points and quiet_s must be 0 or more")
        self.folder = Path(folder)
        self.name = self.folder.name
        self.model_name = model_name
        self.dimension = dimension
        self.hnsw_min_points = hnsw_min_points
        self.quiet_s = quiet_s
        self._last_write = 0.0
        self._closing = threading.Event()
        self._lock = FolderLock(self.folder)
        self._shard: Any = None
        self._optimizing: threading.Thread | None = None
        self._guard = threading.Lock()
        self.last_optimize_s: float | None = None
        self.embedding_precision: str | None = None

    # --- opening -------------------------------------------------------------------------
    @property
    def shard_path(self) -> Path:
        return self.folder / "shard"

    @property
    def meta_path(self) -> Path:
        return self.folder / META_FILE

    def ensure(self) -> None:
        if self._shard is not None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("cannot create %s: %s", self.folder, exc)
            raise IndexUnavailable(f"cannot create the index folder {self.folder}") from exc
        self._lock.acquire()
        try:
            self.embedding_precision = check_model(
                self.meta_path, self.name, self.model_name, self.dimension
            )
            self._shard = open_shard(self.shard_path, self.dimension)
        except BaseException:
            self._lock.release()
            raise
        self._maybe_optimize()  # a shard written by a process that stopped before its build

    def record_precision(self, precision: str) -> None:
        self.ensure()
        record_precision(self.meta_path, precision)
        self.embedding_precision = precision

    @property
    def shard(self) -> Any:
        if self._shard is None:
            self.ensure()
        return self._shard

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
        # The engine takes float32 arrays as they are (twice as fast as lists here).
        points = [
            qe.Point(point_id(chunk.chunk_id), _vectors(vec, sent), chunk.to_payload())
            for chunk, vec, sent in zip(chunks, chunk_vectors, rows, strict=True)
        ]
        self._update(qe.UpdateOperation.upsert_points(points))
        self._maybe_optimize()

    def delete_source(self, source: str) -> None:
        self._update(qe.UpdateOperation.delete_points_by_filter(by_source(source, EDGE_TERMS)))

    def delete_ids(self, chunk_ids: Sequence[str]) -> None:
        if chunk_ids:
            self._update(qe.UpdateOperation.delete_points([point_id(c) for c in chunk_ids]))

    def set_payload(self, source: str, values: Mapping[str, Any]) -> None:
        self._update(
            qe.UpdateOperation.set_payload_by_filter(by_source(source, EDGE_TERMS), dict(values))
        )

    def _update(self, operation: Any) -> None:
        shard = self.shard
        self._last_write = time.monotonic()
        self._call(lambda: shard.update(operation))
        self._last_write = time.monotonic()

    # --- HNSW, off the request path ------------------------------------------------------
    def optimize(self) -> float:
        """Build the HNSW graph for segments past the indexing threshold (blocks); returns
        the seconds it took."""
        shard = self.shard
        started = time.perf_counter()
        self._call(lambda: shard.optimize())
        self.last_optimize_s = time.perf_counter() - started
        return self.last_optimize_s

    def optimizing(self) -> bool:
        return self._optimizing is not None and self._optimizing.is_alive()

    def wait_optimized(self, timeout: float | None = None) -> None:
        thread = self._optimizing
        if thread is not None:
            thread.join(timeout)

    def _maybe_optimize(self) -> None:
        if self.hnsw_min_points == 0:
            return
        with self._guard:
            if self.optimizing():
                return
            shard = self._shard
            if shard is None:
                return
            info = self._call(lambda: shard.info())
            unindexed = int(info.points_count) - int(info.indexed_vectors_count)
            if info.points_count < self.hnsw_min_points or unindexed < self.hnsw_min_points // 4:
                return

            def run() -> None:
                # Wait until writes pause (a bulk ingest is not slowed by the build), and
                # give up if the index closes first: the next open starts it again.
                while not self._closing.is_set():
                    idle = time.monotonic() - self._last_write
                    if idle >= self.quiet_s:
                        break
                    self._closing.wait(self.quiet_s - idle)
                if self._closing.is_set():
                    return
                try:
                    took = self.optimize()
                    log.info("index %s: HNSW built in %.1f s", self.name, took)
                except IndexUnavailable:
                    log.warning("index %s: background optimize failed", self.name)

            self._optimizing = threading.Thread(target=run, name="edge-optimize", daemon=True)
            self._optimizing.start()

    # --- reads (``store.points.PointReads``) ----------------------------------------------
    def _open(self) -> None:
        self.ensure()

    def _retrieve(
        self, point_ids: list[str], vectors: list[str], payload: bool = True
    ) -> Sequence[Any]:
        return list(
            self.shard.retrieve(point_ids, with_payload=payload, with_vector=vectors or False)
        )

    def _scroll_page(self, query_filter: Any, offset: Any, limit: int) -> tuple[Sequence[Any], Any]:
        request = qe.ScrollRequest(
            offset=offset, limit=limit, filter=query_filter, with_payload=True, with_vector=False
        )
        records, after = self.shard.scroll(request)
        return records, after

    def _count(self, query_filter: Any) -> int:
        return int(self.shard.count(qe.CountRequest(filter=query_filter, exact=True)))

    def _query(self, vector: NDArray[np.float32], query_filter: Any, limit: int) -> Sequence[Any]:
        request = qe.QueryRequest(
            limit=limit,
            query=qe.Query.Nearest(vector.tolist(), using=CHUNK_VECTOR),
            filter=query_filter,
            with_payload=qe.PayloadSelector.Exclude(list(SEARCH_PAYLOAD_EXCLUDES)),
        )
        return list(self.shard.query(request))

    def close(self) -> None:
        self._closing.set()
        self.wait_optimized()  # a build under way finishes; one still waiting is dropped
        if self._shard is not None:
            shard, self._shard = self._shard, None
            try:
                shard.flush()
                shard.close()
            except Exception as exc:  # closing must not raise over the caller's own error
                log.warning("closing the Edge shard at %s: %s", self.shard_path, exc)
        self._lock.release()

    def _call(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (ValueError, TypeError):
            raise
        except Exception as exc:  # the engine raises bare Exception with its own text
            log.warning("Edge call on %s failed: %s", self.shard_path, exc)
            raise IndexUnavailable("the vector index failed a call; try again shortly") from exc
