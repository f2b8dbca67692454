"""``python -m benchmarks [--json]``: retrieval, ``ask`` and vector-leg latency, write rate,
HNSW and BM25 build times and peak RSS per index size (1k / 10k / 50k synthetic chunks by
default; add 200000 to ``--scales`` where the machine allows) on the embedded Qdrant Edge
index, with the old engine (qdrant-client local mode) at 1k / 10k as a second row for the
ratio; and ingest throughput on the sample corpus and a subset of ../shared/corpora (when
it is there) against the same embedder's raw rate on exactly the texts ingest embedded.
Each measurement runs in its own process, bounded by ``--child-timeout``; a size that fails
or overruns is reported as not measured. ``--skip-ingest`` / ``--skip-query`` leave a part
out.
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

from benchmarks.machine import cpu_kind, cpu_model_and_flags

ROOT = Path(__file__).resolve().parents[1]


def child(module: str, *args: str, timeout: int = 1800) -> dict[str, Any]:
    """Run ``python -m module args`` and parse the JSON object it prints last."""
    env = {**os.environ, "DO_NOT_TRACK": "1", "HF_HUB_OFFLINE": "1", "PYTHONWARNINGS": "ignore"}
    try:
        done = subprocess.run(
            [sys.executable, "-m", module, *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise SystemExit(f"{module} {' '.join(args)} overran {timeout} s") from exc
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
        "| embed share | CPU (flags) | encoder (precision) | peak RSS | load |",
        "|---" * 12 + "|",
    ]
    for r in rows:
        lines.append(
            f"| {r['corpus']} | {r['files']} | {r['chunks']} | {r['units_embedded']} "
            f"| {r['ingest_s']} s | {r['chunks_per_s']} | {r['raw_embed_s']} s "
            f"| {r['embed_share']:.2f} | {r['cpu']} ({', '.join(r.get('cpu_flags', []))}) "
            f"| {r.get('encoder', 'torch')} ({r['precision']}) | {r['peak_rss_mib']} MiB "
            f"| {r['load_avg']} |"
        )
    return "\n".join(lines)


def engine_table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| chunks | engine | CPU (flags) | query encoder (precision) | queries "
        "| retrieval p50 / p95 | ask p50 / p95 | embed / rerank p50 "
        "| rerank stage p50, evidence / reranker's order (one process) | vector p50 / p95 "
        "| writes (points/s) | HNSW build | BM25 build | peak RSS | load (1 min) |",
        "|---:|---|---|---|---:|---|---|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        hnsw = f"{r['optimize_s']} s" if r.get("optimize_s") is not None else "—"
        lines.append(
            f"| {r['chunks']:,} | {r['engine']} "
            f"| {r['cpu']} ({', '.join(r['cpu_flags'])}) "
            f"| {r['query_encoder']} ({r['precision']}) | {r['queries']} "
            f"| {r['retrieval_p50_ms']:.0f} / {r['retrieval_p95_ms']:.0f} "
            f"| {r['ask_p50_ms']:.0f} / {r['ask_p95_ms']:.0f} "
            f"| {r['p50']['embed']:.1f} / {r['p50']['rerank']:.1f} | {_orders(r)} "
            f"| {r['vector_p50_ms']:.1f} / {r['vector_p95_ms']:.1f} "
            f"| {r['write_points_per_s']:,} | {hnsw} | {r['keyword_build_ms'] / 1000:.1f} s "
            f"| {r['peak_rss_mib']:.0f} MiB | {r['load_avg']} |"
        )
    return "\n".join(lines)


def _orders(row: dict[str, Any]) -> str:
    """The order's own cost, both orders timed in one process (``compare_orders``)."""
    orders = row.get("orders") or {}
    if not orders:
        return "—"
    return f"{orders['evidence']['rerank']:.1f} / {orders['rerank']['rerank']:.1f}"


def main(argv: list[str] | None = None) -> int:
    args, plan = _arguments(argv)
    started = time.perf_counter()
    cpu, flags = cpu_model_and_flags()
    report: dict[str, Any] = {
        "cpu": cpu,
        "cpu_flags": flags,
        "cpu_kind": cpu_kind(flags),
        "cpus": os.cpu_count(),
        "load_avg_start": [round(x, 1) for x in os.getloadavg()],
        "rows": [],
        "failed": [],
    }
    for engine, n, q in sorted(plan, key=lambda p: (p[1], p[0] != "edge")):
        _query_row(report, engine, n, q, args)
    if not args.skip_ingest:
        print("ingest benchmark…", file=sys.stderr, flush=True)
        report["ingest"] = ingest_rows()
    report["load_avg_end"] = [round(x, 1) for x in os.getloadavg()]
    report["run_s"] = round(time.perf_counter() - started)
    print(json.dumps(report) if args.json else report_text(report))
    return 0


def _arguments(argv: list[str] | None) -> tuple[argparse.Namespace, list[tuple[str, int, int]]]:
    """The options, and the query benchmark's plan from them: (engine, chunks, queries)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1000,10000,50000")
    parser.add_argument("--queries", default="40,30,30", help="queries per scale")
    parser.add_argument(
        "--local-scales", default="1000,10000", help="scales also run on the old local mode"
    )
    parser.add_argument("--local-queries", default="20,8")
    parser.add_argument("--child-timeout", type=int, default=1800, help="seconds per size")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--skip-ingest", action="store_true", help="no ingest benchmark")
    parser.add_argument("--skip-query", action="store_true", help="no index/query benchmark")
    parser.add_argument(
        "--precision",
        choices=("auto", "true", "false"),
        default="auto",
        help="query benchmark embedding precision (DOCENT_EMBEDDING_BF16)",
    )
    parser.add_argument(
        "--query-encoder",
        choices=("auto", "torch", "onnx"),
        default="auto",
        help="query benchmark query encoder (DOCENT_QUERY_ENCODER)",
    )
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    counts = [int(q) for q in args.queries.split(",")]
    local_scales = [int(s) for s in args.local_scales.split(",") if s]
    local_counts = [int(q) for q in args.local_queries.split(",") if q]
    if len(counts) != len(scales) or len(local_counts) != len(local_scales):
        parser.error("--queries / --local-queries need one count per scale")
    plan = [("edge", n, q) for n, q in zip(scales, counts, strict=True)]
    plan += [("local", n, q) for n, q in zip(local_scales, local_counts, strict=True)]
    return args, [] if args.skip_query else plan


def _query_row(
    report: dict[str, Any], engine: str, n: int, q: int, args: argparse.Namespace
) -> None:
    """One size on one engine, in its own process: a row, or a failure noted in ``report``
    (one size that fails or overruns is reported, not fatal)."""
    print(f"{engine} at {n:,} chunks…", file=sys.stderr, flush=True)
    try:
        row = child(
            "benchmarks.query_bench",
            "--chunks",
            str(n),
            "--queries",
            str(q),
            "--engine",
            engine,
            "--precision",
            args.precision,
            "--query-encoder",
            args.query_encoder,
            timeout=args.child_timeout,
        )
    except SystemExit as exc:
        report["failed"].append({"chunks": n, "engine": engine, "reason": str(exc)[-500:]})
        return
    report["rows"].append(row)


def report_text(report: dict[str, Any]) -> str:
    """The report as text: the engine table, what was not measured, the ingest table."""
    out = [
        f"Docent benchmarks ({report['cpu']}, {report['cpu_kind']}: "
        f"{', '.join(report['cpu_flags'])}; {report['cpus']} CPUs; load "
        f"{report['load_avg_start']} → {report['load_avg_end']}: a shared machine, orders "
        "of magnitude)",
        "",
        engine_table(report["rows"]),
    ]
    for fail in report["failed"]:
        out.append(f"\n{fail['engine']} at {fail['chunks']:,}: not measured ({fail['reason']})")
    if "ingest" in report:
        out += ["", "## Ingest throughput", "", ingest_table(report["ingest"])]
    out += ["", f"total run time {report['run_s']} s"]
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
