"""What the two Qdrant adapters share (``store.edge``: the engine in the process;
``store.server``: a server through qdrant-client): the access filter's translation, written
once against each engine's filter vocabulary (``FilterTerms``), and the reads (``get``,
``scroll``, ``chunks_of``, ``count``, ``search``) over four engine calls each adapter makes
in its own client's words (``PointReads``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Any, Protocol, TypeVar

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk
from store.access import PENDING, AccessFilter
from store.ids import VECTOR_NAMES, point_id
from store.protocol import StoredChunk, chunk_order

T = TypeVar("T")


class FilterTerms(Protocol):
    """One engine's filter objects (Qdrant's filter model, as Edge and qdrant-client each
    spell it)."""

    def match_any(self, key: str, values: Sequence[str]) -> Any: ...

    def match_value(self, key: str, value: str) -> Any: ...

    def is_empty(self, key: str) -> Any: ...

    def has_ids(self, point_ids: Sequence[str]) -> Any: ...

    def where(self, must: Sequence[Any], must_not: Sequence[Any] = ()) -> Any: ...

    def any_of(self, should: Sequence[Any]) -> Any: ...


def access_filter(access: AccessFilter, terms: FilterTerms) -> Any:
    """The access filter as the engine's typed filter (never a string, never a post-filter):
    a readable level, no groups or a shared one, no pending chunk unless asked, no excluded
    id, the one status asked for (if any). Reads nothing when no level is readable."""
    if access.denies_all:
        return terms.where([terms.match_any("access_level", [])])
    # IsEmpty covers a missing field, null and [] alike: a chunk naming no groups is open.
    options = [terms.is_empty("groups")]
    if access.groups:
        options.append(terms.match_any("groups", sorted(access.groups)))
    must = [terms.match_any("access_level", list(access.levels)), terms.any_of(options)]
    if access.status is not None:
        must.append(terms.match_value("status", access.status))
    must_not = []
    if not access.include_pending:
        must_not.append(terms.match_value("status", PENDING))
    if access.exclude_chunk_ids:
        must_not.append(terms.has_ids([point_id(c) for c in sorted(access.exclude_chunk_ids)]))
    return terms.where(must, must_not)


def by_source(source: str, terms: FilterTerms) -> Any:
    return terms.where([terms.match_value("source", source)])


def both(terms: FilterTerms, *filters: Any) -> Any:
    """The filters given (``None``: absent) all at once; ``None`` when none is given."""
    present = [f for f in filters if f is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else terms.where(present)


class PointReads(ABC):
    """``ChunkIndex``'s reads for a Qdrant engine. A subclass names its filter vocabulary
    (``terms``), wraps its engine's faults (``_call``) and makes the four calls."""

    dimension: int
    terms: FilterTerms

    @abstractmethod
    def _call(self, fn: Callable[[], T]) -> T:
        """Run one engine call; its faults become ``IndexUnavailable``."""

    @abstractmethod
    def _open(self) -> None:
        """Open the engine before a call (outside ``_call``: a refusal to open, such as
        ``IndexLocked``, keeps its own error)."""

    @abstractmethod
    def _retrieve(
        self, point_ids: list[str], vectors: list[str], payload: bool = True
    ) -> Sequence[Any]:
        """Records (``.id``, ``.payload`` unless not asked for, ``.vector``) of the points
        that exist."""

    @abstractmethod
    def _scroll_page(self, query_filter: Any, offset: Any, limit: int) -> tuple[Sequence[Any], Any]:
        """One page of records (payload only) and the next page's offset (``None``: last)."""

    @abstractmethod
    def _count(self, query_filter: Any) -> int: ...

    @abstractmethod
    def _query(self, vector: NDArray[np.float32], query_filter: Any, limit: int) -> Sequence[Any]:
        """Nearest points (``.payload``, ``.score``) by the chunk vector, without the
        payload fields of ``SEARCH_PAYLOAD_EXCLUDES``."""

    def get(
        self, chunk_ids: Sequence[str], *, vectors: Sequence[str] = ()
    ) -> dict[str, StoredChunk]:
        wanted = list(dict.fromkeys(c for c in chunk_ids if c))
        if not wanted:
            return {}
        names = [v for v in vectors if v in VECTOR_NAMES]
        ids = [point_id(c) for c in wanted]
        self._open()
        records = self._call(lambda: self._retrieve(ids, names))
        out: dict[str, StoredChunk] = {}
        asked = set(wanted)
        for rec in records:
            payload = rec.payload
            if not payload or payload.get("chunk_id") not in asked:
                continue
            chunk = Chunk.from_payload(payload)
            out[chunk.chunk_id] = StoredChunk(chunk, _arrays(rec, names))
        return out

    def vectors(
        self, chunk_ids: Sequence[str], names: Sequence[str]
    ) -> dict[str, dict[str, NDArray[np.float32]]]:
        wanted = {point_id(c): c for c in chunk_ids if c}
        if not wanted:
            return {}
        asked = [n for n in names if n in VECTOR_NAMES]
        self._open()
        records = self._call(lambda: self._retrieve(list(wanted), asked, payload=False))
        out: dict[str, dict[str, NDArray[np.float32]]] = {}
        for rec in records:
            chunk_id = wanted.get(str(rec.id))
            if chunk_id is None:
                continue
            out[chunk_id] = _arrays(rec, asked)
        return out

    def scroll(
        self, *, source: str | None = None, access: AccessFilter | None = None, batch: int = 512
    ) -> Iterator[Chunk]:
        if batch <= 0:
            raise ValueError("batch must be greater than 0")
        query_filter = both(
            self.terms,
            by_source(source, self.terms) if source is not None else None,
            access_filter(access, self.terms) if access is not None else None,
        )
        self._open()
        offset: Any = None
        while True:
            page = self._call(partial(self._scroll_page, query_filter, offset, batch))
            records, offset = page
            for rec in records:
                yield Chunk.from_payload(rec.payload or {})
            if offset is None:
                return

    def chunks_of(self, source: str) -> list[Chunk]:
        return chunk_order(list(self.scroll(source=source)))

    def count(self, *, access: AccessFilter | None = None) -> int:
        query_filter = access_filter(access, self.terms) if access is not None else None
        self._open()
        return int(self._call(lambda: self._count(query_filter)))

    def search(
        self, vector: NDArray[np.float32], access: AccessFilter, limit: int
    ) -> list[tuple[Chunk, float]]:
        if limit <= 0:
            raise ValueError("limit must be greater than 0")
        if access.denies_all:
            return []
        query = np.asarray(vector, dtype=np.float32)
        if query.shape != (self.dimension,):
            raise ValueError(f"query vector must have {self.dimension} dimensions")
        query_filter = access_filter(access, self.terms)
        self._open()
        points = self._call(lambda: self._query(query, query_filter, limit))
        return [(Chunk.from_payload(p.payload or {}), float(p.score)) for p in points]


def _arrays(record: Any, names: Sequence[str]) -> dict[str, NDArray[np.float32]]:
    """A record's named vectors as float32 arrays (none asked: ``.vector`` is not read)."""
    if not names:
        return {}
    # Read ``record.vector`` once: Edge converts every float from the engine each time.
    got = record.vector
    got = got if isinstance(got, dict) else {}
    return {n: np.asarray(got[n], dtype=np.float32) for n in names if n in got}
