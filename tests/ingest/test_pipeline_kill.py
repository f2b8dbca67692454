"""``docent ingest`` killed with SIGKILL while files wait in a cross-file embedding batch: the
next run ends with exactly the points (ids and chunk ids) of a clean run, none lost, none
duplicated."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import OperationalError

from docent.db.models import JobFile
from docent.db.session import session_scope
from docent.settings import Settings
from tests.ingest.pipeline_support import make_services, snapshot, write_doc

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DOCENT = str(Path(sys.executable).parent / "docent")


def _env(data_dir: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
    # One precision for both runs, and no calibration to wait for.
    return {**clean, "DOCENT_DATA_DIR": str(data_dir), "DOCENT_ENV": "test",
            "DOCENT_EMBEDDING_BF16": "false"}  # fmt: skip


def _points(settings: Settings, data_dir: Path, embedder: Any) -> set[tuple[str, str]]:
    services = make_services(settings.model_copy(update={"data_dir": data_dir}), None, embedder)
    try:
        return {(pid, str(p["chunk_id"])) for pid, p in snapshot(services).items()}
    finally:
        services.close()


def _file_states(settings: Settings, data_dir: Path) -> list[tuple[str, float]]:
    services = make_services(settings.model_copy(update={"data_dir": data_dir}), None, None)
    try:
        with session_scope(services.sessions) as session:
            return [(f.state, f.progress) for f in session.scalars(select(JobFile))]
    except OperationalError:  # the writer holds SQLite's lock for a moment
        return []
    finally:
        services.close()


def test_a_run_killed_mid_batch_ends_with_the_chunk_ids_of_a_clean_run(
    settings: Settings, tmp_path: Path, bundled_embedder: Any
) -> None:
    corpus = tmp_path / "c"
    for n in range(10):  # ~400 distinct texts: two batches of files
        write_doc(corpus / f"p{n}.md", f"Policy {n}", 8, seed=n)
    clean, killed = tmp_path / "clean", tmp_path / "killed"

    done = subprocess.run(
        [DOCENT, "ingest", str(corpus), "--json"],
        env=_env(clean),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr

    run = subprocess.Popen(
        [DOCENT, "ingest", str(corpus), "--json"],
        env=_env(killed),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 300
        while True:
            states = _file_states(settings, killed)
            written = sum(1 for s, _ in states if s == "indexed")
            waiting = sum(1 for s, p in states if s == "running" and p >= 0.3)
            if written >= 1 and waiting >= 2:  # one batch written, the next one gathered
                os.kill(run.pid, signal.SIGKILL)
                break
            assert run.poll() is None, "ingest ended before it could be killed mid-batch"
            assert time.monotonic() < deadline, states
            time.sleep(0.1)
        run.wait(timeout=30)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == -signal.SIGKILL
    assert written < 10  # some files really were lost with the process

    again = subprocess.run(
        [DOCENT, "ingest", str(corpus), "--json"],
        env=_env(killed),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    expected = _points(settings, clean, bundled_embedder)
    assert len(expected) > 10
    assert _points(settings, killed, bundled_embedder) == expected
