"""A real ``docent serve`` (embedded defaults: SQLite, local Qdrant, inline ingest) killed
with SIGKILL in the middle of an upload's job: started again, it resumes the job, and every
file ends indexed exactly once — no chunk lost, none duplicated."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.users import add_user, issue_token
from docent.db.session import session_scope
from docent.wiring import Services
from tests.api.conftest import build_settings
from tests.ingest.pipeline_support import write_doc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DOCENT = str(Path(sys.executable).parent / "docent")
FILES = 5


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, data_dir: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.env = {
            **os.environ,
            "DOCENT_DATA_DIR": str(data_dir),
            "DOCENT_ENV": "test",
            "DOCENT_PORT": str(self.port),
            "DOCENT_LOG_LEVEL": "INFO",
        }
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("a") as out:
            self.proc = subprocess.Popen(
                [DOCENT, "serve"],
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        wait_for("the server to answer", self._up, 180, self.log)

    def _up(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_for(what: str, predicate: Any, timeout: float, log: Path) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}; server log:\n{log.read_text()[-3000:]}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[Server, str]]:
    data_dir = tmp_path / "data"
    services = Services(build_settings(data_dir))
    with session_scope(services.sessions) as db:
        add_user(db, "eddie", clearance="employee", levels=services.settings.access_levels,
                 roles=("editor", "operator"))  # fmt: skip
        token = issue_token(db, "eddie", "tests")
    services.close()
    srv = Server(data_dir, tmp_path / "serve.log")
    try:
        yield srv, token
    finally:
        srv.stop()


def test_a_server_killed_mid_upload_resumes_the_job_and_duplicates_nothing(
    server: tuple[Server, str], tmp_path: Path
) -> None:
    srv, token = server
    auth = {"Authorization": f"Bearer {token}"}
    files = []
    for n in range(FILES):
        path = write_doc(tmp_path / "up" / f"rules-{n}.md", f"Rules {n}", 40, seed=n)
        files.append(("files", (path.name, path.read_bytes(), "text/markdown")))
    srv.start()
    response = httpx.post(f"{srv.url}/api/documents", headers=auth, files=files, timeout=60)
    assert response.status_code == 202, response.text
    job_id = response.json()["job_id"]

    def job() -> dict[str, Any]:
        return httpx.get(f"{srv.url}/api/jobs/{job_id}", headers=auth, timeout=30).json()

    def one_done_one_not() -> dict[str, Any] | None:
        view = job()
        states = [f["state"] for f in view["files"]]
        return (
            view if "indexed" in states and ("running" in states or "pending" in states) else None
        )

    wait_for("the job to be part done", one_done_one_not, 300, srv.log)
    srv.kill()

    srv.start()  # the same data dir: the job is found unfinished and run again

    def finished() -> dict[str, Any] | None:
        view = job()
        return view if view["state"] in ("succeeded", "failed") else None

    view = wait_for("the resumed job to finish", finished, 400, srv.log)
    assert view["state"] == "succeeded", view["files"]
    assert [f["state"] for f in view["files"]] == ["indexed"] * FILES
    assert any(f["attempts"] >= 2 for f in view["files"])  # the interrupted one ran again
    assert "resuming an interrupted ingest job" in srv.log.read_text()
    srv.stop()

    after = Services(build_settings(tmp_path / "data"))
    try:
        ids = [
            c.chunk_id
            for s in (f"rules-{n}.md" for n in range(FILES))
            for c in after.index.chunks_of(s)
        ]
        assert len(ids) == len(set(ids)) == after.index.count()
        rows = {d["source"]: d["chunk_count"] for d in after.ingestor.documents()}
        assert set(rows) == {f"rules-{n}.md" for n in range(FILES)}
        assert sum(rows.values()) == after.index.count()
    finally:
        after.close()
