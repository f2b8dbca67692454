"""Ingest jobs over the ``jobs`` and ``job_files`` tables: each file's state, progress, chunk
count, error and timing, and the job's own state (which files a job holds is planned in
``ingest.planning``).

A job goes ``queued -> running -> succeeded | failed`` (or ``cancelled`` while queued); a
file goes ``pending -> running -> indexed | unchanged | failed`` (or ``cancelled``). A job
fails when any of its files failed; the files that went in stay in. A failed file records
whether trying it again can succeed (``retryable``, ``ingest.faults``); a retry takes only
those. A row failed before the flag existed (NULL) counts as retryable, as it did then.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from docent.db.models import Document, Job, JobFile, as_utc, utcnow
from docent.db.state import index_version
from docent.errors import Conflict, NotFound
from ingest.planning import PlannedFile

FILE_DONE = frozenset({"indexed", "unchanged", "failed", "cancelled"})
FILE_OK = frozenset({"indexed", "unchanged"})
JOB_DONE = frozenset({"succeeded", "failed", "cancelled"})


@dataclass(frozen=True)
class FileTask:
    """What a worker needs to ingest one file (read from its ``job_files`` row)."""

    job_file_id: int
    job_id: str
    kind: str
    source: str
    path: Path
    params: Mapping[str, Any]


def create_job(
    session: Session,
    files: Sequence[PlannedFile],
    *,
    kind: str,
    params: Mapping[str, Any],
    created_by: str | None,
    levels: Mapping[str, str] | None = None,
) -> str:
    """``levels``: the access level each source will get, when known before the job runs
    (an upload resolves it to show it); the job view shows it."""
    job_id = str(uuid.uuid4())
    session.add(Job(id=job_id, kind=kind, state="queued", created_by=created_by, params=params))
    session.flush()
    now = utcnow()
    for planned in files:
        failed = planned.error is not None
        session.add(
            JobFile(
                job_id=job_id,
                source=planned.source,
                path=str(planned.path),
                state="failed" if failed else "pending",
                progress=1.0 if failed else 0.0,
                error=planned.error,
                retryable=False if failed else None,  # missing, unsupported, too large
                access_level=(levels or {}).get(planned.source),
                finished_at=now if failed else None,
                seconds=0.0 if failed else None,
            )
        )
    return job_id


def get_job(session: Session, job_id: str) -> Job:
    job = session.get(Job, job_id)
    if job is None:
        raise NotFound(f"no ingest job {job_id!r}")
    return job


def job_files(session: Session, job_id: str) -> list[JobFile]:
    return list(
        session.scalars(select(JobFile).where(JobFile.job_id == job_id).order_by(JobFile.id))
    )


def batch_sources(session: Session, job_id: str) -> set[str]:
    """Sources named by a job (its batch), except files already known to be unusable."""
    rows = session.execute(
        select(JobFile.source, JobFile.state, JobFile.started_at).where(JobFile.job_id == job_id)
    )
    return {src for src, state, started in rows if not (state == "failed" and started is None)}


def claim_file(session: Session, job_file_id: int) -> FileTask | None:
    """Mark a file running (a redelivered file that was running is taken again) and its
    job running. ``None`` when the file is already done or its job was cancelled."""
    row = session.get(JobFile, job_file_id)
    if row is None:
        raise NotFound(f"no ingest job file {job_file_id}")
    job = get_job(session, row.job_id)
    if row.state in FILE_DONE or job.state == "cancelled":
        return None
    now = utcnow()
    row.state, row.progress, row.error, row.retryable = "running", 0.0, None, None
    row.attempts += 1
    row.started_at = now
    if job.state == "queued":
        job.state, job.started_at = "running", now
    return FileTask(
        job_file_id=row.id,
        job_id=job.id,
        kind=job.kind,
        source=row.source,
        path=Path(row.path),
        params=dict(job.params or {}),
    )


def set_progress(session: Session, job_file_id: int, progress: float) -> None:
    """A running file's progress, never lowered: a batch that fails and is embedded again
    file by file reports each file's share afresh (a review saw 0.76 fall to 0.63)."""
    session.execute(
        update(JobFile)
        .where(
            JobFile.id == job_file_id,
            JobFile.state == "running",
            or_(JobFile.progress.is_(None), JobFile.progress < progress),
        )
        .values(progress=progress)
    )


def finish_file(
    session: Session,
    job_file_id: int,
    *,
    state: str,
    chunks: int = 0,
    error: str | None = None,
    retryable: bool = True,
) -> None:
    """``retryable``: for a failed file, whether trying it again can succeed."""
    row = session.get(JobFile, job_file_id)
    if row is None:
        raise NotFound(f"no ingest job file {job_file_id}")
    now = utcnow()
    row.state, row.progress, row.chunks, row.error = state, 1.0, chunks, error
    row.retryable = retryable if state == "failed" else None
    row.finished_at = now
    started = row.started_at
    if started is not None:
        started = as_utc(started)
        row.seconds = round((now - started).total_seconds(), 3)


def finish_job_if_done(session: Session, job_id: str) -> str | None:
    """Give the job its final state once no file is left to do; return it (or ``None``)."""
    job = get_job(session, job_id)
    if job.state in JOB_DONE:
        return job.state
    files = job_files(session, job_id)
    if any(f.state not in FILE_DONE for f in files):
        return None
    failed = [f for f in files if f.state == "failed"]
    job.state = "failed" if failed else "succeeded"
    job.error = f"{len(failed)} of {len(files)} files failed" if failed else None
    job.started_at = job.started_at or utcnow()
    job.finished_at = utcnow()
    return job.state


def cancel_job(session: Session, job_id: str) -> None:
    job = get_job(session, job_id)
    if job.state != "queued":
        raise Conflict(f"job {job_id} is {job.state}; only a queued job can be cancelled")
    job.state, job.finished_at = "cancelled", utcnow()
    for row in job_files(session, job_id):
        if row.state == "pending":
            row.state = "cancelled"


def is_retryable(row: JobFile) -> bool:
    """A failed file that trying again can make succeed (NULL: failed before the flag)."""
    return row.state == "failed" and row.retryable is not False


def requeue_failed(session: Session, job_id: str) -> list[int]:
    """Put a finished job's retryable failed files back to pending; return their ids. A
    file that failed by its own fault stays failed (the job fails again): it needs a new
    file, not another try. ``Conflict`` when nothing of the job can be retried."""
    job = get_job(session, job_id)
    if job.state != "failed":
        raise Conflict(f"job {job_id} is {job.state}; only a failed job can be retried")
    retry = [row for row in job_files(session, job_id) if is_retryable(row)]
    if not retry:
        raise Conflict(
            f"job {job_id} has no file a retry can fix: each failed by its own fault "
            "(type, content, size, metadata or audience); fix the file and upload it again"
        )
    ids = []
    for row in retry:
        row.state, row.progress, row.error, row.finished_at = "pending", 0.0, None, None
        row.retryable = None
        ids.append(row.id)
    job.state, job.error, job.finished_at = "queued", None, None
    return ids


def unfinished_job_ids(session: Session) -> list[str]:
    """Jobs not finished (queued or running), oldest first."""
    query = select(Job.id).where(Job.state.in_(("queued", "running"))).order_by(Job.created_at)
    return list(session.scalars(query))


def pending_file_ids(session: Session, job_id: str) -> list[int]:
    """Files still to do: pending, or running when a worker died under them."""
    return [f.id for f in job_files(session, job_id) if f.state not in FILE_DONE]


def pace(
    started: datetime | None, now: datetime, progress: float, chunks: int
) -> dict[str, float | None]:
    """A job's chunks per second so far and its seconds left at that pace (by the share of its
    files done); ``None`` until it has started and made progress."""
    if started is None:
        return {"chunks_per_s": None, "eta_s": None}
    started, now = as_utc(started), as_utc(now)
    elapsed = (now - started).total_seconds()
    if elapsed <= 0:
        return {"chunks_per_s": None, "eta_s": None}
    eta = elapsed * (1.0 - progress) / progress if progress > 0 else None
    return {
        "chunks_per_s": round(chunks / elapsed, 2),
        "eta_s": None if eta is None else round(eta),
    }


def _iso(value: datetime | None) -> str | None:
    return as_utc(value).isoformat() if value else None


HIDDEN_SOURCE = "(a file above your clearance)"
HIDDEN_ERROR = "failed (details above your clearance)"
# Whether a viewer may read a file of this access level and groups; the level is None for a
# file not yet (or never) registered whose upload named none.
MayRead = Callable[[str | None, Sequence[str]], bool]
Audience = tuple[str | None, list[str]]


def file_audiences(
    session: Session, job: Job, files: Sequence[JobFile]
) -> dict[int, list[Audience]]:
    """Each file's audiences, every one of which a viewer must be in to see its name: the one
    its upload gave it (the level shown at upload, the groups it was resolved to), and its
    document's as the registry has it now (raised or narrowed since); else the upload's
    fields. The document's, when there is one, comes last."""
    sources = sorted({f.source for f in files})
    docs = {
        d.source: d for d in session.scalars(select(Document).where(Document.source.in_(sources)))
    }
    params = job.params or {}
    overrides = params.get("overrides") or {}
    groups = overrides.get("groups")
    upload_groups = [g.strip() for g in groups.split(",")] if isinstance(groups, str) else []
    file_groups = params.get("file_groups") or {}
    out: dict[int, list[Audience]] = {}
    for f in files:
        doc = docs.get(f.source)
        own: list[Audience] = []
        if f.access_level:
            own.append((f.access_level, list(file_groups.get(f.source) or upload_groups)))
        if doc is not None:
            own.append((doc.access_level, list(doc.groups or ())))
        out[f.id] = own or [(overrides.get("access_level"), upload_groups)]
    return out


def _file_json(f: JobFile, level: str | None, readable: bool) -> dict[str, Any]:
    done = f.state in FILE_DONE
    return {
        "id": f.id,
        "source": f.source if readable else HIDDEN_SOURCE,
        "state": f.state,
        "progress": 1.0 if done else round(float(f.progress or 0.0), 3),
        "chunks": f.chunks,
        "access_level": level if readable else None,
        "error": (f.error if readable else HIDDEN_ERROR) if f.error else None,
        "attempts": f.attempts,
        "seconds": f.seconds,
        "hidden": not readable,
        "retryable": is_retryable(f),
    }


def job_json(session: Session, job: Job, may_read: MayRead | None = None) -> dict[str, Any]:
    """A job as ``GET /api/jobs/{id}`` and ``docent ingest --json`` show it (one serialiser:
    tests/docent/test_views.py). ``may_read`` given, a file the viewer may not read shows neither
    its name nor its error; without it (the CLI, an admin view) every file is shown. Errors
    are reasons, never document text."""
    files = job_files(session, job.id)
    acl = file_audiences(session, job, files)
    shown = [
        _file_json(
            f,
            acl[f.id][-1][0],  # the document's level now, once registered
            may_read is None or all(may_read(*audience) for audience in acl[f.id]),
        )
        for f in files
    ]
    counts: dict[str, int] = {}
    for f in files:
        counts[f.state] = counts.get(f.state, 0) + 1
    progress = sum(1.0 if f.state in FILE_DONE else float(f.progress or 0.0) for f in files)
    share = round(progress / len(files), 4) if files else 1.0
    chunks = sum(f.chunks for f in files if f.state in FILE_OK)
    retryable = job.state == "failed" and any(is_retryable(f) for f in files)
    finished = job.finished_at
    return {
        "job_id": job.id,
        "kind": job.kind,
        "state": job.state,
        "created_by": job.created_by,
        "created_at": _iso(job.created_at),
        "started_at": _iso(job.started_at),
        "finished_at": _iso(finished),
        "seconds": (
            round((finished - job.started_at).total_seconds(), 2)
            if finished and job.started_at
            else None
        ),
        "error": job.error,
        "files_total": len(files),
        "files_done": sum(1 for f in files if f.state in FILE_DONE),
        "progress": share,
        "counts": counts,
        "documents": sum(1 for f in files if f.state in FILE_OK),
        "chunks": chunks,
        "skipped": counts.get("unchanged", 0),
        **pace(job.started_at, finished or utcnow(), share, chunks),
        # A retry can only help a file that did not fail by its own fault (``ingest.faults``).
        "retryable": retryable,
        "can_retry": retryable,
        "can_cancel": job.state == "queued",
        "errors": [
            {"source": v["source"], "reason": v["error"] or "failed", "retryable": v["retryable"]}
            for v in shown
            if v["state"] == "failed"
        ],
        "index_version": index_version(session),
        "files": shown,
    }


def status_of(session: Session, job_id: str) -> dict[str, Any]:
    """The job, every file shown (``job_json`` without a viewer)."""
    return job_json(session, get_job(session, job_id))
