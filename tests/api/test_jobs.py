"""Ingest jobs for operators: progress per file, errors, retry, cancel, reindex; the files
of a job above the viewer's clearance are shown without name or error."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from tests.api.conftest import ApiEnv
from tests.api.test_documents import upload

BROKEN_DOCX = b"PK\x03\x04 this is not really a word document"


def test_a_file_that_can_never_succeed_is_not_offered_a_retry(env: ApiEnv) -> None:
    response = upload(
        env, "eddie", [("broken.docx", BROKEN_DOCX), ("fine.md", b"# Fine\n\nAll fine.\n")]
    )
    job = env.wait_job(response.json()["job_id"])
    assert job["state"] == "failed"
    assert job["retryable"] is False and job["can_retry"] is False  # a corrupt file stays so
    files = {f["source"]: f for f in job["files"]}
    assert files["broken.docx"]["state"] == "failed" and files["broken.docx"]["error"]
    assert files["broken.docx"]["retryable"] is False
    assert files["fine.md"]["state"] == "indexed" and files["fine.md"]["error"] is None
    listed = {j["job_id"]: j for j in env.get("otto", "/api/jobs").json()["jobs"]}
    assert listed[job["job_id"]]["files"][0]["error"]

    assert env.post("eddie", f"/api/jobs/{job['job_id']}/retry").status_code == 403
    refused = env.post("otto", f"/api/jobs/{job['job_id']}/retry")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "conflict"
    assert "fix the file and upload it again" in refused.json()["error"]["message"]
    again = env.get("otto", f"/api/jobs/{job['job_id']}").json()
    assert again["state"] == "failed" and again["files"][0]["attempts"] == 1  # not run again


def test_a_file_a_retry_can_fix_is_retried(make_env: Callable[..., ApiEnv]) -> None:
    # No disk has a petabyte to spare: the write is refused as a full disk would be.
    env = make_env(min_free_disk_mb=10**9)
    response = upload(env, "eddie", [("desk.md", b"# Desks\n\nHot desks: first come.\n")])
    job = env.wait_job(response.json()["job_id"])
    assert job["state"] == "failed", job
    (desk,) = job["files"]
    assert "disk is nearly full" in desk["error"] and desk["retryable"] is True
    assert job["retryable"] is True and job["can_retry"] is True

    assert env.post("eddie", f"/api/jobs/{job['job_id']}/retry").status_code == 403
    retried = env.post("otto", f"/api/jobs/{job['job_id']}/retry")
    assert retried.status_code == 202
    again = env.wait_job(job["job_id"])
    assert again["state"] == "failed" and again["files"][0]["attempts"] == 2


def test_only_a_failed_job_can_be_retried_and_only_a_queued_one_cancelled(env: ApiEnv) -> None:
    done = upload(
        env, "eddie", [("desk.md", b"# Desks\n\nHot desks are first come, first served.\n")]
    )
    job_id = done.json()["job_id"]
    env.wait_job(job_id)
    assert env.post("otto", f"/api/jobs/{job_id}/retry").status_code == 409
    assert env.post("otto", f"/api/jobs/{job_id}/cancel").status_code == 409

    folder = env.services.settings.data_dir / "queued"
    folder.mkdir(exist_ok=True)
    (folder / "later.md").write_text("# Later\n\nNot yet.\n")
    queued = env.services.ingestor.submit([folder / "later.md"], root=folder, created_by="otto")
    assert env.get("otto", f"/api/jobs/{queued}").json()["can_cancel"] is True
    cancelled = env.post("otto", f"/api/jobs/{queued}/cancel")
    assert cancelled.status_code == 200
    job = env.get("otto", f"/api/jobs/{queued}").json()
    assert job["state"] == "cancelled" and job["files"][0]["state"] == "cancelled"
    assert env.post("otto", "/api/jobs/nope/cancel").status_code == 404


def test_people_see_their_own_jobs_operators_see_all(env: ApiEnv) -> None:
    response = upload(env, "eddie", [("plants.md", b"# Plants\n\nWater them on Mondays.\n")])
    job_id = response.json()["job_id"]
    env.wait_job(job_id)
    mine = env.get("eddie", f"/api/jobs/{job_id}")
    assert mine.status_code == 200
    for moment in ("created_at", "started_at", "finished_at"):  # with their UTC offset
        assert datetime.fromisoformat(mine.json()[moment]).utcoffset() == timedelta(0)
    assert env.get("ada", f"/api/jobs/{job_id}").status_code == 404
    assert job_id not in {j["job_id"] for j in env.get("ada", "/api/jobs").json()["jobs"]}
    assert job_id in {j["job_id"] for j in env.get("otto", "/api/jobs").json()["jobs"]}


def test_a_file_above_the_operators_clearance_is_shown_without_name_or_error(
    env: ApiEnv,
) -> None:
    response = upload(
        env, "carla", [("board-minutes.docx", BROKEN_DOCX)], access_level="confidential"
    )
    job_id = response.json()["job_id"]
    env.wait_job(job_id)
    as_otto = env.get("otto", f"/api/jobs/{job_id}").json()
    hidden = as_otto["files"][0]
    assert hidden["hidden"] is True and "board-minutes" not in str(as_otto)
    assert hidden["error"] == "failed (details above your clearance)"
    page = env.get("otto", "/jobs", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "board-minutes" not in page.text
    as_carla = env.get("carla", f"/api/jobs/{job_id}").json()
    assert as_carla["files"][0]["source"] == "board-minutes.docx"


def env_with_documents(make_env: Callable[..., ApiEnv], count: int = 3) -> ApiEnv:
    """A fresh app with ``count`` small documents indexed (reindexing it disturbs no one)."""
    fresh = make_env()
    folder = fresh.services.settings.data_dir / "docs"
    folder.mkdir()
    for n in range(count):
        (folder / f"note-{n}.md").write_text(f"# Note {n}\n\nNote {n} says hello.\n")
    job_id = fresh.services.ingestor.submit([folder], root=folder, created_by="otto")
    fresh.services.ingestor.run(job_id)
    return fresh


def test_reindex_all_runs_as_a_job(make_env: Callable[..., ApiEnv]) -> None:
    fresh = env_with_documents(make_env)
    response = fresh.post("otto", "/api/reindex")
    assert response.status_code == 202
    job = fresh.wait_job(response.json()["job_id"], timeout=120)
    assert job["kind"] == "reindex" and job["state"] == "succeeded", job
    assert job["files_total"] == 3
    assert [f["state"] for f in job["files"]] == ["indexed"] * 3, job["files"]


def test_jobs_page_polls_the_json_api(env: ApiEnv) -> None:
    page = env.get("otto", "/jobs", headers={"Accept": "text/html"})
    assert 'data-live="/api/jobs"' in page.text and 'id="jobs-initial"' in page.text
    assert Path(env.app.state.templates.env.loader.searchpath[0]).name == "templates"


def test_a_file_of_unknown_level_is_hidden_except_from_its_submitter_and_admins(
    env: ApiEnv,
) -> None:
    """A file that failed before its metadata was read has no known level: default deny."""
    folder = env.services.settings.data_dir / "cli-batch"
    folder.mkdir(exist_ok=True)
    (folder / "merger-terms.docx").write_bytes(BROKEN_DOCX)
    job_id = env.services.ingestor.submit([folder], root=folder, created_by="someone-at-a-shell")
    env.services.ingestor.run(job_id)

    seen_by_operator = env.get("otto", f"/api/jobs/{job_id}").json()["files"][0]
    assert seen_by_operator["hidden"] is True
    assert "merger-terms" not in str(seen_by_operator)
    seen_by_admin = env.get("admin", f"/api/jobs/{job_id}").json()["files"][0]
    assert seen_by_admin["source"] == "merger-terms.docx" and seen_by_admin["error"]


def test_an_operator_sees_no_name_of_a_file_outside_their_groups_or_raised_above_them(
    make_env: Callable[..., ApiEnv],
) -> None:
    """A job's file is named to a viewer only when they are in every audience it has had:
    the groups its upload gave it (kept with the job, registered or not) and its document's
    level now (a later upload may have raised it). Found by a red-team read: an operator saw
    a group-only file's name while it was queued or had failed, and the name of a document
    raised above them in the job that first uploaded it."""
    env = make_env()
    # It fails in the job (not a real Word file), after the upload was accepted.
    plan = upload(env, "eddie", [("layoffs-q3-plan.docx", BROKEN_DOCX)], groups="People Ops")
    memo = b"# Bonus Memo\n\n## Bonus pool\n\nThe bonus pool is 7 percent of payroll.\n"
    first = upload(env, "eddie", [("memo.md", memo)], access_level="employee")
    jobs = {"plan": plan.json()["job_id"], "memo": first.json()["job_id"]}
    assert env.wait_job(jobs["plan"])["state"] == "failed"
    assert env.wait_job(jobs["memo"])["state"] == "succeeded"

    def names(who: str, job_id: str) -> list[str]:
        return [f["source"] for f in env.get(who, f"/api/jobs/{job_id}").json()["files"]]

    # Both are named to otto (employee, no groups) and eddie before: the test can fail both ways.
    assert names("otto", jobs["memo"]) == ["memo.md"]
    assert names("eddie", jobs["plan"]) == ["layoffs-q3-plan.docx"]
    raised = upload(env, "carla", [("memo.md", memo)], access_level="confidential")
    assert env.wait_job(raised.json()["job_id"])["state"] == "succeeded"
    for who, job_id in (("otto", jobs["plan"]), ("otto", jobs["memo"])):
        shown = env.get(who, f"/api/jobs/{job_id}").text
        assert "layoffs" not in shown and "memo.md" not in shown, (who, job_id)
        listed = env.get(who, "/api/jobs").text
        assert "layoffs" not in listed and "memo.md" not in listed
    assert names("admin", jobs["memo"]) == ["memo.md"]  # withheld, not lost
