"""No vendor text leaves the process: each adapter's real failure (a vector index another
instance holds, a Redis nobody listens for, a PostgreSQL that refuses the connection) reaches
HTTP as a fixed message with the request id, and the vendor's text only reaches the log."""

from __future__ import annotations

import re
import socket
from collections.abc import Callable
from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from docent.wiring import Services
from tests.api.conftest import ApiEnv, LogLines, build_settings
from tests.api.test_documents import GOOD, upload

# What a vendor's message carries that a body must not: hosts, ports, paths, SQL, class names.
FORBIDDEN = re.compile(
    r"127\.0\.0\.1|localhost|postgres|psycopg|redis://|SELECT |/tmp/|\.sqlite|qdrant"
    r"|already accessed|refused|traceback",
    re.IGNORECASE,
)
CLASS_NAME = re.compile(r"\b[A-Z]\w*(Error|Exception)\b")
# /readyz names what is down (by class) only to the monitoring system's token.
METRICS_TOKEN = "metrics-token-for-the-tests"
METRICS = {"Authorization": f"Bearer {METRICS_TOKEN}"}


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def assert_ours(text: str, *also: str, class_names: bool = False) -> None:
    """No vendor text in ``text``; ``class_names=True`` lets an exception's class name stand
    (``/readyz`` names what failed by its type, which carries no host, path or payload)."""
    found = FORBIDDEN.search(text) or (None if class_names else CLASS_NAME.search(text))
    assert found is None, f"vendor text {found.group(0)!r} in {text}"
    for word in also:
        assert word not in text


def test_a_vector_index_held_by_another_instance(
    make_env: Callable[..., ApiEnv], hashing_embedder: object, docent_logs: LogLines
) -> None:
    env = make_env()
    holder = Services(env.services.settings, embedder=hashing_embedder)  # type: ignore[arg-type]
    try:
        holder.index.count()  # this instance now holds the index's lock
        asked = env.post("ada", "/api/ask", json={"question": "Where do bicycles go?"})
        assert asked.status_code == 503
        error = asked.json()["error"]
        assert error["message"] == "the vector index did not answer; try again shortly"
        assert error["request_id"] == asked.headers["X-Request-ID"]
        assert_ours(asked.text, str(env.services.settings.data_dir))
        # The vendor's own words are in the log, beside that request id.
        assert str(env.services.settings.data_dir) in docent_logs.text()
    finally:
        holder.close()


def test_a_redis_that_nobody_listens_for(
    make_env: Callable[..., ApiEnv], docent_logs: LogLines
) -> None:
    port = closed_port()
    env = make_env(broker_url=f"redis://127.0.0.1:{port}/0", metrics_token=METRICS_TOKEN)
    response = upload(env, "eddie", [("bikes.md", GOOD)])
    assert response.status_code == 202, response.text
    job = env.wait_job(response.json()["job_id"])
    assert job["state"] == "failed"
    assert [(f["source"], f["error"]) for f in job["files"]] == [
        (
            "bikes.md",
            "the ingest queue did not answer; nothing was indexed: start the broker, then retry",
        )
    ]
    for who in ("eddie", "otto", "admin"):
        assert_ours(env.get(who, f"/api/jobs/{job['job_id']}").text, str(port))
    ready = env.client.get("/readyz", headers=METRICS)
    assert ready.status_code == 503 and ready.json()["down"] == ["broker"]
    assert_ours(ready.text, str(port), class_names=True)
    assert str(port) in docent_logs.text()


def test_a_postgresql_that_refuses_the_connection(
    tmp_path: Path, hashing_embedder: object, docent_logs: LogLines
) -> None:
    port = closed_port()
    url = f"postgresql+psycopg://docent:hunter2@127.0.0.1:{port}/docent"
    settings = build_settings(tmp_path / "data", database_url=url, metrics_token=METRICS_TOKEN)
    services = Services(settings, embedder=hashing_embedder)  # type: ignore[arg-type]
    try:
        with TestClient(create_app(services), raise_server_exceptions=False) as client:
            for method, path in (("GET", "/api/documents"), ("POST", "/api/ask")):
                response = client.request(
                    method,
                    path,
                    headers={"Authorization": "Bearer not-checked-the-db-is-down"},
                    json={"question": "Where do bicycles go?"},
                )
                assert response.status_code == 503, response.text
                error = response.json()["error"]
                assert "did not answer" in error["message"]
                assert error["request_id"] == response.headers["X-Request-ID"]
                assert_ours(response.text, str(port), "hunter2", "docent:")
            ready = client.get("/readyz", headers=METRICS)
            assert ready.status_code == 503 and "database" in ready.json()["down"]
            assert_ours(ready.text, str(port), "hunter2", class_names=True)
    finally:
        services.close()
    assert str(port) in docent_logs.text()
    assert "hunter2" not in docent_logs.text()
