"""Ingest jobs: list with per-file progress, retry a failed job, cancel a queued one, and
reindex everything (operators; editors see the jobs they started)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from api.deps import AnyUserDep, DbDep, OperatorDep, ServicesDep, SettingsDep
from api.jobs import get_visible_job, job_view, list_jobs, start
from api.ports import ingestor_of
from docent.errors import Conflict
from ingest.jobs import requeue_failed

router = APIRouter(tags=["jobs"])


@router.get("/api/jobs", summary="Recent ingest jobs (all for operators, own for others)")
def jobs(user: AnyUserDep, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    return {"jobs": list_jobs(db, user, settings.access_levels)}


@router.get("/api/jobs/{job_id}", summary="One job with its files")
def job(job_id: str, user: AnyUserDep, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    found = get_visible_job(db, user, job_id)
    return job_view(db, user, found, settings.access_levels)


@router.post("/api/jobs/{job_id}/retry", status_code=202, summary="Retry a failed job")
def retry(
    job_id: str, request: Request, user: OperatorDep, db: DbDep, services: ServicesDep
) -> dict[str, Any]:
    found = get_visible_job(db, user, job_id)
    if found.state != "failed":
        raise Conflict(f"job {job_id} is {found.state}; only a failed job can be retried")
    ingestor = ingestor_of(services)
    # Requeued here, so the job is "queued" when this answers (a watcher polling at once
    # saw the old "failed" before the runner thread got to it); then run off the request.
    requeue_failed(db, job_id)
    db.commit()
    start(request.app.state.job_runner, ingestor.run, job_id)
    return {"job_id": job_id, "state": "queued"}


@router.post("/api/jobs/{job_id}/cancel", summary="Cancel a queued job")
def cancel(job_id: str, user: OperatorDep, db: DbDep, services: ServicesDep) -> dict[str, Any]:
    get_visible_job(db, user, job_id)
    ingestor_of(services).cancel(job_id)
    return {"job_id": job_id, "state": "cancelled"}


@router.post("/api/reindex", status_code=202, summary="Re-read and re-embed every document")
def reindex(request: Request, user: OperatorDep, services: ServicesDep) -> dict[str, Any]:
    ingestor = ingestor_of(services)
    job_id = ingestor.reindex_all(created_by=user.username)
    start(request.app.state.job_runner, ingestor.run, job_id)
    return {"job_id": job_id, "state": "queued"}
