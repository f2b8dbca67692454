"""``python -m benchmarks.load``: a real ``docent serve`` on the embedded defaults (SQLite,
local Qdrant, inline ingest, bundled model) over the sample policies, under 16 concurrent
askers for 60 s — answerable, out-of-corpus and over-level questions from
``evals/cases/sample.jsonl`` — while an editor uploads 20 files one by one.

Prints one JSON object (requests, requests/s, p50/p95 latency, errors, leaks, the uploads'
jobs) and a Markdown table. Bounded in time (``--seconds``) and count (``--uploads``). A leak
is any over-level case's expected text in a response to the employee asker.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
DOCENT = str(Path(sys.executable).parent / "docent")
STRATA = ("answerable", "out_of_corpus", "permission")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _cases() -> tuple[list[dict[str, Any]], list[str]]:
    rows = [json.loads(x) for x in (ROOT / "evals/cases/sample.jsonl").read_text().splitlines()]
    cases = [r for r in rows if r["stratum"] in STRATA and r["user_access"] == "employee"]
    canaries = [e for r in cases if r["stratum"] == "permission" for e in r["expect"] if len(e) > 4]
    return cases, canaries


def _upload_file(n: int) -> tuple[str, bytes]:
    lines = [f"# Load policy {n}", ""]
    for s in range(6):
        lines += [f"## Part {s + 1}", ""]
        lines += [
            f"Item {n}.{s}.{k}: form {n * 31 + s * 7 + k} is filed in {k + 2} days."
            for k in range(4)
        ]
        lines.append("")
    return f"load-{n:02d}.md", "\n".join(lines).encode()


def _users(env: dict[str, str]) -> dict[str, str]:
    from api.users import add_user, issue_token
    from docent.db.session import session_scope
    from docent.settings import Settings
    from docent.wiring import open_services

    settings = Settings(_env_file=None, data_dir=Path(env["DOCENT_DATA_DIR"]))  # type: ignore[call-arg]
    services = open_services(settings)
    tokens = {}
    with session_scope(services.sessions) as db:
        for name, roles in (("load-asker", ("asker",)), ("load-editor", ("editor",))):
            add_user(db, name, clearance="employee", levels=settings.access_levels, roles=roles)
            tokens[name] = issue_token(db, name, "load")
    services.close()
    return tokens


def run(seconds: float, askers: int, uploads: int) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="docent-load-"))
    port = _free_port()
    env = {
        **os.environ,
        "DOCENT_DATA_DIR": str(work / "data"),
        "DOCENT_PORT": str(port),
        "DOCENT_LOG_LEVEL": "WARNING",
        "DO_NOT_TRACK": "1",
        "HF_HUB_OFFLINE": "1",
    }
    subprocess.run(
        [DOCENT, "ingest", str(ROOT / "examples/policies"), "--json"],
        env=env, check=True, capture_output=True, timeout=1800,
    )  # fmt: skip
    tokens = _users(env)
    log = (work / "serve.log").open("w")
    server = subprocess.Popen(
        [DOCENT, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.5)
        return _load(url, tokens, seconds, askers, uploads) | {"data_dir": str(work / "data")}
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        log.close()


@dataclass
class _Tally:
    """What the askers and the editor record, shared between their threads under ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    leaks: list[str] = field(default_factory=list)
    jobs: list[str] = field(default_factory=list)


def _load(
    url: str, tokens: dict[str, str], seconds: float, askers: int, uploads: int
) -> dict[str, Any]:
    cases, canaries = _cases()
    tally = _Tally()
    stop = time.monotonic() + seconds
    threads = [
        threading.Thread(
            target=_asker, args=(url, tokens["load-asker"], cases, canaries, stop, n, tally)
        )
        for n in range(askers)
    ]
    threads.append(
        threading.Thread(target=_editor, args=(url, tokens["load-editor"], uploads, seconds, tally))
    )
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    job_states = _wait_jobs(url, tokens["load-editor"], tally.jobs)
    ordered = sorted(tally.latencies)
    return {
        "askers": askers,
        "seconds": round(elapsed, 1),
        "requests": len(tally.latencies),
        "requests_per_s": round(len(tally.latencies) / elapsed, 2),
        "p50_ms": round(statistics.median(ordered) * 1000) if ordered else None,
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))] * 1000) if ordered else None,
        "errors": len(tally.errors),
        "error_samples": tally.errors[:5],
        "leaks": len(tally.leaks),
        "uploads": uploads,
        "jobs": job_states,
    }


def _asker(
    url: str,
    token: str,
    cases: list[dict[str, Any]],
    canaries: list[str],
    stop: float,
    seed: int,
    tally: _Tally,
) -> None:
    """One asker: random cases until ``stop``, each answer's latency, error and leaks."""
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        while time.monotonic() < stop:
            case = rng.choice(cases)
            started = time.perf_counter()
            try:
                response = client.post("/api/ask", json={"question": case["q"]})
                text, status = response.text, response.status_code
            except httpx.HTTPError as exc:
                text, status = type(exc).__name__, 0
            took = time.perf_counter() - started
            with tally.lock:
                tally.latencies.append(took)
                if status != 200:
                    tally.errors.append(f"{status} {text[:120]}")
                tally.leaks.extend(c for c in canaries if c in text)


def _editor(url: str, token: str, uploads: int, seconds: float, tally: _Tally) -> None:
    """The editor: ``uploads`` files one by one over the first 60 % of the run."""
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=url, headers=headers, timeout=120) as client:
        for n in range(uploads):
            name, body = _upload_file(n)
            response = client.post("/api/documents", files=[("files", (name, body))])
            with tally.lock:
                if response.status_code == 202:
                    tally.jobs.append(response.json()["job_id"])
                else:
                    tally.errors.append(f"upload {response.status_code} {response.text[:120]}")
            time.sleep(max(0.0, seconds * 0.6 / uploads))


def _wait_jobs(url: str, token: str, jobs: list[str]) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + 900
    with httpx.Client(base_url=url, headers=headers, timeout=60) as client:
        while True:
            views = [client.get(f"/api/jobs/{j}").json() for j in jobs]
            if all(v["state"] in ("succeeded", "failed") for v in views):
                break
            if time.monotonic() > deadline:
                break
            time.sleep(1)
    files = [f for v in views for f in v["files"]]
    return {
        "succeeded": sum(v["state"] == "succeeded" for v in views),
        "files_indexed": sum(f["state"] == "indexed" for f in files),
        "files": len(files),
    }


def check_index(data_dir: str, uploads: int) -> dict[str, Any]:
    """After the server stopped: each uploaded file indexed once (no duplicated chunk)."""
    from docent.settings import Settings
    from docent.wiring import open_services

    services = open_services(Settings(_env_file=None, data_dir=Path(data_dir)))  # type: ignore[call-arg]
    try:
        ids = [
            c.chunk_id for n in range(uploads) for c in services.index.chunks_of(_upload_file(n)[0])
        ]
        rows = {d["source"]: d["chunk_count"] for d in services.ingestor.documents()}
        expected = sum(rows.get(_upload_file(n)[0], 0) for n in range(uploads))
        return {"upload_chunks": len(ids), "unique": len(set(ids)), "registry": expected}
    finally:
        services.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--askers", type=int, default=16)
    parser.add_argument("--uploads", type=int, default=20)
    args = parser.parse_args()
    result = run(args.seconds, args.askers, args.uploads)
    result["index"] = check_index(result.pop("data_dir"), args.uploads)
    print(json.dumps(result))
    jobs = result["jobs"]
    print(
        "\n| askers | seconds | requests | req/s | p50 ms | p95 ms | errors | leaks | upload jobs "
        "| files indexed | chunks (unique / registry) |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
        f"| {result['askers']} | {result['seconds']} | {result['requests']} | "
        f"{result['requests_per_s']} | {result['p50_ms']} | {result['p95_ms']} | "
        f"{result['errors']} | {result['leaks']} | {jobs['succeeded']}/{args.uploads} | "
        f"{jobs['files_indexed']}/{jobs['files']} | {result['index']['upload_chunks']} "
        f"({result['index']['unique']} / {result['index']['registry']}) |"
    )


if __name__ == "__main__":
    main()
