"""The ingest pipeline: submit a job of files, then ingest each file (partition, resolve its
metadata, chunk by heading, embed, write) — inline, or one Celery task per file.

``Ingestor`` is the one object the CLI, the API and the worker call. It is built from
``Services`` (``services.ingestor``) and opens the vector index and the embedder only when a
file is actually ingested, so submitting and watching a job needs only the database.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from sqlalchemy import select
from sqlalchemy.exc import InterfaceError, OperationalError

from docent.contracts import Chunk, DocumentMeta, Embedder, Principal
from docent.db.models import Document, JobFile
from docent.db.session import session_scope
from docent.errors import DocentError, InvalidInput, NotFound, Unavailable, public_message
from ingest import jobs
from ingest.dispatch import celery_dispatch
from ingest.errors import EmptyDocument, IngestError, IngestFileError, QueueUnavailable, Refused
from ingest.grant import own_audience, refusal, uploader_of
from ingest.metadata import (
    ManifestRow,
    check_successors,
    doc_id_for,
    read_manifest,
    resolve_metadata,
)
from ingest.registry import (
    ContentChanged,
    Embedded,
    Registry,
    WriteResult,
    document_summary,
    meta_from_row,
)

if TYPE_CHECKING:
    from docent.wiring import Services

log = logging.getLogger(__name__)

# What a job shows for a service that did not answer (never the vendor's text: job views
# reach editors and operators; the text is logged).
QUEUE_DOWN = "the ingest queue did not answer; nothing was indexed: start the broker, then retry"
DB_DOWN = "the database did not answer; try again shortly"

# A service that did not answer (Qdrant, or the DB before or after Services wrapped it):
# worth another try later, unlike a file's own fault.
TRANSIENT: tuple[type[Exception], ...] = (Unavailable, OperationalError, InterfaceError)


@dataclass(frozen=True)
class FileResult:
    job_file_id: int
    source: str
    state: str  # a job_files state; "skipped" when there was nothing to do (already done)
    chunks: int = 0
    error: str | None = None
    change: str | None = None  # "content" | "metadata" | "unchanged" when it was ingested


def embed_chunks(embedder: Embedder, chunks: Sequence[Chunk]) -> Embedded:
    """One embedding call for a whole document: every chunk's ``embed_text`` and every unit of
    ``sentences``, with repeated texts embedded once."""
    texts = [c.embed_text for c in chunks] + [s for c in chunks for s in c.sentences]
    unique = list(dict.fromkeys(texts))
    vectors = embedder.embed(unique) if unique else np.zeros((0, embedder.dimension), np.float32)
    row_of = {text: i for i, text in enumerate(unique)}
    chunk_vectors = vectors[[row_of[c.embed_text] for c in chunks]]
    sentence_vectors = tuple(
        vectors[[row_of[s] for s in c.sentences]]
        if c.sentences
        else np.zeros((0, vectors.shape[1]), np.float32)
        for c in chunks
    )
    return Embedded(np.asarray(chunk_vectors, np.float32), sentence_vectors)


class Ingestor:
    def __init__(
        self,
        services: Services,
        *,
        dispatch: Callable[[int], None] | None = None,
        today: Callable[[], date] = date.today,
    ) -> None:
        """``dispatch`` hands one job file id to a worker; ``None`` means: a Celery task when
        a broker is configured, else ingest inline in this process."""
        self._services = services
        self._settings = services.settings
        self._sessions = services.sessions
        self._today = today
        self._dispatch = dispatch
        if dispatch is None and self._settings.broker_url:
            self._dispatch = celery_dispatch(services)
        self.registry = Registry(self._sessions, lambda: services.index)
        self._manifests: dict[tuple[str, int], dict[str, ManifestRow]] = {}

    @property
    def uses_workers(self) -> bool:
        return self._dispatch is not None

    # --- jobs ----------------------------------------------------------------------------
    def submit(
        self,
        paths: Sequence[Path],
        *,
        root: Path | None = None,
        manifest: Path | None = None,
        overrides: Mapping[str, str | None] | None = None,
        created_by: str | None = None,
        uploader: Principal | None = None,
        levels: Mapping[str, str] | None = None,
    ) -> str:
        """Record a job over ``paths`` (folders expanded recursively) and return its id.
        Files that cannot be ingested (unsupported type, missing, too large) are recorded
        as failed with their reason; the others wait for ``run``. ``uploader`` (an upload
        through the API) bounds the level and groups each file may get (``ingest.grant``);
        ``levels`` is the level each source was shown it would get (source -> level)."""
        clean = jobs.check_overrides(overrides or {}, self._settings.access_levels)
        if manifest is None:
            manifest = jobs.folder_manifest(paths)
        if manifest is not None:
            self._manifest_rows(manifest)  # a malformed manifest fails the whole submit
        planned = jobs.plan_files(
            paths,
            root=root,
            manifest=manifest,
            allowed_extensions=self._settings.allowed_extensions,
            max_bytes=self._settings.max_upload_mb * 2**20,
        )
        if not planned:
            named = ", ".join(str(p) for p in paths) or "(nothing)"
            allowed = ", ".join(self._settings.allowed_extensions)
            raise InvalidInput(f"no files to ingest under {named} (allowed types: {allowed})")
        params = {
            "root": str(root.resolve()) if root else None,
            "manifest": str(manifest.resolve()) if manifest else None,
            "overrides": clean,
            "uploader": {"clearance": uploader.clearance, "groups": sorted(uploader.groups)}
            if uploader is not None
            else None,
        }
        with session_scope(self._sessions) as session:
            return jobs.create_job(
                session, planned, kind="ingest", params=params, created_by=created_by, levels=levels
            )

    def reindex_all(self, *, created_by: str | None = None) -> str:
        """A job that re-reads, re-chunks and re-embeds every live document from the file it
        was last ingested from, keeping the metadata the registry holds. Call ``run``."""
        with session_scope(self._sessions) as session:
            live = set(session.scalars(select(Document.source).where(Document.retired.is_(False))))
            last_path: dict[str, str] = {}
            for source, path in session.execute(
                select(JobFile.source, JobFile.path)
                .where(JobFile.state.in_(jobs.FILE_OK))
                .order_by(JobFile.id.desc())
            ):
                last_path.setdefault(source, path)
            planned = [
                jobs.PlannedFile(
                    source,
                    Path(last_path.get(source, source)),
                    None if source in last_path else "the file it was ingested from is unknown",
                )
                for source in sorted(live)
            ]
            if not planned:
                raise InvalidInput("nothing to reindex: no documents are indexed")
            return jobs.create_job(
                session, planned, kind="reindex", params={"force": True}, created_by=created_by
            )

    def run(self, job_id: str, on_file: Callable[[FileResult], None] | None = None) -> None:
        """Ingest a job's remaining files: hand them to workers, or ingest them here one by
        one (calling ``on_file`` after each). Running a finished job again does nothing."""
        with session_scope(self._sessions) as session:
            job = jobs.get_job(session, job_id)
            if job.state == "cancelled":
                return
            todo = jobs.pending_file_ids(session, job_id)
            if not todo:
                jobs.finish_job_if_done(session, job_id)
                return
        for n, job_file_id in enumerate(todo):
            if self._dispatch is not None:
                try:
                    self._dispatch(job_file_id)
                except QueueUnavailable:
                    self._fail_undispatched(job_id, todo[n:], QUEUE_DOWN)
                    raise
                continue
            result = self.run_file(job_file_id)
            if on_file is not None:
                on_file(result)

    def _fail_undispatched(self, job_id: str, job_file_ids: Sequence[int], reason: str) -> None:
        """Files the queue never took fail with its reason, so the job shows why and an
        operator can retry it once the broker is back; nothing indexed is touched."""
        with session_scope(self._sessions) as session:
            for job_file_id in job_file_ids:
                row = session.get(JobFile, job_file_id)
                if row is not None and row.state == "pending":
                    jobs.finish_file(session, job_file_id, state="failed", error=reason)
            jobs.finish_job_if_done(session, job_id)

    def run_file(
        self, job_file_id: int, *, transient: Literal["fail", "raise"] = "fail"
    ) -> FileResult:
        """Ingest one file of a job. Idempotent: a file already done is left alone, and a file
        whose previous attempt died is ingested again onto the same point ids.

        A file's own fault (``IngestFileError``) fails that file and never touches what is
        indexed. A service that did not answer (``Unavailable``) fails it too, or with
        ``transient="raise"`` propagates so the worker can retry the task later."""
        with session_scope(self._sessions) as session:
            task = jobs.claim_file(session, job_file_id)
            if task is None:
                row = session.get(JobFile, job_file_id)
                assert row is not None
                jobs.finish_job_if_done(session, row.job_id)
                return FileResult(job_file_id, row.source, "skipped", row.chunks, row.error)
        state, chunks, error, change = "failed", 0, None, None
        try:
            started = time.monotonic()
            written = self._ingest(task)
            state = "unchanged" if written.change == "unchanged" else "indexed"
            chunks, change = written.chunks, written.change
            log.info(
                "%s: %s, %d chunks, %.1fs", task.source, state, chunks, time.monotonic() - started
            )
        except IngestFileError as exc:
            error = exc.reason
        except TRANSIENT as exc:
            if transient == "raise":
                raise
            log.warning("%s: %s", task.source, exc)  # the vendor's text, for the operator
            error = public_message(exc) if isinstance(exc, Unavailable) else DB_DOWN
        except DocentError as exc:
            if exc.http_status >= 500:
                log.warning("%s: %s", task.source, exc)
            error = public_message(exc)
        except Exception as exc:  # one file's unexpected fault must not stop the batch
            # The class name only at ERROR: a library's message may quote the document.
            log.error("%s: ingest failed (%s)", task.source, type(exc).__name__)
            log.debug("%s: ingest failed", task.source, exc_info=True)
            error = f"internal error while ingesting ({type(exc).__name__})"
        with session_scope(self._sessions) as session:
            jobs.finish_file(session, job_file_id, state=state, chunks=chunks, error=error)
        with session_scope(self._sessions) as session:
            jobs.finish_job_if_done(session, task.job_id)
        return FileResult(job_file_id, task.source, state, chunks, error, change)

    def cancel(self, job_id: str) -> None:
        with session_scope(self._sessions) as session:
            jobs.cancel_job(session, job_id)

    def retry(self, job_id: str) -> None:
        """Put a failed job's failed files back in the queue and run them again."""
        with session_scope(self._sessions) as session:
            jobs.requeue_failed(session, job_id)
        self.run(job_id)

    def job_status(self, job_id: str) -> dict[str, Any]:
        with session_scope(self._sessions) as session:
            return jobs.status_of(session, job_id)

    # --- documents -----------------------------------------------------------------------
    def retire(self, source: str) -> int:
        """Remove a document's chunks from the index and mark it retired; the new version."""
        return self.registry.retire(source)

    def promote_due(self, today: date | None = None) -> list[str]:
        """Make ``current`` the pending documents whose effective date has come (run at
        start by ``serve``, ``ingest`` and ``worker``, and daily by the server)."""
        return self.registry.promote_due(today or date.today())

    def documents(self) -> list[dict[str, Any]]:
        return [document_summary(row) for row in self.registry.live()]

    def document(self, source: str) -> dict[str, Any]:
        """One document and its chunks, for ``docent docs show`` (an admin view: no filter)."""
        row = self.registry.get(source)
        if row is None or row.retired:
            raise NotFound(f"no indexed document {source!r}")
        chunks = self._services.index.chunks_of(source)
        return {
            "source": row.source,
            "metadata": document_summary(row),
            "chunks": [
                {
                    "chunk_id": c.chunk_id,
                    "heading_path": list(c.heading_path),
                    "kind": c.kind,
                    "status": c.status,
                    "access_level": c.access_level,
                    "effective_date": c.effective_date.isoformat() if c.effective_date else None,
                    "text": c.text,
                }
                for c in chunks
            ],
        }

    # --- one file ------------------------------------------------------------------------
    def _ingest(self, task: jobs.FileTask) -> WriteResult:
        # Imported here: unstructured pulls in spaCy and torch (seconds), which listing
        # documents or watching a job never needs.
        from ingest.chunking import chunk_by_heading
        from ingest.partition import partition_file

        if not task.path.is_file():
            raise IngestFileError(task.source, "no such file")
        parsed = partition_file(task.path, task.source)
        self._progress(task, 0.2)
        meta = self._resolve(task, parsed.properties)
        chunks = chunk_by_heading(
            parsed.elements,
            source=task.source,
            doc_id=meta.doc_id,
            budget_tokens=self._settings.chunk_tokens,
            root_title=meta.title,
        )
        if not chunks:
            raise EmptyDocument(task.source, "no text to index after partitioning")
        self._progress(task, 0.3)
        force = bool(task.params.get("force"))
        change = self.registry.classify(meta, chunks, force)
        if change == "unchanged":
            return WriteResult("unchanged", len(chunks), None)
        embedded = embed_chunks(self._services.embedder, chunks) if change == "content" else None
        self._progress(task, 0.9)
        written = self.registry.write(meta, chunks, embedded, force=force)
        if isinstance(written, ContentChanged):  # changed under us since classify
            written = self.registry.write(
                meta, chunks, embed_chunks(self._services.embedder, chunks), force=force
            )
            if isinstance(written, ContentChanged):  # not possible with vectors given
                raise IngestError(f"{task.source}: the registry refused the vectors it asked for")
        return written

    def _resolve(self, task: jobs.FileTask, properties: Mapping[str, str]) -> DocumentMeta:
        if task.kind == "reindex":
            row = self.registry.get(task.source)
            if row is None:
                raise IngestFileError(task.source, "is no longer in the registry")
            meta = meta_from_row(row)
            if meta.status == "pending" and (
                meta.effective_date is None or meta.effective_date <= self._today()
            ):
                meta = replace(meta, status="current")
            return meta
        manifest_row = None
        manifest = task.params.get("manifest")
        if manifest:
            rows = self._manifest_rows(Path(manifest))
            folder = Path(manifest).parent
            key = (
                task.path.relative_to(folder).as_posix()
                if task.path.is_relative_to(folder)
                else task.source
            )
            manifest_row = rows.get(key)
        overrides = dict(task.params.get("overrides") or {})
        levels = self._settings.access_levels
        meta = resolve_metadata(
            task.source,
            doc_id_for(task.source),
            properties,
            manifest_row,
            overrides,
            levels=levels,
            default_level=self._settings.default_access_level,
            today=self._today(),
        )
        own = own_audience(properties, manifest_row, levels)
        reason = refusal(own, overrides, meta, uploader_of(task.params), levels)
        if reason is not None:
            raise Refused(task.source, reason)
        if meta.superseded_by or meta.supersedes:
            with session_scope(self._sessions) as session:
                batch = jobs.batch_sources(session, task.job_id)
            # A successor named by superseded_by must exist (batch or index). A predecessor
            # named by supersedes may arrive later: it is written superseded when it does.
            problems = check_successors([meta], self.registry.live_sources() | batch)
            for problem in problems:
                if problem.field == "superseded_by":
                    raise problem
        return meta

    def _manifest_rows(self, manifest: Path) -> dict[str, ManifestRow]:
        if not manifest.is_file():
            raise InvalidInput(f"manifest {manifest}: no such file")
        key = (str(manifest.resolve()), manifest.stat().st_mtime_ns)
        if key not in self._manifests:
            self._manifests[key] = read_manifest(manifest)
        return self._manifests[key]

    def _progress(self, task: jobs.FileTask, progress: float) -> None:
        with session_scope(self._sessions) as session:
            jobs.set_progress(session, task.job_file_id, progress)
