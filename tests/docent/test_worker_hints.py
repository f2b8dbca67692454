"""What `docent ingest` tells someone watching a job the workers run (a user pass: a job
whose queued tasks a restarted Redis lost sat "running" for ever, with nothing said)."""

from __future__ import annotations

from docent.commands.ingest import QUEUED_HINT_S, STALLED_HINT_S, worker_hint


def test_a_job_no_worker_takes_asks_whether_one_runs() -> None:
    assert worker_hint("j1", "queued", QUEUED_HINT_S - 1, 0) is None
    hint = worker_hint("j1", "queued", QUEUED_HINT_S + 1, QUEUED_HINT_S + 1)
    assert hint is not None and "docent worker" in hint and "j1" in hint


def test_a_running_job_that_stopped_moving_says_what_resumes_it() -> None:
    assert worker_hint("j2", "running", 600, STALLED_HINT_S - 1) is None
    hint = worker_hint("j2", "running", 600, 180)
    assert hint is not None and "has not moved for 3 min" in hint
    assert "may still be embedding" in hint and "persistence" in hint
    assert "run `docent ingest` on the same files again" in hint


def test_a_finished_job_needs_no_hint() -> None:
    for state in ("succeeded", "failed", "cancelled"):
        assert worker_hint("j3", state, 10_000, 10_000) is None
