"""Concurrent askers over HTTP: ``docent serve`` on a data dir of N synthetic chunks (the
embedded Qdrant Edge index), then ``--askers`` threads each posting ``/api/ask`` in turn.

    python -m benchmarks.http_load --chunks 50000 --askers 8 --requests 80 --seconds 300

Bounded in count and time; talks only to 127.0.0.1. Prints one JSON object: requests,
errors, throughput, p50/p95 latency, the server's peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def build_data_dir(data_dir: Path, n_chunks: int) -> str:
    """Synthetic chunks in the embedded index, the version bumped, an asker with a token."""
    from api.users import add_user, issue_token
    from benchmarks.synthetic import corpus_sentences, embed_pool, synthetic_corpus
    from docent.db.session import session_scope
    from docent.db.state import bump_index_version
    from docent.settings import Settings
    from docent.wiring import open_services
    from store.edge import EdgeIndex

    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    services = open_services(settings)
    try:
        sentences = corpus_sentences(ROOT / "examples" / "policies")
        pool = embed_pool(services.embedder, sentences)
        chunks, vectors, units = synthetic_corpus(n_chunks, sentences, pool)
        for i in range(0, n_chunks, 1000):
            services.index.upsert(chunks[i : i + 1000], vectors[i : i + 1000], units[i : i + 1000])
        if isinstance(services.index, EdgeIndex):
            services.index.wait_optimized()
            services.index.optimize()
        with session_scope(services.sessions) as db:
            bump_index_version(db)
            add_user(db, "bench", clearance="employee", levels=settings.access_levels)
            return issue_token(db, "bench", "load")
    finally:
        services.close()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))]


def load(port: int, token: str, askers: int, requests: int, seconds: float) -> dict[str, Any]:
    import httpx

    from benchmarks.query_bench import questions

    qs = questions(requests)
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    next_index = [0]
    deadline = time.monotonic() + seconds

    def worker() -> None:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            while time.monotonic() < deadline:
                with lock:
                    if next_index[0] >= len(qs):
                        return
                    q = qs[next_index[0]]
                    next_index[0] += 1
                started = time.perf_counter()
                try:
                    response = client.post(
                        "/api/ask",
                        json={"question": q},
                        headers={"Authorization": f"Bearer {token}"},
                    )
                    ok = response.status_code == 200
                    detail = f"HTTP {response.status_code}"
                except httpx.HTTPError as exc:
                    ok, detail = False, type(exc).__name__
                took = (time.perf_counter() - started) * 1000.0
                with lock:
                    if ok:
                        latencies.append(took)
                    else:
                        errors.append(detail)

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(askers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    return {
        "askers": askers,
        "requests": len(latencies) + len(errors),
        "errors": len(errors),
        "error_kinds": sorted(set(errors)),
        "throughput_per_s": round(len(latencies) / wall, 2),
        "p50_ms": round(percentile(latencies, 50), 1),
        "p95_ms": round(percentile(latencies, 95), 1),
        "wall_s": round(wall, 1),
    }


def server_rss_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 0)
    except OSError:
        pass
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=50_000)
    parser.add_argument("--askers", type=int, default=8)
    parser.add_argument("--requests", type=int, default=80)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--port", type=int, default=18765)
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="docent-load-") as tmp:
        data_dir = Path(tmp) / "data"
        token = build_data_dir(data_dir, args.chunks)
        env = {
            **os.environ,
            "DOCENT_DATA_DIR": str(data_dir),
            "DOCENT_HOST": "127.0.0.1",
            "DOCENT_PORT": str(args.port),
            "DOCENT_LOG_LEVEL": "WARNING",
        }
        log_file = (Path(tmp) / "serve.log").open("w")
        server = subprocess.Popen(
            [sys.executable, "-c", "from docent.cli import main; main()", "serve"],
            env=env,
            cwd=tmp,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            import httpx

            for _ in range(600):  # the server warms the model and the keyword index first
                try:
                    if httpx.get(f"http://127.0.0.1:{args.port}/healthz", timeout=2).is_success:
                        break
                except httpx.HTTPError:
                    time.sleep(0.5)
            # Warm-up (model, keyword index), not timed.
            load(args.port, token, 1, 2, 120.0)
            result = load(args.port, token, args.askers, args.requests, args.seconds)
            result["chunks"] = args.chunks
            result["server_peak_rss_mib"] = server_rss_mib(server.pid)
            result["load_avg"] = round(os.getloadavg()[0], 1)
        finally:
            server.terminate()
            server.wait(timeout=60)
            log_file.close()
        if result["errors"]:
            lines = (Path(tmp) / "serve.log").read_text().splitlines()
            result["server_log_tail"] = [ln[:300] for ln in lines if "200" not in ln][-8:]
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
