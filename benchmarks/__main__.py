"""``python -m benchmarks``: ingest throughput vs raw embedding, then query latency per stage
at 1k / 10k / 50k synthetic chunks, each in its own process; prints one table.

Bounded: the query count falls as the index grows (Qdrant local mode is a brute-force scan
in Python), so the whole run stays around ten minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

STAGES = ("bm25", "embed", "vector", "fuse", "rerank", "total")


def child(module: str, *args: str) -> dict[str, Any]:
    """Run ``python -m module args`` and parse the JSON object it prints last."""
    env = {**os.environ, "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, env=env, check=False
    )
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.splitlines()[-15:])
        raise SystemExit(f"{module} {' '.join(args)} failed ({done.returncode}):\n{tail}")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


CORPORA = ROOT / ".." / "shared" / "corpora"
# A subset of ../shared/corpora that keeps a run to a few minutes on 2 busy cores: every
# Basecamp page and every format variant (docx, pdf, html of pages from all three sources).
CORPORA_SUBSET = "basecamp-handbook,formats"


def ingest_rows() -> list[dict[str, Any]]:
    """The sample corpus, and the subset of ../shared/corpora when it is there."""
    rows = [child("benchmarks.ingest_bench")]
    corpora = CORPORA.resolve()
    if (corpora / "MANIFEST.csv").is_file():
        rows.append(
            child("benchmarks.ingest_bench", "--corpus", str(corpora), "--paths", CORPORA_SUBSET)
        )
    return rows


def ingest_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| corpus | files | chunks | texts embedded | ingest | chunks/s | raw embedding "
        "| embed share | precision | peak RSS | load |",
        "|---" * 11 + "|",
    ]
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['files']} | {r['chunks']} | {r['units_embedded']} "
            f"| {r['ingest_s']} s | {r['chunks_per_s']} | {r['raw_embed_s']} s "
            f"| {r['embed_share']:.2f} | {r['precision']} | {r['peak_rss_mib']} MiB "
            f"| {r['load_avg']} |"
        )
    return "\n".join(lines)


def query_table(results: list[dict[str, Any]]) -> str:
    head = " | ".join(f"{s} p50 / p95" for s in STAGES)
    lines = [
        f"| chunks | queries | {head} | embed, first sight p50 / p95 | settle | index write "
        "| BM25 build | peak RSS | load |",
        "|---" * (len(STAGES) + 8) + "|",
    ]
    for r in results:
        cells = " | ".join(f"{r['p50'][s]:.0f} / {r['p95'][s]:.0f}" for s in STAGES)
        cold = r["embed_first_sight"]
        lines.append(
            f"| {r['chunks']:,} | {r['queries']} | {cells} | {cold[0]:.0f} / {cold[1]:.0f} "
            f"| {r['settle_s']} s "
            f"| {r['upsert_s']} s "
            f"| {r['keyword_build_ms'] / 1000:.1f} s | {r['peak_rss_mib']:.0f} MiB "
            f"| {r['load_avg']} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1000,10000,50000")
    parser.add_argument("--queries", default="50,30,15", help="queries per scale")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--skip-query", action="store_true")
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per row instead of tables"
    )
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    counts = [int(q) for q in args.queries.split(",")]
    if len(counts) != len(scales):
        parser.error("--queries needs one count per scale")

    started = time.perf_counter()
    out = [f"Docent benchmarks ({os.cpu_count()} CPUs; a shared machine: orders of magnitude)"]
    rows: list[dict[str, Any]] = []
    if not args.skip_ingest:
        print("ingest benchmark…", file=sys.stderr, flush=True)
        rows = ingest_rows()
        out += ["", "## Ingest throughput", "", ingest_table(rows)]
    if args.json:
        for row in rows:
            print(json.dumps({"benchmark": "ingest", **row}))
    if args.skip_query:
        if not args.json:
            print("\n".join(out))
        return 0
    results = []
    for n, q in zip(scales, counts, strict=True):
        print(f"query benchmark at {n:,} chunks…", file=sys.stderr, flush=True)
        results.append(child("benchmarks.query_bench", "--chunks", str(n), "--queries", str(q)))
    print("index write on disk at 1,000 chunks…", file=sys.stderr, flush=True)
    disk = child("benchmarks.query_bench", "--chunks", "1000", "--queries", "5", "--on-disk")
    if args.json:
        for result in results:
            print(json.dumps({"benchmark": "query", **result}))
        return 0
    out += [
        "",
        "## Query latency per retrieval stage (ms), employee asker, Qdrant local mode in memory",
        "",
        query_table(results),
        "",
        "Qdrant local mode scans every point in Python (no HNSW): the vector leg grows "
        "linearly with the index. For comparison, writing 1,000 points to local mode *on "
        f"disk* took {disk['upsert_s']} s ({1000 / max(disk['upsert_s'], 1e-9):.0f} points/s; "
        f"in memory: {results[0]['upsert_s']} s at {results[0]['chunks']:,}) and its query "
        f"total p50 was "
        f"{disk['p50']['total']:.0f} ms.",
        "",
        f"total run time {time.perf_counter() - started:.0f} s",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
