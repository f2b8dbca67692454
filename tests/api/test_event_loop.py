"""Resolving the asker never blocks the event loop: with SQLite's write lock held elsewhere,
an authenticated request that must write (the token's last use) waits in a worker thread,
and every other request is still served. Before, the wait ran on the loop's own thread and
froze the whole server for up to 30 s (benchmarks/load.py: a burst of failures)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import text

from docent.db.session import session_scope
from tests.api.conftest import ApiEnv

FAST_S = 3.0  # /healthz answers in milliseconds; a blocked loop would hold it for 30 s


def test_a_request_waiting_for_the_database_does_not_stop_the_others(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    with session_scope(env.services.sessions) as session:
        session.execute(text("UPDATE api_tokens SET last_used_at = NULL"))  # the next use writes
    path = env.services.settings.resolved_database_url.removeprefix("sqlite:///")
    holder = sqlite3.connect(path, timeout=1, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the database
    waiting: dict[str, object] = {}
    # One client, entered: every request runs on the one event loop, as under `docent serve`.
    with TestClient(env.app, raise_server_exceptions=False) as client:

        def me() -> None:
            waiting["status"] = client.get("/api/me", headers=env.as_user("ada")).status_code

        asker = threading.Thread(target=me)
        try:
            asker.start()
            time.sleep(0.5)  # the asker is now waiting for the write lock
            started = time.monotonic()
            health = client.get("/healthz")
            elapsed = time.monotonic() - started
            assert health.status_code == 200
            assert elapsed < FAST_S, f"/healthz took {elapsed:.1f} s behind a database wait"
        finally:
            holder.execute("ROLLBACK")
            holder.close()
            asker.join(timeout=60)
    assert waiting["status"] == 200  # and the waiting request completes once the lock is free
