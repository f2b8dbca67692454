"""``docent ingest``, ``docent docs list|show`` and ``docent worker`` as a user runs them:
real subprocesses over a fresh data dir, ``--json`` output, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.ingest.pipeline_support import BAD, copy_sample

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DOCENT = str(Path(sys.executable).parent / "docent")
# ``ingest --json`` prints the job as the API does (``ingest.jobs.job_json``); these among it.
SUMMARY_KEYS = {"documents", "chunks", "skipped", "errors", "index_version", "seconds", "files"}


def _docent(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [DOCENT, *args], env=env, capture_output=True, text=True, timeout=600, check=False
    )


def _json(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.stdout.strip(), result.stderr
    return json.loads(result.stdout)


def _one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DOCENT_")}
    return {**clean, "DOCENT_DATA_DIR": str(tmp_path / "data"), "DOCENT_ENV": "test"}


def test_ingest_reingest_and_show_through_the_cli(env: dict[str, str], tmp_path: Path) -> None:
    corpus = copy_sample(tmp_path / "c", ["pricing.md", "pricing-2023.md", "refunds.md"])
    manifest = corpus / "MANIFEST.csv"
    # pricing-2023 is superseded through --superseded-by, not the manifest, here.
    manifest.write_text(manifest.read_text().replace(",pricing.md,", ",,"))

    first = _docent(env, "ingest", str(corpus), "--manifest", str(manifest), "--json")
    assert first.returncode == 0, first.stderr
    summary = _json(first)
    assert SUMMARY_KEYS <= set(summary)
    assert (summary["documents"], summary["skipped"], summary["errors"]) == (3, 0, [])
    assert summary["index_version"] == 3 and summary["chunks"] > 3

    again = _json(_docent(env, "ingest", str(corpus), "--manifest", str(manifest), "--json"))
    assert (again["documents"], again["skipped"], again["index_version"]) == (3, 3, 3)
    assert again["chunks"] == summary["chunks"]

    remark = _docent(
        env,
        "ingest",
        str(corpus / "pricing-2023.md"),
        "--manifest",
        str(manifest),
        "--superseded-by",
        str(corpus / "pricing.md"),
        "--json",
    )
    assert remark.returncode == 0, remark.stderr
    assert _json(remark)["index_version"] == 4

    listed = _json(_docent(env, "docs", "list", "--json"))["documents"]
    assert [d["source"] for d in listed] == ["pricing-2023.md", "pricing.md", "refunds.md"]
    assert {d["source"]: d["status"] for d in listed}["pricing-2023.md"] == "superseded"

    shown = _json(_docent(env, "docs", "show", "pricing.md", "--json"))
    assert set(shown) == {"document", "chunks"}  # as GET /api/documents/{id}
    assert shown["document"]["access_level"] == "public"
    chunk_keys = {"id", "source", "heading_path", "kind", "status", "access_level"}
    chunk_keys |= {"effective", "text"}
    assert all(set(c) == chunk_keys for c in shown["chunks"])
    tables = [c for c in shown["chunks"] if c["kind"] == "table"]
    assert tables and tables[0]["heading_path"] == ["Pricing", "Plans at a glance"]
    assert "| Team |" in tables[0]["text"] or "Team" in tables[0]["text"]
    old = _json(_docent(env, "docs", "show", "pricing-2023.md", "--json"))
    assert {c["status"] for c in old["chunks"]} == {"superseded"}

    human = _docent(env, "docs", "show", "refunds.md")
    assert human.returncode == 0 and "refunds.md#0" in human.stdout
    # Unset fields read "-" and lists as words, not Python's None and reprs.
    assert "groups: -" in human.stdout and "superseded_by: -" in human.stdout
    assert "None" not in human.stdout and "[]" not in human.stdout


def test_bad_files_exit_1_and_still_print_the_json(env: dict[str, str], tmp_path: Path) -> None:
    result = _docent(env, "ingest", str(BAD / "notes.xyz"), str(BAD / "empty.md"), "--json")
    assert result.returncode == 1
    summary = _json(result)
    assert SUMMARY_KEYS <= set(summary)
    assert summary["documents"] == 0 and summary["index_version"] == 0
    assert {e["source"] for e in summary["errors"]} == {"notes.xyz", "empty.md"}
    assert all(e["reason"] for e in summary["errors"])
    human = _docent(env, "ingest", str(BAD / "notes.xyz"))
    assert human.returncode == 1
    assert "failed: notes.xyz: unsupported file type .xyz" in human.stderr


def test_faults_are_one_clear_line(env: dict[str, str], tmp_path: Path) -> None:
    _one_line_error(_docent(env, "docs", "show", "nope.md"), "no indexed document", "nope.md")
    _one_line_error(
        _docent(env, "ingest", str(BAD), "--access-level", "top-secret"),
        "access level 'top-secret'",
    )
    _one_line_error(_docent(env, "ingest", str(BAD), "--effective", "31/31/2024"), "31/31/2024")
    empty = tmp_path / "nothing"
    empty.mkdir()
    _one_line_error(_docent(env, "ingest", str(empty)), "no files to ingest")
    _one_line_error(_docent(env, "worker"), "DOCENT_BROKER_URL")
    broker = {**env, "DOCENT_BROKER_URL": "redis://127.0.0.1:6379/14"}
    _one_line_error(_docent(broker, "worker", "--concurrency", "2"), "--concurrency 1")
    assert "one process" in _docent(env, "worker", "--help").stdout


def _on_a_terminal(env: dict[str, str], *args: str) -> tuple[int, str]:
    """Run ``docent`` with stdout on a pseudo-terminal; return its exit code and output."""
    import pty

    leader, follower = pty.openpty()
    run = subprocess.Popen(
        [DOCENT, *args],
        env={**env, "COLUMNS": "160", "TERM": "xterm"},
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is gone
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    return run.wait(timeout=600), b"".join(chunks).decode(errors="replace")


def test_a_terminal_gets_a_progress_bar_and_json_mode_gets_only_json(
    env: dict[str, str], tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["refunds.md", "pricing.md"])
    code, shown = _on_a_terminal(env, "ingest", str(corpus))
    assert code == 0, shown
    assert "2/2" in shown and "chunks/s" in shown and "ETA" in shown
    assert "embedding precision: " in shown  # the choice, once, above the bar
    assert "2 documents (0 unchanged)" in shown

    env = {**env, "DOCENT_DATA_DIR": str(tmp_path / "other")}
    code, shown = _on_a_terminal(env, "ingest", str(corpus), "--json")
    assert code == 0, shown
    assert "chunks/s" not in shown and "embedding precision" not in shown
    assert json.loads(shown.strip())["documents"] == 2


def test_a_broker_that_does_not_answer_still_prints_the_job(
    env: dict[str, str], tmp_path: Path
) -> None:
    """A user pass: with the broker down, `ingest --json` printed nothing, and nothing said
    which job failed or what to do."""
    corpus = copy_sample(tmp_path / "c", ["pricing.md"])
    down = {**env, "DOCENT_BROKER_URL": "redis://127.0.0.1:1/0"}  # nothing listens there
    result = _docent(down, "ingest", str(corpus), "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    job = _json(result)
    assert job["state"] == "failed" and job["documents"] == 0
    assert [e["source"] for e in job["errors"]] == ["pricing.md"]
    assert "start the broker" in job["errors"][0]["reason"]
    assert f"job {job['job_id']}: once the broker answers, retry the job" in result.stderr
    assert any(line.startswith("error: ") for line in result.stderr.splitlines())
