"""Redis stopped while a job is queued: its files fail with a reason that says to retry (no
vendor text), nothing is indexed; once Redis is back, a retry hands them to a real Celery
worker and the job completes with every file indexed once. The Redis is this test's own
``redis-server`` on a spare port, so it can be stopped and started."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from celery.contrib.testing.worker import start_worker

from docent.errors import Unavailable
from docent.settings import Settings
from docent.wiring import Services
from ingest.pipeline import QUEUE_DOWN
from ingest.tasks import QUEUE, make_celery
from tests.ingest.pipeline_support import copy_sample, snapshot

pytestmark = pytest.mark.integration

REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class OwnRedis:
    def __init__(self, folder: Path) -> None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = int(sock.getsockname()[1])
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.exceptions.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        self.proc = None


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[OwnRedis]:
    server = OwnRedis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_redis_stopped_while_a_job_is_queued_then_a_retry_completes_it(
    settings: Settings, bundled_embedder: Any, own_redis: OwnRedis, tmp_path: Path
) -> None:
    names = ["pricing.md", "refunds.md", "support.html"]
    corpus = copy_sample(tmp_path / "c", names)
    services = Services(
        settings.model_copy(update={"broker_url": own_redis.url}), embedder=bundled_embedder
    )
    try:
        services.index.ensure()
        ingestor = services.ingestor
        job_id = ingestor.submit([corpus])
        assert ingestor.job_status(job_id)["state"] == "queued"

        own_redis.stop()
        with pytest.raises(Unavailable):
            ingestor.run(job_id)
        status = ingestor.job_status(job_id)
        assert status["state"] == "failed"
        assert [(e["source"], e["reason"]) for e in status["errors"]] == [
            (n, QUEUE_DOWN) for n in sorted(names)
        ]
        assert snapshot(services) == {}

        own_redis.start()  # an empty Redis, as after a restart without persistence
        ingestor.retry(job_id)
        queued = redis.Redis.from_url(own_redis.url)
        try:
            assert queued.llen(QUEUE) == len(names)
        finally:
            queued.close()
        assert ingestor.job_status(job_id)["state"] == "queued"

        # A real Celery worker (in a thread of this process, sharing its index) takes them.
        app = make_celery(services.settings, services=lambda: services)
        with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=60):
            deadline = time.monotonic() + 240
            while ingestor.job_status(job_id)["state"] not in ("succeeded", "failed"):
                assert time.monotonic() < deadline, ingestor.job_status(job_id)
                time.sleep(0.2)
        status = ingestor.job_status(job_id)
        assert status["state"] == "succeeded", status["errors"]
        assert status["counts"] == {"indexed": len(names)}
        chunk_ids = [p["chunk_id"] for p in snapshot(services).values()]
        assert len(chunk_ids) == len(set(chunk_ids)) == status["chunks"]
        assert {d["source"] for d in ingestor.documents()} == set(names)
    finally:
        services.close()
