"""Liveness, readiness and Prometheus metrics. The probes stay open and say only ``ok`` or
``unavailable``; what each check found, and the metrics, are for the monitoring system's
token or an operator (anonymous: 401, without the role: 403)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from docent.settings import Settings
from docent.wiring import Services
from tests.api.conftest import ApiEnv

TOKEN = "metrics-token-for-the-tests"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_healthz_and_readyz_when_all_is_up(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(metrics_token=TOKEN)
    assert env.client.get("/healthz").json() == {"status": "ok"}
    ready = env.client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ok"}  # nothing else, anonymously
    body = env.client.get("/readyz", headers=BEARER).json()
    assert body["status"] == "ok" and body["down"] == []
    assert set(body["checks"]) == {"database", "index", "broker"}
    # A signed-in operator sees the same; anyone else, or a wrong token, the anonymous view.
    assert set(env.get("otto", "/readyz").json()) == {"status", "down", "checks"}
    assert env.get("ada", "/readyz").json() == {"status": "ok"}
    wrong = env.client.get("/readyz", headers={"Authorization": "Bearer not-the-token"})
    assert (wrong.status_code, wrong.json()) == (200, {"status": "ok"})


def test_readyz_names_a_broker_that_is_down(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(broker_url=f"redis://127.0.0.1:{closed_port()}/0", metrics_token=TOKEN)
    ready = env.client.get("/readyz")
    assert (ready.status_code, ready.json()) == (503, {"status": "unavailable"})
    ready = env.client.get("/readyz", headers=BEARER)
    assert ready.status_code == 503
    assert ready.json()["down"] == ["broker"]
    assert ready.json()["checks"]["broker"]["status"].startswith("down: ")


def test_readyz_with_a_real_broker(make_env: Callable[..., ApiEnv], redis_url: str) -> None:
    env = make_env(broker_url=redis_url)
    assert env.get("otto", "/readyz").json()["checks"]["broker"]["status"] == "ok"


def test_readyz_names_a_database_that_is_down(tmp_path: Path, hashing_embedder: object) -> None:
    port = closed_port()
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        env="test",
        data_dir=tmp_path,
        database_url=f"postgresql+psycopg://postgres:hunter2@127.0.0.1:{port}/docent",
        metrics_token=TOKEN,
    )
    services = Services(settings, embedder=hashing_embedder)  # type: ignore[arg-type]
    try:
        client = TestClient(create_app(services), raise_server_exceptions=False)
        assert client.get("/healthz").status_code == 200
        anonymous = client.get("/readyz")
        assert (anonymous.status_code, anonymous.json()) == (503, {"status": "unavailable"})
        # The token is checked before any user: it needs no database.
        ready = client.get("/readyz", headers=BEARER)
        assert ready.status_code == 503 and ready.json()["down"] == ["database"]
        assert "docent_ask_seconds" in client.get("/metrics", headers=BEARER).text
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
    env = make_env(metrics_token=TOKEN)
    text = env.client.get("/metrics", headers=BEARER).text
    assert "# TYPE docent_ask_stage_seconds histogram" in text
    assert 'docent_ingest_jobs{state="failed"} 0.0' in text
    assert "docent_documents_indexed 0.0" in text
    assert (
        env.client.get("/metrics", headers=BEARER).headers["content-type"].startswith("text/plain")
    )


def test_metrics_need_the_token_or_an_operator(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(metrics_token=TOKEN)
    anonymous = env.client.get("/metrics")
    assert anonymous.status_code == 401
    assert anonymous.json()["error"]["code"] == "unauthenticated"
    assert "docent_" not in anonymous.text
    wrong = env.client.get("/metrics", headers={"Authorization": "Bearer wrong-token"})
    assert wrong.status_code == 401 and "docent_" not in wrong.text
    assert env.get("ada", "/metrics").status_code == 403  # signed in, not an operator
    for who in ("otto", "admin"):
        assert "docent_ask_seconds" in env.get(who, "/metrics").text
    # A browser is not sent to sign in for a machine's route: the same 401.
    browser = env.client.get("/metrics", headers={"Accept": "text/html"}, follow_redirects=False)
    assert browser.status_code == 401


def test_without_a_token_metrics_are_for_operators_only(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()  # the default settings: no metrics token
    assert env.client.get("/metrics").status_code == 401
    assert env.client.get("/metrics", headers={"Authorization": "Bearer "}).status_code == 401
    assert env.get("otto", "/metrics").status_code == 200
