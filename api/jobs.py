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
from api.visibility import can_read
from docent.db.models import Job
from docent.db.session import session_scope
from docent.errors import NotFound
from docent.wiring import Services
from ingest.jobs import job_json, unfinished_job_ids

log = logging.getLogger("docent.api.jobs")


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


def job_view(
    session: Session, user: CurrentUser, job: Job, levels: Sequence[str]
) -> dict[str, Any]:
    """The job (``ingest.jobs.job_json``) as this user may see it."""

    def may_read(level: str | None, groups: Sequence[str]) -> bool:
        # A file not yet (or never) registered has no known level: default deny, except to
        # whoever submitted it and to admins.
        if level is None:
            return user.is_admin or job.created_by == user.username
        return can_read(user, level, groups, levels)

    return job_json(session, job, may_read)


def list_jobs(
    session: Session, user: CurrentUser, levels: Sequence[str], limit: int = 50
) -> list[dict[str, Any]]:
    query = select(Job).order_by(Job.created_at.desc()).limit(limit)
    if not user.has_role("operator"):
        query = query.where(Job.created_by == user.username)
    return [job_view(session, user, job, levels) for job in session.execute(query).scalars()]
