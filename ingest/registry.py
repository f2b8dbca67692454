"""The document registry: one ``documents`` row per source, kept in step with the chunks in
Qdrant, and the only code that changes what is indexed.

Every change (new or changed document, metadata re-mark, supersession, retirement) happens
inside one DB transaction that first bumps ``index_version``: the bump takes the
``index_state`` row lock (PostgreSQL) or the write lock (SQLite), so concurrent workers
apply their changes one at a time and each sees the others' committed rows. The Qdrant
writes run inside that transaction and before its commit: if they fail, nothing is
recorded and the version does not move; if the process dies after them, the registry
still names the old content and the retried task rewrites the same point ids. Re-marks in
place are checked for room on the data dir's disk once, before a transaction's first index
write, so a full disk refuses them all and never leaves the index half re-marked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date

import numpy as np
from numpy.typing import NDArray
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from docent.contracts import Chunk, DocumentMeta
from docent.db.models import Document, IndexState, utcnow
from docent.db.session import session_scope
from docent.db.state import bump_index_version
from docent.errors import NotFound
from ingest.disk import DiskRoom, remark_size
from ingest.document_rows import (
    Change,
    chunks_hash,
    classify_change,
    meta_from_row,
    meta_hash,
    record,
)
from ingest.metadata import with_metadata
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)

# Payload fields that describe the whole document: a metadata-only change rewrites these in
# place on every chunk of the document (``set_payload``), without re-embedding.
DOCUMENT_FIELDS = (
    "doc_id",
    "effective_date",
    "superseded_by",
    "status",
    "access_level",
    "groups",
    "owner",
    "doc_type",
    "title",
    "index_version",
)


@dataclass(frozen=True)
class Embedded:
    """A document's chunk vectors and, per chunk, its sentence vectors (rows in the order of
    ``chunk.sentences``)."""

    chunk_vectors: NDArray[np.float32]
    sentence_vectors: tuple[NDArray[np.float32], ...]


@dataclass(frozen=True)
class WriteResult:
    change: Change
    chunks: int
    index_version: int | None  # the version this write made, None when nothing changed


@dataclass(frozen=True)
class ContentChanged:
    """What ``write`` returns, having written nothing, when it was given no vectors (the
    caller judged only metadata changed) but under the lock the content differs after all:
    embed the chunks and write again."""

    source: str


class _NeedsVectors(Exception):
    """Raised inside a write transaction that turns out to need vectors it was not given
    (it rolls the transaction back; ``write`` turns it into ``ContentChanged``)."""


class Registry:
    def __init__(
        self, sessions: sessionmaker[Session], index: Callable[[], ChunkIndex], room: DiskRoom
    ) -> None:
        self._sessions = sessions
        self._index = index  # a provider: the CLI reads the registry without opening Qdrant
        self._room = room
        self._ensure_state_row()

    def _ensure_state_row(self) -> None:
        """Create the ``index_state`` row up front, so two workers' first writes do not race
        to insert it (the loser would fail on the primary key)."""
        try:
            with session_scope(self._sessions) as session:
                if session.get(IndexState, 1) is None:
                    session.add(IndexState(id=1, index_version=0))
        except IntegrityError:
            pass  # another process created it first

    # --- reads ---------------------------------------------------------------------------
    def get(self, source: str) -> Document | None:
        with session_scope(self._sessions) as session:
            return _row(session, source)

    def live(self) -> list[Document]:
        with session_scope(self._sessions) as session:
            rows = session.scalars(
                select(Document).where(Document.retired.is_(False)).order_by(Document.source)
            )
            return list(rows)

    def live_sources(self) -> set[str]:
        with session_scope(self._sessions) as session:
            return set(session.scalars(select(Document.source).where(Document.retired.is_(False))))

    def effective(self, meta: DocumentMeta) -> DocumentMeta:
        with session_scope(self._sessions) as session:
            return _effective(session, meta)

    def classify(self, meta: DocumentMeta, chunks: Sequence[Chunk], force: bool = False) -> Change:
        """What writing this document would change, judged against the registry now."""
        with session_scope(self._sessions) as session:
            return classify_change(
                _row(session, meta.source), _effective(session, meta), chunks, force
            )

    # --- writes --------------------------------------------------------------------------
    def write(
        self,
        meta: DocumentMeta,
        chunks: Sequence[Chunk],
        embedded: Embedded | None,
        *,
        force: bool = False,
    ) -> WriteResult | ContentChanged:
        """Bring the index and the registry to this document, changing only what differs.

        ``embedded`` may be ``None`` when the caller judged that only metadata changed; if
        under the lock the content turns out changed after all, nothing is written and this
        returns ``ContentChanged`` so the caller embeds and calls again. Any exception is a
        fault, never that signal."""
        if not chunks:
            raise ValueError("a document to write has at least one chunk")
        unrecorded: list[str] = []  # points of a document the registry did not name yet
        try:
            with session_scope(self._sessions) as session:
                version = bump_index_version(session)
                row = _row(session, meta.source)
                eff = _effective(session, meta)
                change = classify_change(row, eff, chunks, force)
                if change == "unchanged":
                    raise _Unchanged
                if change == "content" and embedded is None:
                    raise _NeedsVectors
                marked = with_metadata(list(chunks), eff, version)
                predecessors = _to_supersede(session, eff)
                remarked = sum(p.chunk_count for p in predecessors)
                self._check_room(
                    meta.source, remarked + (len(marked) if change == "metadata" else 0)
                )
                index = self._index()
                if change == "content":
                    assert embedded is not None
                    if row is None or row.retired:
                        unrecorded = [c.chunk_id for c in marked]
                    index.upsert(marked, embedded.chunk_vectors, list(embedded.sentence_vectors))
                    new_ids = {c.chunk_id for c in marked}
                    stale = [c.chunk_id for c in index.chunks_of(meta.source)]
                    index.delete_ids([cid for cid in stale if cid not in new_ids])
                else:
                    payload = marked[0].to_payload()
                    index.set_payload(meta.source, {k: payload[k] for k in DOCUMENT_FIELDS})
                record(session, row, eff, marked, chunks_hash(chunks))
                _supersede(index, predecessors, eff.source, version)
                return WriteResult(change, len(marked), version)
        except _Unchanged:
            return WriteResult("unchanged", len(chunks), None)
        except _NeedsVectors:
            return ContentChanged(meta.source)
        except BaseException:
            if unrecorded:
                self._forget_unrecorded(meta.source, unrecorded)
            raise

    def _forget_unrecorded(self, source: str, chunk_ids: list[str]) -> None:
        """The transaction failed after a new document's points were written (the database
        dropped the connection at commit): take them out again, so search never shows a
        document the registry does not name (nothing could list, check or retire it). A
        changed document needs no such step: its registry row still names it, and the
        retried write replaces the same point ids."""
        try:
            with session_scope(self._sessions) as session:
                row = _row(session, source)
                if row is not None and not row.retired:
                    return  # another write recorded it meanwhile: its points are its own
        except Exception:  # noqa: BLE001 - the database is still down: remove them anyway
            log.warning("%s: cannot read the registry; removing unrecorded points", source)
        try:
            self._index().delete_ids(chunk_ids)
        except Exception:  # noqa: BLE001 - the original fault is what the caller must see
            log.error("%s: %d unrecorded points could not be removed", source, len(chunk_ids))

    def retire(self, source: str) -> int:
        """Remove a document's chunks from the index and mark it retired; return the new
        index version. Its row stays, so a later ingest of the same source brings it back."""
        with session_scope(self._sessions) as session:
            version = bump_index_version(session)
            row = _row(session, source)
            if row is None or row.retired:
                raise NotFound(f"no indexed document {source!r}")
            self._index().delete_source(source)
            row.retired, row.chunk_count, row.chunk_ids = True, 0, []
            row.version += 1
            row.updated_at = utcnow()
            return version

    def promote_due(self, today: date) -> list[str]:
        """Documents marked ``pending`` whose effective date has come become ``current``, in
        place, under one new index version. Returns their sources."""
        with session_scope(self._sessions) as session:
            due = list(
                session.scalars(
                    select(Document).where(
                        Document.status == "pending",
                        Document.retired.is_(False),
                        Document.effective_date <= today,
                    )
                )
            )
            if not due:
                return []
            version = bump_index_version(session)
            self._check_room(", ".join(r.source for r in due), sum(r.chunk_count for r in due))
            index = self._index()
            for row in due:
                index.set_payload(row.source, {"status": "current", "index_version": version})
                row.status = "current"
                row.meta_hash = meta_hash(replace(meta_from_row(row), status="current"))
                row.version += 1
                row.updated_at = utcnow()
            return [row.source for row in due]

    def _check_room(self, sources: str, points: int) -> None:
        """Refuse re-marking ``points`` in place (``DiskFull``, naming ``sources``) when the
        data dir's disk could not take it; a transaction that re-marks nothing needs no room."""
        if points:
            self._room.check(sources, remark_size(points))


class _Unchanged(Exception):
    pass


def _row(session: Session, source: str) -> Document | None:
    return session.scalars(select(Document).where(Document.source == source)).first()


def successor_declaring(session: Session, source: str) -> str | None:
    """The live document that declares it supersedes ``source``, if any (the earliest source
    name wins when several do, so the answer does not depend on arrival order)."""
    rows = session.execute(
        select(Document.source, Document.supersedes).where(Document.retired.is_(False))
    )
    found = sorted(src for src, sup in rows if source in (sup or ()) and src != source)
    return found[0] if found else None


def _to_supersede(session: Session, meta: DocumentMeta) -> list[Document]:
    """The live documents ``meta`` declares it supersedes and that are not marked so yet (the
    other order, a predecessor arriving after, is handled by ``_effective``)."""
    rows = [_row(session, source) for source in meta.supersedes]
    return [
        row
        for row in rows
        if row is not None
        and not row.retired
        and not (row.status == "superseded" and row.superseded_by == meta.source)
    ]


def _supersede(index: ChunkIndex, rows: list[Document], successor: str, version: int) -> None:
    """Re-mark in place the chunks of every document in ``rows`` as superseded by
    ``successor``, and their registry rows with them."""
    for row in rows:
        index.set_payload(
            row.source,
            {"status": "superseded", "superseded_by": successor, "index_version": version},
        )
        new = replace(meta_from_row(row), status="superseded", superseded_by=successor)
        row.status, row.superseded_by = new.status, new.superseded_by
        row.meta_hash = meta_hash(new)
        row.version += 1
        row.updated_at = utcnow()


def _effective(session: Session, meta: DocumentMeta) -> DocumentMeta:
    """The document's own metadata, plus being superseded by a live document that says so."""
    if meta.superseded_by:
        return meta
    successor = successor_declaring(session, meta.source)
    if successor is None:
        return meta
    return replace(meta, superseded_by=successor, status="superseded")
