"""Fixtures every test package shares: settings over a temporary data dir, real PostgreSQL
and Redis, the bundled model (loaded once), and the sample corpus."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# fp32 in tests unless a test says otherwise: 'auto' times a calibration on every fresh data
# dir (10-20 s each on a CPU with native bf16); tests/ingest/test_precision.py covers 'auto'.
os.environ.setdefault("DOCENT_EMBEDDING_BF16", "false")

from docent.settings import Settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = ROOT / "examples" / "policies"
TEST_OUTPUT = ROOT / "test-output"
PG_ADMIN_URL = os.environ.get(
    "DOCENT_TEST_PG_ADMIN", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("DOCENT_TEST_REDIS", "redis://127.0.0.1:6379/14")
# How long a test database may still show connections once its test ended (terminated
# backends and stopped worker processes take a moment to leave) before they count as leaked.
PG_CLOSE_GRACE_S = 10.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that need a real Qdrant server run only when DOCENT_TEST_QDRANT_URL names one;
    otherwise they are deselected (not skipped: they cannot run on a machine without it)."""
    if os.environ.get("DOCENT_TEST_QDRANT_URL"):
        return
    keep = [item for item in items if item.get_closest_marker("qdrant_server") is None]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    path = tmp_path / "data"
    path.mkdir()
    return path


@pytest.fixture
def settings(data_dir: Path) -> Settings:
    """Embedded defaults over a fresh data dir; ``.env`` files are not read in tests."""
    return Settings(_env_file=None, env="test", data_dir=data_dir)  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def bundled_embedder():  # type: ignore[no-untyped-def]
    from ingest.embedding import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder("bundled")


@pytest.fixture
def hashing_embedder():  # type: ignore[no-untyped-def]
    from tests.ingest.hashing_embedder import HashingEmbedder

    return HashingEmbedder(256)


@pytest.fixture
def sample_corpus() -> Path:
    return SAMPLE_CORPUS


@pytest.fixture
def test_output() -> Path:
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database on the local server, dropped afterwards.

    A connection to it still open when the test ends fails the test: an engine the test never
    disposed, or a session never closed. (``DROP … WITH (FORCE)`` would cut it off anyway, and
    the connection object would then warn only when collected, in whichever later test.)"""
    from sqlalchemy import create_engine, text

    name = f"docent_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    left_open: list[tuple[str, str]] = []
    try:
        yield PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
        left_open = _connections_left_open(admin, name)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
    assert not left_open, f"connections to the test database left open (state, query): {left_open}"


def _connections_left_open(admin: Any, name: str) -> list[tuple[str, str]]:
    """The sessions still connected to database ``name``, after a few seconds' grace: a
    backend that was terminated, or a worker process that was stopped, leaves on its own."""
    from sqlalchemy import text

    deadline = time.monotonic() + PG_CLOSE_GRACE_S
    while True:
        with admin.connect() as conn:
            rows = conn.execute(
                text("SELECT state, query FROM pg_stat_activity WHERE datname = :db"),
                {"db": name},
            ).all()
        if not rows or time.monotonic() > deadline:
            return [(str(state), str(query)[:200]) for state, query in rows]
        time.sleep(0.1)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, data_dir: Path) -> str:
    """Run a test on both SQLite (the embedded default) and real PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{data_dir / 'test.sqlite3'}"
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A real Redis database, flushed before and after."""
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    client.flushdb()
    try:
        yield REDIS_URL
    finally:
        client.flushdb()
        client.close()
