"""Jobs: the job/file state machine on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from docent.db.models import Job, JobFile
from docent.db.session import make_engine, migrate, session_factory, session_scope
from docent.errors import Conflict, NotFound
from ingest import jobs
from ingest.planning import PlannedFile


@pytest.fixture
def sessions(database_url: str):  # type: ignore[no-untyped-def]
    migrate(database_url)
    engine = make_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


def _job(sessions, tmp_path: Path, *, bad: bool = False) -> str:  # type: ignore[no-untyped-def]
    files = [
        PlannedFile("a.md", tmp_path / "a.md"),
        PlannedFile("b.md", tmp_path / "b.md"),
    ]
    if bad:
        files.append(PlannedFile("c.xyz", tmp_path / "c.xyz", "unsupported file type .xyz"))
    with session_scope(sessions) as session:
        return jobs.create_job(session, files, kind="ingest", params={}, created_by="ops")


def test_job_goes_queued_running_succeeded(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    job_id = _job(sessions, tmp_path)
    with session_scope(sessions) as session:
        assert jobs.status_of(session, job_id)["state"] == "queued"
        ids = jobs.pending_file_ids(session, job_id)
    for n, file_id in enumerate(ids):
        with session_scope(sessions) as session:
            task = jobs.claim_file(session, file_id)
            assert task is not None and task.job_id == job_id
            assert jobs.get_job(session, job_id).state == "running"
            jobs.set_progress(session, file_id, 0.5)
        with session_scope(sessions) as session:
            jobs.finish_file(session, file_id, state="indexed" if n == 0 else "unchanged", chunks=3)
            done = jobs.finish_job_if_done(session, job_id)
        assert done == (None if n == 0 else "succeeded")
    with session_scope(sessions) as session:
        status = jobs.status_of(session, job_id)
        assert jobs.claim_file(session, ids[0]) is None  # done files are never taken again
    assert status["state"] == "succeeded" and status["progress"] == 1.0
    assert (status["documents"], status["chunks"], status["skipped"]) == (2, 6, 1)
    assert [f["attempts"] for f in status["files"]] == [1, 1]
    assert all(f["seconds"] is not None and f["seconds"] >= 0 for f in status["files"])
    assert status["chunks_per_s"] is not None and status["chunks_per_s"] > 0
    assert status["eta_s"] == 0


def test_a_running_files_progress_never_falls_back(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A review: a batch that failed and was embedded again file by file reported each
    file's share afresh, from lower (0.76 fell to 0.63): its time left jumped up."""
    job_id = _job(sessions, tmp_path)
    with session_scope(sessions) as session:
        file_id = jobs.pending_file_ids(session, job_id)[0]
        jobs.claim_file(session, file_id)
    for share in (0.3, 0.76, 0.63, 0.9):
        with session_scope(sessions) as session:
            jobs.set_progress(session, file_id, share)
    with session_scope(sessions) as session:
        progress = [f["progress"] for f in jobs.status_of(session, job_id)["files"]]
    assert progress[0] == 0.9
    with session_scope(sessions) as session:
        jobs.set_progress(session, file_id, 0.5)
        assert jobs.status_of(session, job_id)["files"][0]["progress"] == 0.9


def test_pace_is_chunks_per_second_and_seconds_left_at_that_pace() -> None:
    start = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    now = start + timedelta(seconds=40)
    assert jobs.pace(start, now, 0.25, 100) == {"chunks_per_s": 2.5, "eta_s": 120}
    # SQLite gives back naive UTC; a job not started or not yet moving has no pace.
    assert jobs.pace(start.replace(tzinfo=None), now, 1.0, 10) == {"chunks_per_s": 0.25, "eta_s": 0}
    assert jobs.pace(None, now, 0.5, 10) == {"chunks_per_s": None, "eta_s": None}
    assert jobs.pace(start, now, 0.0, 0) == {"chunks_per_s": 0.0, "eta_s": None}


def test_a_retry_requeues_only_the_failed_files_a_retry_can_fix(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    job_id = _job(sessions, tmp_path, bad=True)
    with session_scope(sessions) as session:
        ids = jobs.pending_file_ids(session, job_id)
        assert len(ids) == 2  # the unsupported file failed at submit
        for file_id in ids:
            jobs.claim_file(session, file_id)
        jobs.finish_file(session, ids[0], state="indexed", chunks=1)
        # b.md: the database did not answer (a retry can fix it); c.xyz cannot be read at all.
        jobs.finish_file(session, ids[1], state="failed", error="db down", retryable=True)
        assert jobs.finish_job_if_done(session, job_id) == "failed"
    with session_scope(sessions) as session:
        status = jobs.status_of(session, job_id)
        assert status["errors"] == [
            {"source": "b.md", "reason": "db down", "retryable": True},
            {"source": "c.xyz", "reason": "unsupported file type .xyz", "retryable": False},
        ]
        assert status["retryable"] is True
        assert [f["retryable"] for f in status["files"]] == [False, True, False]
        assert status["error"] == "2 of 3 files failed"
        assert status["documents"] == 1  # the good file stays in
        requeued = jobs.requeue_failed(session, job_id)
    assert requeued == [ids[1]]
    with session_scope(sessions) as session:
        assert jobs.get_job(session, job_id).state == "queued"
        assert jobs.pending_file_ids(session, job_id) == requeued
        with pytest.raises(Conflict):
            jobs.requeue_failed(session, job_id)


def test_files_failed_by_their_own_fault_are_not_retried(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    job_id = _job(sessions, tmp_path, bad=True)
    with session_scope(sessions) as session:
        for n, file_id in enumerate(jobs.pending_file_ids(session, job_id)):
            jobs.claim_file(session, file_id)
            if n == 0:
                jobs.finish_file(session, file_id, state="indexed", chunks=1)
            else:
                jobs.finish_file(session, file_id, state="failed", error="corrupt", retryable=False)
        assert jobs.finish_job_if_done(session, job_id) == "failed"
    with session_scope(sessions) as session:
        assert jobs.status_of(session, job_id)["retryable"] is False
        with pytest.raises(Conflict, match="fix the file and upload it again"):
            jobs.requeue_failed(session, job_id)
        # A row that failed before the flag existed (NULL) is retried, as it was then.
        for row in jobs.job_files(session, job_id):
            if row.source == "b.md":
                row.retryable = None
    with session_scope(sessions) as session:
        assert jobs.status_of(session, job_id)["retryable"] is True
        assert len(jobs.requeue_failed(session, job_id)) == 1


def test_cancel_only_a_queued_job(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    job_id = _job(sessions, tmp_path)
    with session_scope(sessions) as session:
        jobs.cancel_job(session, job_id)
    with session_scope(sessions) as session:
        states = {f.state for f in session.scalars(select(JobFile).where(JobFile.job_id == job_id))}
        assert states == {"cancelled"}
        assert session.get(Job, job_id).state == "cancelled"  # type: ignore[union-attr]
        assert jobs.claim_file(session, jobs.job_files(session, job_id)[0].id) is None
    with session_scope(sessions) as session, pytest.raises(Conflict):
        jobs.cancel_job(session, job_id)


def test_a_file_left_running_by_a_dead_worker_is_taken_again(sessions, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    job_id = _job(sessions, tmp_path)
    with session_scope(sessions) as session:
        file_id = jobs.pending_file_ids(session, job_id)[0]
        jobs.claim_file(session, file_id)
    with session_scope(sessions) as session:
        assert file_id in jobs.pending_file_ids(session, job_id)
        task = jobs.claim_file(session, file_id)
        assert task is not None
        assert session.get(JobFile, file_id).attempts == 2  # type: ignore[union-attr]


def test_unknown_job_is_not_found(sessions) -> None:  # type: ignore[no-untyped-def]
    with session_scope(sessions) as session, pytest.raises(NotFound):
        jobs.status_of(session, "nope")
