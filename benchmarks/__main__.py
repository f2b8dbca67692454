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
from typing import Any

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


def ingest_table(r: dict[str, Any]) -> str:
    return "\n".join(
        [
            "| measure | value |",
            "|---|---|",
            f"| sample corpus | {r['files']} files, {r['chunks']} chunks, "
            f"{r['sentence_units']} sentence units |",
            f"| ingest end to end (warm) | {r['ingest_s']} s = **{r['ingest_chunks_per_s']} "
            "chunks/s** |",
            f"| raw embedding, chunk texts | {r['raw_embed_chunks_per_s']} chunks/s |",
            f"| raw embedding, sentence units | {r['raw_embed_units_per_s']} units/s |",
            f"| **ingest / raw chunk embedding** | **{r['ratio_ingest_to_raw_chunks']}** |",
            f"| embedding (chunks + units) share of ingest time | "
            f"{r['embedding_share_of_ingest']:.1%} |",
            f"| peak RSS | {r['peak_rss_mib']:.0f} MiB |",
            f"| load average (1 min) at the end | {r['load_avg']} |",
        ]
    )


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
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    counts = [int(q) for q in args.queries.split(",")]
    if len(counts) != len(scales):
        parser.error("--queries needs one count per scale")

    started = time.perf_counter()
    out = [f"Docent benchmarks ({os.cpu_count()} CPUs; a shared machine: orders of magnitude)"]
    if not args.skip_ingest:
        print("ingest benchmark…", file=sys.stderr, flush=True)
        out += ["", "## Ingest throughput", "", ingest_table(child("benchmarks.ingest_bench"))]
    results = []
    for n, q in zip(scales, counts, strict=True):
        print(f"query benchmark at {n:,} chunks…", file=sys.stderr, flush=True)
        results.append(child("benchmarks.query_bench", "--chunks", str(n), "--queries", str(q)))
    print("index write on disk at 1,000 chunks…", file=sys.stderr, flush=True)
    disk = child("benchmarks.query_bench", "--chunks", "1000", "--queries", "5", "--on-disk")
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
