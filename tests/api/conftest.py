"""One app over a real ingested corpus (bundled model, Qdrant local mode, SQLite), shared by
the API tests; each user signs in with a real API token."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api.app import create_app
from docent.settings import Settings
from docent.wiring import Services
from tests.api.corpus import ingest_corpus, make_users, write_corpus


@dataclass
class WebhookServer:
    """A real HTTP server on 127.0.0.1 that records every JSON body POSTed to it."""

    url: str
    received: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture(scope="session")
def webhook() -> Iterator[WebhookServer]:
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the http.server API
            length = int(self.headers.get("Content-Length", "0"))
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield WebhookServer(f"http://127.0.0.1:{server.server_port}/hook", received)
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class ApiEnv:
    services: Services
    app: FastAPI
    client: TestClient
    tokens: dict[str, str]
    corpus: Path

    def as_user(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}

    def get(self, name: str | None, path: str, **kw: Any) -> Any:
        headers = {**(self.as_user(name) if name else {}), **kw.pop("headers", {})}
        return self.client.get(path, headers=headers, **kw)

    def post(self, name: str | None, path: str, **kw: Any) -> Any:
        headers = {**(self.as_user(name) if name else {}), **kw.pop("headers", {})}
        return self.client.post(path, headers=headers, **kw)

    def wait_job(self, job_id: str, timeout: float = 60.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            job = self.get("admin", f"/api/jobs/{job_id}").json()
            if job["state"] in ("succeeded", "failed", "cancelled"):
                return job
            if time.monotonic() > deadline:
                raise AssertionError(f"job {job_id} still {job['state']}")
            time.sleep(0.1)


def build_settings(data_dir: Path, **overrides: Any) -> Settings:
    data_dir.mkdir(parents=True, exist_ok=True)
    return Settings(_env_file=None, env="test", data_dir=data_dir, **overrides)  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def api_env(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any, webhook: WebhookServer
) -> Iterator[ApiEnv]:
    root = tmp_path_factory.mktemp("api")
    settings = build_settings(root / "data", max_upload_mb=1, handoff_webhook_url=webhook.url)
    services = Services(settings, embedder=bundled_embedder)
    corpus = write_corpus(root / "corpus")
    ingest_corpus(services, corpus)
    tokens = make_users(services)
    app = create_app(services)
    with TestClient(app, raise_server_exceptions=False) as client:
        yield ApiEnv(services, app, client, tokens, corpus)
    services.close()


@pytest.fixture
def env(api_env: ApiEnv) -> ApiEnv:
    return api_env


@pytest.fixture
def make_env(tmp_path: Path, hashing_embedder: Any) -> Iterator[Callable[..., ApiEnv]]:
    """A fresh, empty app over its own data dir (for settings that differ per test)."""
    made: list[Services] = []

    def make(**overrides: Any) -> ApiEnv:
        settings = build_settings(tmp_path / f"data{len(made)}", **overrides)
        services = Services(settings, embedder=hashing_embedder)
        made.append(services)
        tokens = make_users(services)
        app = create_app(services)
        client = TestClient(app, raise_server_exceptions=False)
        return ApiEnv(services, app, client, tokens, tmp_path)

    yield make
    for services in made:
        services.close()


PROJECT_LOGGERS = ("docent", "api", "generate", "retrieval", "ingest")


class LogLines(logging.Handler):
    """Every record the project's loggers write (they do not all propagate to caplog's
    root), each as its message and its attributes."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage() + " " + repr(record.__dict__))

    def text(self) -> str:
        return "\n".join(self.lines)


@pytest.fixture
def docent_logs() -> Iterator[LogLines]:
    handler = LogLines()
    loggers = [logging.getLogger(name) for name in PROJECT_LOGGERS]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
