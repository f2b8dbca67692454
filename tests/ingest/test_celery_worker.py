"""A real ``docent worker`` (Celery prefork, concurrency 1) on real Redis and PostgreSQL:
its child is killed with SIGKILL in the middle of a file, and the job still completes with
exactly the chunks a clean run writes — none lost, none duplicated. Then ``docent ingest``
with the broker set submits to that worker and waits for it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from docent.settings import Settings
from docent.wiring import Services
from tests.ingest.pipeline_support import make_services, snapshot, write_doc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DOCENT = str(Path(sys.executable).parent / "docent")
FILES = 4


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _wait_for(what: str, predicate: Any, timeout: float, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}; worker log:\n{log.read_text()[-3000:]}")


def _corpus(folder: Path) -> Path:
    for n in range(FILES):
        # Long enough (~80 sections to embed) that a file is still running when it is killed.
        write_doc(folder / f"policy-{n}.md", f"Policy {n}", 80, seed=n)
    return folder


def _chunk_ids(services: Services) -> list[str]:
    return sorted(p["chunk_id"] for p in snapshot(services).values())


def test_a_worker_child_killed_mid_file_loses_and_duplicates_nothing(
    settings: Settings, pg_url: str, redis_url: str, bundled_embedder: Any, tmp_path: Path
) -> None:
    corpus = _corpus(tmp_path / "corpus")

    # The clean run: inline, in this process, over its own data dir.
    clean_settings = settings.model_copy(update={"data_dir": tmp_path / "clean"})
    clean = make_services(clean_settings, None, bundled_embedder)
    try:
        job = clean.ingestor.submit([corpus])
        clean.ingestor.run(job)
        assert clean.ingestor.job_status(job)["state"] == "succeeded"
        expected = _chunk_ids(clean)
    finally:
        clean.close()

    data_dir = tmp_path / "worker-data"
    env = {
        **os.environ,
        "DOCENT_DATA_DIR": str(data_dir),
        "DOCENT_DATABASE_URL": pg_url,
        "DOCENT_BROKER_URL": redis_url,
        "DOCENT_BROKER_VISIBILITY_TIMEOUT_S": "60",
        "DOCENT_ENV": "test",
    }
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [DOCENT, "worker", "--concurrency", "1", "--loglevel", "INFO"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    # This process only submits and watches (DB and Redis); the worker owns the index.
    watcher = Services(
        settings.model_copy(
            update={"data_dir": data_dir, "database_url": pg_url, "broker_url": redis_url}
        )
    )
    try:
        ingestor = watcher.ingestor
        assert ingestor.uses_workers
        job_id = ingestor.submit([corpus])
        ingestor.run(job_id)

        def second_file_running() -> dict[str, Any] | None:
            files = ingestor.job_status(job_id)["files"]
            running = [f for f in files if f["state"] == "running" and f["attempts"] == 1]
            done = sum(f["state"] == "indexed" for f in files)
            return running[0] if running and done >= 1 else None

        _wait_for("a second file to start", second_file_running, 240, log)
        time.sleep(0.3)  # into the file's work: partition, chunk, embed
        children = _children(worker.pid)
        assert len(children) == 1, children
        # The file running at the moment of the kill (read again: the first may have ended).
        victim = _wait_for("a file to be running", second_file_running, 60, log)
        os.kill(children[0], signal.SIGKILL)

        def finished() -> dict[str, Any] | None:
            status = ingestor.job_status(job_id)
            return status if status["state"] in ("succeeded", "failed") else None

        status = _wait_for("the job to finish", finished, 300, log)
        assert status["state"] == "succeeded", status["errors"]
        files = {f["source"]: f for f in status["files"]}
        assert files[victim["source"]]["attempts"] >= 2  # it was delivered again
        assert _children(worker.pid) != children  # a new child took over
        assert "SIGKILL" in log.read_text()

        # `docent ingest` with a broker submits to the worker and waits for it.
        more = tmp_path / "more"
        write_doc(more / "extra.md", "Extra", 2, seed=99)
        cli = subprocess.run(
            [DOCENT, "ingest", str(more), "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert cli.returncode == 0, cli.stderr
        summary = json.loads(cli.stdout)
        assert summary["documents"] == 1 and summary["errors"] == []
        assert summary["index_version"] == FILES + 1
    finally:
        watcher.close()
        os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()

    # The worker is gone: open its index and compare with the clean run.
    after = make_services(
        settings.model_copy(update={"data_dir": data_dir}), pg_url, bundled_embedder
    )
    try:
        ids = _chunk_ids(after)
        extra = [c for c in ids if c.startswith("extra.md#")]
        assert [c for c in ids if not c.startswith("extra.md#")] == expected
        assert len(extra) >= 1
        assert after.index.count() == len(expected) + len(extra)
        rows = {d["source"]: d["chunk_count"] for d in after.ingestor.documents()}
        assert sum(rows.values()) == after.index.count()
    finally:
        after.close()
