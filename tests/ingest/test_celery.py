"""The Celery task: delivery settings on a real Redis broker, the same pipeline run through
the task (eager), retries of transient faults, and idempotent re-runs after a crash."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from celery.exceptions import Retry
from sqlalchemy import delete, update

from docent.db.models import Document, JobFile
from docent.db.session import session_scope
from docent.errors import ConfigError, Unavailable
from docent.settings import Settings
from docent.wiring import Services
from ingest.tasks import MAX_RETRIES, TASK_NAME, make_celery
from ingest.worker import default_concurrency, run_worker
from store.errors import IndexLocked
from store.lock import FolderLock, ensure_unlocked
from tests.ingest.pipeline_support import ingestor_over, snapshot, version, write_doc

pytestmark = pytest.mark.integration


def test_the_app_is_configured_for_at_least_once_delivery(
    settings: Settings, redis_url: str
) -> None:
    configured = settings.model_copy(
        update={"broker_url": redis_url, "broker_visibility_timeout_s": 123}
    )
    app = make_celery(configured)
    conf = app.conf
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    task = app.tasks[TASK_NAME]
    assert Unavailable in task.autoretry_for
    assert task.retry_backoff and task.max_retries == MAX_RETRIES
    # The visibility timeout reaches the real Redis transport, not just the config.
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1)
        assert conn.default_channel.visibility_timeout == 123


def test_without_a_broker_there_is_no_app_and_no_worker(settings: Settings) -> None:
    with pytest.raises(ConfigError, match="DOCENT_BROKER_URL"):
        make_celery(settings)
    with pytest.raises(ConfigError, match="DOCENT_BROKER_URL"):
        run_worker(settings, services=lambda: Services(settings), concurrency=None, loglevel="INFO")
    assert default_concurrency(settings) == 1  # local Qdrant: one process owns the folder
    with_broker = settings.model_copy(update={"broker_url": "redis://127.0.0.1:6379/14"})
    with pytest.raises(ConfigError, match="--concurrency 1"):
        run_worker(
            with_broker, services=lambda: Services(with_broker), concurrency=2, loglevel="INFO"
        )


def test_a_worker_on_an_embedded_index_another_process_holds_is_refused_at_start(
    settings: Settings,
) -> None:
    """A second `docent worker` on the embedded index started, then failed every task it
    took (a user pass): it is refused before it starts, naming the owner."""
    with_broker = settings.model_copy(update={"broker_url": "redis://127.0.0.1:6379/14"})
    settings.index_path.mkdir(parents=True, exist_ok=True)
    holder = FolderLock(settings.index_path)
    holder.acquire()
    try:
        with pytest.raises(IndexLocked, match=f"process {os.getpid()}"):
            run_worker(
                with_broker, services=lambda: Services(with_broker), concurrency=1, loglevel="INFO"
            )
    finally:
        holder.release()
    ensure_unlocked(settings.index_path)  # free again once its owner let go


def test_an_app_given_no_services_only_sends(settings: Settings) -> None:
    app = make_celery(settings, eager=True)  # as dispatch and the health check make it
    with pytest.raises(ConfigError, match="only sends ingest tasks"):
        app.tasks[TASK_NAME].delay(1)


def test_the_task_runs_the_same_pipeline_as_inline(services: Services, tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    for n in range(3):
        write_doc(corpus / f"doc{n}.md", f"Doc {n}", 2, seed=n)
    app = make_celery(services.settings, services=lambda: services, eager=True)
    sent: list[int] = []

    def dispatch(job_file_id: int) -> None:
        sent.append(job_file_id)
        app.tasks[TASK_NAME].delay(job_file_id)

    ingestor = ingestor_over(services, dispatch=dispatch)
    assert ingestor.uses_workers
    job_id = ingestor.submit([corpus])
    ingestor.run(job_id)
    status = ingestor.job_status(job_id)
    assert len(sent) == 3
    assert status["state"] == "succeeded" and status["documents"] == 3
    assert services.index.count() == status["chunks"] > 0
    # Delivered again (at-least-once): nothing changes.
    before, v_before = snapshot(services), version(services)
    for job_file_id in sent:
        assert app.tasks[TASK_NAME].delay(job_file_id).get()["state"] == "skipped"
    assert snapshot(services) == before and version(services) == v_before


def test_a_transient_fault_is_retried(settings: Settings) -> None:
    unreachable = settings.model_copy(
        update={"database_url": "postgresql+psycopg://postgres@127.0.0.1:9/nowhere"}
    )
    app = make_celery(unreachable, services=lambda: Services(unreachable), eager=True)
    with pytest.raises(Retry) as raised:
        app.tasks[TASK_NAME].delay(1)
    assert isinstance(raised.value.exc, Unavailable)
    assert "not reachable" in str(raised.value.exc) and "nowhere" in str(raised.value.exc)


def test_rerunning_a_file_whose_chunks_were_written_gives_the_same_chunk_set(
    services: Services, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    write_doc(corpus / "a.md", "Alpha", 4, seed=1)
    ingestor = services.ingestor
    job_id = ingestor.submit([corpus])
    ingestor.run(job_id)
    written = snapshot(services)
    file_id = ingestor.job_status(job_id)["files"][0]["id"]
    # The state a worker killed after the Qdrant write, before the DB commit, leaves:
    # points written, registry not, the file still running.
    with session_scope(services.sessions) as session:
        session.execute(delete(Document).where(Document.source == "a.md"))
        session.execute(update(JobFile).where(JobFile.id == file_id).values(state="running"))

    result = ingestor.run_file(file_id)

    assert result.state == "indexed" and result.change == "content"
    again = snapshot(services)
    assert set(again) == set(written)
    strip = {"index_version"}
    assert [{k: v for k, v in again[p].items() if k not in strip} for p in sorted(again)] == [
        {k: v for k, v in written[p].items() if k not in strip} for p in sorted(written)
    ]
    assert ingestor.job_status(job_id)["files"][0]["attempts"] == 2


@pytest.mark.integration
def test_a_broker_that_is_down_fails_the_job_clearly_and_touches_nothing(
    settings: Settings, bundled_embedder: Any, tmp_path: Path
) -> None:
    from tests.ingest.pipeline_support import copy_sample

    down = settings.model_copy(update={"broker_url": "redis://127.0.0.1:1/0"})
    services = Services(down, embedder=bundled_embedder)
    try:
        services.index.ensure()
        before, v_before = snapshot(services), version(services)
        corpus = copy_sample(tmp_path / "c", ["pricing.md", "refunds.md"])
        job_id = services.ingestor.submit([corpus])
        with pytest.raises(Unavailable, match=r"ingest queue at redis://127.0.0.1:1/0 did not"):
            services.ingestor.run(job_id)
        status = services.ingestor.job_status(job_id)
        assert status["state"] == "failed"
        assert {e["source"] for e in status["errors"]} == {"pricing.md", "refunds.md"}
        assert all("start the broker" in e["reason"] for e in status["errors"])
        assert snapshot(services) == before and version(services) == v_before
    finally:
        services.close()
