"""The ingest pipeline: submit a job of files, then ingest each file (partition, resolve its
metadata, chunk by heading, embed, write) — inline, or one Celery task per file.

``Ingestor`` is the one object the CLI, the API and the worker call. The composition root
builds it with what it needs (settings, the database's sessions, and providers of the vector
index and the embedder), and it calls those providers only when a file is actually ingested,
so submitting and watching a job needs only the database.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from sqlalchemy import select

from docent.contracts import Principal
from docent.db.models import Document, JobFile, document_summary
from docent.db.session import session_scope
from docent.errors import InvalidInput, NotFound
from docent.views import chunk_json
from ingest import jobs, planning
from ingest.batching import BATCH_TEXTS, Prepared, VectorMemo
from ingest.disk import DiskRoom, write_size
from ingest.errors import IngestError, QueueUnavailable
from ingest.faults import Failed, Transient, attempt
from ingest.one_file import CHUNKED, EMBEDDED, chunk_file
from ingest.registry import ContentChanged, Registry, WriteResult
from ingest.task_metadata import TaskMetadata

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

    from docent.contracts import Embedder
    from docent.settings import Settings
    from store.protocol import ChunkIndex

log = logging.getLogger(__name__)

# What a job shows for a queue that did not answer (never the vendor's text: job views
# reach editors and operators; the text is logged).
QUEUE_DOWN = "the ingest queue did not answer; nothing was indexed: start the broker, then retry"


@dataclass(frozen=True)
class FileResult:
    job_file_id: int
    source: str
    state: str  # a job_files state; "skipped" when there was nothing to do (already done)
    chunks: int = 0
    error: str | None = None
    change: str | None = None  # "content" | "metadata" | "unchanged" when it was ingested


class Ingestor:
    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        *,
        index: Callable[[], ChunkIndex],
        embedder: Callable[[], Embedder],
        dispatch: Callable[[int], None] | None = None,
        today: Callable[[], date] = date.today,
        batch_texts: int = BATCH_TEXTS,
        on_job_done: Callable[[str], None] | None = None,
    ) -> None:
        """``index`` and ``embedder`` give the vector index and the embedder in the precision
        it records, the same ones on every call, opened at the first (the root's ``Services``
        does so): listing documents or watching a job opens neither. ``dispatch`` hands one
        job file id to a worker (``ingest.dispatch.celery_dispatch``); ``None`` means: ingest
        inline in this process. Inline, files are embedded together once their distinct
        texts reach ``batch_texts``. ``on_job_done`` is called with a job's id once, in the
        process that ended it, after its final state is committed (the root re-asks the open
        content gaps there); a fault in it is logged and never fails the job."""
        self._settings = settings
        self._sessions = sessions
        self._index = index
        self._embedder = embedder
        self._today = today
        self._dispatch = dispatch
        self._room = DiskRoom(settings.data_dir, settings.min_free_disk_mb)
        self.registry = Registry(sessions, index, self._room)
        self._metadata = TaskMetadata(self.registry, settings, sessions, today)
        self._batch_texts = batch_texts
        self._memo: VectorMemo | None = None
        self._embedding = threading.RLock()
        self._on_job_done = on_job_done

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
        groups: Mapping[str, Sequence[str]] | None = None,
    ) -> str:
        """Record a job over ``paths`` (folders expanded recursively) and return its id.
        Files that cannot be ingested (unsupported type, missing, too large) are recorded
        as failed with their reason; the others wait for ``run``. ``uploader`` (an upload
        through the API) bounds the level and groups each file may get (``ingest.grant``);
        ``levels`` is the level each source was shown it would get (source -> level), and
        ``groups`` the groups (source -> groups): who may see a file's name in the job."""
        clean = planning.check_overrides(overrides or {}, self._settings.access_levels)
        if manifest is None:
            manifest = planning.folder_manifest(paths)
        if manifest is not None:
            self._metadata.manifest_rows(manifest)  # a malformed manifest fails the submit
        planned = planning.plan_files(
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
        above = planning.manifests_above(planned, manifest) if uploader is None else []
        for folder_manifest in above:
            self._metadata.manifest_rows(Path(folder_manifest))  # malformed: fails the submit
        params = {
            "root": str(root.resolve()) if root else None,
            "manifest": str(manifest.resolve()) if manifest else None,
            "folder_manifests": above,
            "overrides": clean,
            "uploader": {"clearance": uploader.clearance, "groups": sorted(uploader.groups)}
            if uploader is not None
            else None,
            "file_groups": {source: sorted(g) for source, g in (groups or {}).items() if g},
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
                planning.PlannedFile(
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
        if self._dispatch is None:
            self._run_files(todo, on_file=on_file)
            return
        for n, job_file_id in enumerate(todo):
            try:
                self._dispatch(job_file_id)
            except QueueUnavailable:
                self._fail_undispatched(job_id, todo[n:], QUEUE_DOWN)
                raise

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
        return self._run_files([job_file_id], transient=transient)[0]

    def _run_files(
        self,
        job_file_ids: Sequence[int],
        *,
        transient: Transient = "fail",
        on_file: Callable[[FileResult], None] | None = None,
    ) -> list[FileResult]:
        """Prepare the files one by one; those that need vectors wait until the batch holds
        ``batch_texts`` distinct texts, are embedded together, then each is written,
        committed and reported on its own, exactly as if it had been ingested alone."""
        results: list[FileResult] = []

        def emit(result: FileResult) -> None:
            results.append(result)
            if on_file is not None:
                on_file(result)

        waiting: list[Prepared] = []
        texts = 0
        for job_file_id in job_file_ids:
            outcome = self._prepare(job_file_id, transient)
            if isinstance(outcome, FileResult):
                emit(outcome)
                continue
            waiting.append(outcome)
            texts += len(outcome.texts)
            if texts >= self._batch_texts:
                for result in self._embed_and_write(waiting, transient):
                    emit(result)
                waiting, texts = [], 0
        for result in self._embed_and_write(waiting, transient):
            emit(result)
        return results

    def _prepare(self, job_file_id: int, transient: Transient) -> FileResult | Prepared:
        """Claim, partition, chunk and classify one file: done already (unchanged, metadata
        re-marked, failed) or ``Prepared`` for the embedding batch."""
        with session_scope(self._sessions) as session:
            task = jobs.claim_file(session, job_file_id)
            if task is None:
                row = session.get(JobFile, job_file_id)
                assert row is not None
                jobs.finish_job_if_done(session, row.job_id)
                return FileResult(job_file_id, row.source, "skipped", row.chunks, row.error)
        started = time.monotonic()
        outcome = attempt(
            task,
            transient,
            lambda: chunk_file(
                task,
                started,
                metadata=self._metadata,
                registry=self.registry,
                chunk_tokens=self._settings.chunk_tokens,
                progress=lambda share: self._progress([task], share),
            ),
        )
        if isinstance(outcome, Prepared):
            return outcome
        return self._finish(task, outcome, started)

    def _embed_and_write(
        self, waiting: Sequence[Prepared], transient: Transient
    ) -> list[FileResult]:
        if not waiting:
            return []
        with self._embedding:  # one batch at a time shares the memo (and the cores)
            texts = [t for p in waiting for t in p.texts]
            tasks = [p.task for p in waiting]

            def moved(share: float) -> None:  # from chunked to embedded
                self._progress(tasks, CHUNKED + (EMBEDDED - CHUNKED) * share)

            embedded = attempt(tasks[0], transient, lambda: self._vectors().embed(texts, moved))
            if isinstance(embedded, Failed) and len(waiting) > 1:
                # The batch failed: embed each file alone, so only the file at fault fails.
                return [r for p in waiting for r in self._embed_and_write([p], transient)]
            results = []
            for p in waiting:
                self._progress([p.task], EMBEDDED)
                outcome: WriteResult | Failed = (
                    embedded
                    if isinstance(embedded, Failed)
                    else attempt(p.task, transient, lambda p=p: self._write(p))  # type: ignore[misc]
                )
                results.append(self._finish(p.task, outcome, p.started))
            self._vectors().trim()
            return results

    def _vectors(self) -> VectorMemo:
        """Built on first use: the embedding model loads only when a file needs vectors."""
        if self._memo is None:
            self._memo = VectorMemo(self._embedder())
        return self._memo

    def _write(self, prepared: Prepared) -> WriteResult:
        embedded = self._vectors().embedded(prepared.chunks)
        need = write_size(list(prepared.chunks), embedded.chunk_vectors.shape[1])
        self._room.check(prepared.task.source, need)
        written = self.registry.write(
            prepared.meta, list(prepared.chunks), embedded, force=prepared.force
        )
        if isinstance(written, ContentChanged):  # not possible with vectors given
            raise IngestError(f"{prepared.task.source}: the registry refused the vectors it gave")
        return written

    def _finish(
        self, task: jobs.FileTask, outcome: WriteResult | Failed, started: float
    ) -> FileResult:
        state, chunks, error, change, retryable = "failed", 0, None, None, False
        if isinstance(outcome, Failed):
            error, retryable = outcome.reason, outcome.retryable
        else:
            state = "unchanged" if outcome.change == "unchanged" else "indexed"
            chunks, change = outcome.chunks, outcome.change
            log.info(
                "%s: %s, %d chunks, %.1fs", task.source, state, chunks, time.monotonic() - started
            )
        with session_scope(self._sessions) as session:
            jobs.finish_file(
                session,
                task.job_file_id,
                state=state,
                chunks=chunks,
                error=error,
                retryable=retryable,
            )
        self._end_job_if_done(task.job_id)
        return FileResult(task.job_file_id, task.source, state, chunks, error, change)

    def _end_job_if_done(self, job_id: str) -> None:
        """The job's final state once its last file is done; then, committed, ``on_job_done``
        (only from the call that ended it)."""
        with session_scope(self._sessions) as session:
            was_done = jobs.get_job(session, job_id).state in jobs.JOB_DONE
            ended = jobs.finish_job_if_done(session, job_id)
        if was_done or ended is None or self._on_job_done is None:
            return
        try:
            self._on_job_done(job_id)
        except Exception:  # noqa: BLE001 - the job is done whatever its follow-up does
            log.exception("after job %s ended, its follow-up failed", job_id)

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
        return self.registry.promote_due(today or self._today())

    def documents(self) -> list[dict[str, Any]]:
        return [document_summary(row) for row in self.registry.live()]

    def document(self, source: str) -> dict[str, Any]:
        """One document and its chunks, for ``docent docs show``, as ``GET /api/documents/{id}``."""
        row = self.registry.get(source)
        if row is None or row.retired:
            raise NotFound(f"no indexed document {source!r}")
        # An admin view: every chunk, no reader's filter; the document and chunk contracts.
        return {
            "document": document_summary(row),
            "chunks": [chunk_json(c) for c in self._index().chunks_of(source)],
        }

    # --- one file ------------------------------------------------------------------------
    def _progress(self, tasks: Sequence[jobs.FileTask], progress: float) -> None:
        """Files' progress, in one transaction (a batch's files move together)."""
        with session_scope(self._sessions) as session:
            for task in tasks:
                jobs.set_progress(session, task.job_file_id, progress)
