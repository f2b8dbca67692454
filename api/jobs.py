"""Ingest jobs as the API shows them, and how the API starts them.

Without a broker, ``Ingestor.run`` ingests in the calling thread; the API hands it to a
one-thread executor so the request returns at once and the progress bars can move. With a
broker, ``run`` only dispatches one Celery task per file, which is quick.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.ports import ingestor_of
from api.users import CurrentUser
from api.visibility import can_read, documents_by_source
from docent.db.models import Job, JobFile, utcnow
from docent.db.session import session_scope
from docent.errors import NotFound
from docent.wiring import Services
from ingest.jobs import is_retryable, pace, unfinished_job_ids

log = logging.getLogger("docent.api.jobs")
HIDDEN_SOURCE = "(a file above your clearance)"


def start(executor: Executor, fn: Callable[[str], Any], job_id: str) -> None:
    def work() -> None:
        try:
            fn(job_id)
        except Exception:  # the job's own rows record per-file failures; this is the rest
            log.exception("ingest job failed to run", extra={"job_id": job_id})

    executor.submit(work)


def resume_interrupted(services: Services) -> list[str]:
    """Inline ingest runs on the serving process's own thread: jobs it left unfinished when
    it died (killed, power cut) are run again at start. Their files are idempotent (same
    point ids, one registry transaction each), so a file that was half done is redone, not
    duplicated. With a broker, Celery redelivers instead and this does nothing."""
    ingestor = ingestor_of(services)
    if getattr(ingestor, "uses_workers", False):
        return []
    with session_scope(services.sessions) as session:
        job_ids = unfinished_job_ids(session)
    for job_id in job_ids:
        log.info("resuming an interrupted ingest job", extra={"job_id": job_id})
        try:
            ingestor.run(job_id)
        except Exception:  # one job's fault must not stop the others being resumed
            log.exception("resuming an ingest job failed", extra={"job_id": job_id})
    return job_ids


def may_see_job(user: CurrentUser, job: Job) -> bool:
    return user.has_role("operator") or job.created_by == user.username


def get_visible_job(session: Session, user: CurrentUser, job_id: str) -> Job:
    job = session.get(Job, job_id)
    if job is None or not may_see_job(user, job):
        raise NotFound(f"no job {job_id!r}")
    return job


def _file_levels(
    session: Session, job: Job, files: Sequence[JobFile]
) -> dict[int, tuple[str | None, list[str]]]:
    """Each file's access level and groups: its own, else its document's, else the upload's."""
    docs = documents_by_source(session, [f.source for f in files])
    overrides = (job.params or {}).get("overrides") or {}
    out: dict[int, tuple[str | None, list[str]]] = {}
    for f in files:
        doc = docs.get(f.source)
        if f.access_level:
            out[f.id] = (f.access_level, list(doc.groups) if doc else [])
        elif doc is not None:
            out[f.id] = (doc.access_level, list(doc.groups))
        else:
            groups = overrides.get("groups")
            out[f.id] = (
                overrides.get("access_level"),
                [g.strip() for g in groups.split(",")] if isinstance(groups, str) else [],
            )
    return out


def job_view(
    session: Session, user: CurrentUser, job: Job, levels: Sequence[str], *, with_files: bool
) -> dict[str, Any]:
    files = list(
        session.execute(
            select(JobFile).where(JobFile.job_id == job.id).order_by(JobFile.id)
        ).scalars()
    )
    acl = _file_levels(session, job, files)
    shown: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    progress = 0.0
    for f in files:
        counts[f.state] = counts.get(f.state, 0) + 1
        done = f.state in ("indexed", "unchanged", "failed", "cancelled")
        progress += 1.0 if done else float(f.progress or 0.0)
        level, groups = acl[f.id]
        # A file not yet (or never) registered has no known level: default deny, except to
        # whoever submitted it and to admins.
        readable = (
            can_read(user, level, groups, levels)
            if level is not None
            else (user.is_admin or job.created_by == user.username)
        )
        shown.append(
            {
                "id": f.id,
                "source": f.source if readable else HIDDEN_SOURCE,
                "state": f.state,
                "progress": 1.0 if done else round(float(f.progress or 0.0), 3),
                "chunks": f.chunks,
                "access_level": level if readable else None,
                "error": (f.error if readable else "failed (details above your clearance)")
                if f.error
                else None,
                "attempts": f.attempts,
                "seconds": f.seconds,
                "hidden": not readable,
                "retryable": is_retryable(f),
            }
        )
    retryable = job.state == "failed" and any(is_retryable(f) for f in files)
    view: dict[str, Any] = {
        "job_id": job.id,
        "kind": job.kind,
        "state": job.state,
        "created_by": job.created_by,
        "created_at": job.created_at.isoformat() if job.created_at else None,
        "started_at": job.started_at.isoformat() if job.started_at else None,
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
        "seconds": (
            round((job.finished_at - job.started_at).total_seconds(), 2)
            if job.finished_at and job.started_at
            else None
        ),
        "error": job.error,
        "files_total": len(files),
        "files_done": sum(1 for f in shown if f["progress"] >= 1.0 and f["state"] != "running"),
        "progress": round(progress / len(files), 4) if files else 1.0,
        "counts": counts,
        "chunks": sum(f.chunks for f in files if f.state in ("indexed", "unchanged")),
        # A retry can only help a file that did not fail by its own fault (``ingest.faults``).
        "retryable": retryable,
        "can_retry": retryable,
        "can_cancel": job.state == "queued",
    }
    view.update(pace(job.started_at, job.finished_at or utcnow(), view["progress"], view["chunks"]))
    if with_files:
        view["files"] = shown
    return view


def list_jobs(
    session: Session, user: CurrentUser, levels: Sequence[str], limit: int = 50
) -> list[dict[str, Any]]:
    query = select(Job).order_by(Job.created_at.desc()).limit(limit)
    if not user.has_role("operator"):
        query = query.where(Job.created_by == user.username)
    return [
        job_view(session, user, job, levels, with_files=True)
        for job in session.execute(query).scalars()
    ]
