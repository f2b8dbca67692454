"""Liveness, readiness (naming what is down) and Prometheus metrics."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from docent.settings import Settings
from docent.wiring import Services
from tests.api.conftest import ApiEnv


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_healthz_and_readyz_when_all_is_up(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    assert env.client.get("/healthz").json() == {"status": "ok"}
    ready = env.client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ok" and body["down"] == []
    assert set(body["checks"]) == {"database", "index", "broker"}


def test_readyz_names_a_broker_that_is_down(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(broker_url=f"redis://127.0.0.1:{closed_port()}/0")
    ready = env.client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["down"] == ["broker"]
    assert ready.json()["checks"]["broker"]["status"].startswith("down: ")


def test_readyz_with_a_real_broker(make_env: Callable[..., ApiEnv], redis_url: str) -> None:
    env = make_env(broker_url=redis_url)
    assert env.client.get("/readyz").json()["checks"]["broker"]["status"] == "ok"


def test_readyz_names_a_database_that_is_down(tmp_path: Path, hashing_embedder: object) -> None:
    port = closed_port()
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        env="test",
        data_dir=tmp_path,
        database_url=f"postgresql+psycopg://postgres:hunter2@127.0.0.1:{port}/docent",
    )
    services = Services(settings, embedder=hashing_embedder)  # type: ignore[arg-type]
    try:
        client = TestClient(create_app(services), raise_server_exceptions=False)
        assert client.get("/healthz").status_code == 200
        ready = client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["down"] == ["database"]
        assert "docent_ask_seconds" in client.get("/metrics").text
        me = client.get("/api/me", headers={"Authorization": "Bearer dct_x_y"})
        assert me.status_code == 503
        assert me.json()["error"]["code"] == "unavailable"
        # Neither answer shows the database URL, its password, host or port: the 503 is a
        # fixed message with a request id (the vendor's text goes to the log only).
        for text in (me.text, ready.text):
            assert "hunter2" not in text and str(port) not in text and "127.0.0.1" not in text
        assert (
            me.json()["error"]["message"]
            == "a service we depend on did not answer; try again shortly"
        )
        assert me.json()["error"]["request_id"]
    finally:
        services.close()


def test_metrics_expose_jobs_and_documents(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    text = env.client.get("/metrics").text
    assert "# TYPE docent_ask_stage_seconds histogram" in text
    assert 'docent_ingest_jobs{state="failed"} 0.0' in text
    assert "docent_documents_indexed 0.0" in text
    assert env.client.get("/metrics").headers["content-type"].startswith("text/plain")
