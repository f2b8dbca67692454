"""Query latency per retrieval stage and for the whole extractive ``ask`` chain over N
synthetic chunks, in one process.

    python -m benchmarks.query_bench --chunks 10000 --queries 20 [--engine edge|local]
        [--precision auto|true|false] [--query-encoder auto|torch|onnx]

Prints one JSON object: write rate, build times, p50/p95 per stage and for ``ask`` (ms),
peak RSS (MiB), and what they were measured with: the CPU model and its key flags, the
embedding precision (``--precision``: ``DOCENT_EMBEDDING_BF16``) and the query encoder
chosen (``--query-encoder``: ``DOCENT_QUERY_ENCODER``).

``--engine edge`` (the default) is the embedded Qdrant Edge index on disk, as deployed.
``--engine local`` is the old embedded engine, qdrant-client's local mode, *in memory*
(on disk it persists every point through SQLite at ~80-550 points/s); its queries are the
same brute-force scan in Python either way. ``--on-disk`` puts local mode on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STAGES = ("bm25", "embed", "vector", "fuse", "rerank", "total")


def questions(limit: int) -> list[str]:
    rows = [
        json.loads(line)
        for line in (ROOT / "evals" / "cases" / "sample.jsonl").read_text().splitlines()
        if line.strip()
    ]
    qs = list(dict.fromkeys(r["q"] for r in rows))
    return (qs * (limit // len(qs) + 1))[:limit]


def local_mode_index(settings: Any, location: str) -> Any:
    """An ``index_opener`` for the root: the old engine, qdrant-client local mode, at
    ``location`` (a folder, or ``:memory:``)."""
    from store.server import ServerIndex

    def open_local(embedder: Any) -> Any:
        index = ServerIndex.local(
            location, settings.collection, embedder.model_name, embedder.dimension
        )
        index.ensure()
        return index

    return open_local


def compare_encoders(embedder: Any, texts: list[str], data_dir: Path) -> dict[str, float]:
    """One question at a time through each query encoder, interleaved in this process (a
    busy neighbour slows all alike): p50 ms of torch in the embedder's precision, torch in
    float32 when that differs, and the ONNX export (float32). Ratios, not absolutes."""
    from docent.errors import ConfigError
    from evals.metrics import percentile
    from ingest.query_encoder import query_encoder

    encoders = {f"torch ({embedder.precision.name})": embedder.embed}
    if embedder.precision.bf16:
        encoders["torch (fp32)"] = embedder.encode_fp32
    try:
        encoders["onnx (fp32)"] = query_encoder(embedder, "onnx", data_dir).encoder.embed
    except ConfigError:
        pass  # no ONNX here: the log says why
    took: dict[str, list[float]] = {name: [] for name in encoders}
    for embed in encoders.values():
        for text in texts:  # each text once unseen first (a new length may build kernels)
            embed([text])
    for text in texts:
        for name, embed in encoders.items():
            started = time.perf_counter()
            embed([text])
            took[name].append((time.perf_counter() - started) * 1000.0)
    return {name: round(percentile(ms, 50), 2) for name, ms in took.items()}


# The report's keys, in the order it prints them.
REPORT_KEYS = (
    "engine", "cpu", "cpu_flags", "precision", "query_encoder", "chunks", "queries",
    "retrieval_p50_ms", "retrieval_p95_ms", "ask_p50_ms", "ask_p95_ms", "vector_p50_ms",
    "vector_p95_ms", "write_points_per_s", "optimize_s", "outcomes", "pool_sentences",
    "pool_embed_s", "upsert_s", "keyword_build_ms", "mean_hits", "settle_s",
    "embed_first_sight", "query_embed_p50_ms", "word_vectors", "p50", "p95", "orders",
    "peak_rss_mib", "load_avg",
)  # fmt: skip


def measure(
    n_chunks: int,
    n_queries: int,
    data_dir: Path,
    engine: str,
    on_disk: bool,
    precision: str = "auto",
    query_encoder: str = "auto",
) -> dict[str, object]:
    from benchmarks.machine import cpu_model_and_flags
    from docent.settings import Settings
    from docent.wiring import open_services
    from ingest.embedding import SentenceTransformerEmbedder

    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=data_dir,
        query_encoder=query_encoder,  # type: ignore[arg-type]
    )
    # As ``Services`` builds it, with the precision asked for (``auto`` on a CPU with native
    # bf16: bf16 without calibrating, so a run does not pay a calibration).
    embedder = SentenceTransformerEmbedder("bundled", bf16=precision)
    opener = None
    if engine != "edge":
        location = str(data_dir / "qdrant-local") if on_disk else ":memory:"
        opener = local_mode_index(settings, location)
    services = open_services(settings, embedder=embedder, index_opener=opener)
    try:
        written = write_corpus(services, embedder, n_chunks)
        timed = time_questions(services, embedder, n_queries, data_dir)
        engine_name = (
            ("qdrant-edge" if settings.hnsw_min_points else "qdrant-edge, exact only")
            if engine == "edge"
            else ("qdrant-client local mode, on disk" if on_disk else "qdrant-client local mode")
        )
        cpu, flags = cpu_model_and_flags()
        parts = {
            **written,
            **timed,
            "engine": engine_name,
            "cpu": cpu,
            "cpu_flags": flags,
            "precision": embedder.precision.name,
            "chunks": services.index.count(),
            "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
            "load_avg": round(os.getloadavg()[0], 1),
        }
        return {key: parts[key] for key in REPORT_KEYS}
    finally:
        services.close()


def write_corpus(services: Any, embedder: Any, n_chunks: int) -> dict[str, object]:
    """``n_chunks`` synthetic chunks into the index (optimized as deployed), the version
    bumped: how fast they were embedded and written."""
    from benchmarks.synthetic import corpus_sentences, embed_pool, synthetic_corpus
    from docent.db.session import session_scope
    from docent.db.state import bump_index_version
    from store.edge import EdgeIndex

    sentences = corpus_sentences(ROOT / "examples" / "policies")
    started = time.perf_counter()
    pool = embed_pool(embedder, sentences)
    pool_s = time.perf_counter() - started
    chunks, chunk_vectors, unit_vectors = synthetic_corpus(n_chunks, sentences, pool)

    index = services.index
    started = time.perf_counter()
    batch = 1000
    for i in range(0, n_chunks, batch):
        index.upsert(
            chunks[i : i + batch], chunk_vectors[i : i + batch], unit_vectors[i : i + batch]
        )
    upsert_s = time.perf_counter() - started
    optimize_s = None
    if isinstance(index, EdgeIndex):
        # Off the request path in service (a background thread once writes pause); here
        # it is waited for, so the timed queries see the index as it settles.
        index.wait_optimized()
        if 0 < services.settings.hnsw_min_points <= n_chunks:
            # DOCENT_HNSW_MIN_POINTS=0: no graph, every query an exact scan.
            background = index.last_optimize_s or 0.0
            optimize_s = round(background + index.optimize(), 1)
    with session_scope(services.sessions) as session:
        bump_index_version(session)
    return {
        "write_points_per_s": round(n_chunks / max(upsert_s, 1e-9)),
        "optimize_s": optimize_s,
        "pool_sentences": len(sentences),
        "pool_embed_s": round(pool_s, 2),
        "upsert_s": round(upsert_s, 1),
    }


def time_questions(
    services: Any, embedder: Any, n_queries: int, data_dir: Path
) -> dict[str, object]:
    """Searches and asks over the written index, once the query encoder has settled: p50 and
    p95 per retrieval stage and for ``ask``."""
    from docent.contracts import Principal
    from evals.metrics import percentile
    from ingest.onnx_encoder import OnnxQueryEncoder

    principal = Principal("bench", "employee")
    both = questions(2 * n_queries)
    # ``ask`` gets questions the searches did not see: the query-vector cache would
    # otherwise spare it the embedding the searches paid.
    qs, ask_qs = both[:n_queries], both[n_queries:] or both[:n_queries]
    encoder = services.query_encoder  # chosen (and calibrated) before the timings
    first = services.searcher.search(qs[0], principal)  # builds the keyword index
    keyword_build_ms = float(first.timings_ms.get("keyword_refresh", 0.0))
    word_vectors = warm_up(services)
    settle_s = settle(encoder, qs[0])
    # Then each query once, unseen (a new token length may cost a kernel build under
    # bf16 autocast), before the timed searches.
    first_sight = [embed_ms(encoder, q) for q in both]
    encoders_ms = compare_encoders(embedder, both, data_dir)
    per_stage, hits = time_searches(services, qs, principal)
    ask_ms, outcomes = time_asks(services, ask_qs, principal)
    orders = compare_orders(services, qs, principal)
    return {
        "query_encoder": "onnx" if isinstance(encoder, OnnxQueryEncoder) else "torch",
        "queries": len(qs),
        "retrieval_p50_ms": round(percentile(per_stage["total"], 50), 1),
        "retrieval_p95_ms": round(percentile(per_stage["total"], 95), 1),
        "ask_p50_ms": round(percentile(ask_ms, 50), 1),
        "ask_p95_ms": round(percentile(ask_ms, 95), 1),
        "vector_p50_ms": round(percentile(per_stage["vector"], 50), 1),
        "vector_p95_ms": round(percentile(per_stage["vector"], 95), 1),
        "outcomes": outcomes,
        "keyword_build_ms": round(keyword_build_ms, 1),
        "mean_hits": round(hits / len(qs), 2),
        "settle_s": round(settle_s, 1),
        "embed_first_sight": [
            round(percentile(first_sight, 50), 1),
            round(percentile(first_sight, 95), 1),
        ],
        "query_embed_p50_ms": encoders_ms,
        "word_vectors": word_vectors,
        "p50": {s: round(percentile(v, 50), 1) for s, v in per_stage.items()},
        "p95": {s: round(percentile(v, 95), 1) for s, v in per_stage.items()},
        "orders": orders,
    }


ORDER_ROUNDS = 3


def compare_orders(
    services: Any, qs: list[str], principal: Any, rounds: int = ORDER_ROUNDS
) -> dict[str, dict[str, float]]:
    """The searcher's own order (the evidence order, with its term coverage) against the
    reranker's order alone, alternated question by question over this one index, ``rounds``
    times: p50 ms of the rerank stage (where the order is read) and of retrieval without the
    query embedding (each question's vector is cached by then, alike for both). Between
    processes the rows differ by a few ms of noise; within one, the order's own cost shows."""
    from evals.metrics import percentile

    searcher = services.searcher
    own = searcher.order
    if own is None:
        return {}
    orders = {"evidence": own, "rerank": None}
    took: dict[str, dict[str, list[float]]] = {n: {"rerank": [], "search": []} for n in orders}
    try:
        for _ in range(rounds):
            for q in qs:
                for name, order in orders.items():
                    searcher.order = order
                    ms = searcher.search(q, principal).timings_ms
                    took[name]["rerank"].append(float(ms["rerank"]))
                    took[name]["search"].append(float(ms["total"]) - float(ms.get("embed", 0.0)))
    finally:
        searcher.order = own
    return {
        name: {stage: round(percentile(v, 50), 2) for stage, v in stages.items()}
        for name, stages in took.items()
    }


def warm_up(services: Any) -> dict[str, float]:
    """Read every passage's words and embed them, and keep the passages' stored vectors
    within the cache's budget, before the timings, as ``docent serve`` does at start
    (``Searcher.warm``): a question then pays only for the term coverage and for reading the
    vectors of candidates the cache does not hold. Returns the count of words, the seconds it
    took and the passages whose vectors are kept."""
    from retrieval.searcher import warm_caches

    started = time.perf_counter()
    warm_caches(services.word_vectors, services.reranker, services.keyword_index.chunks)
    cache = getattr(services.reranker, "cache", None)
    return {
        "count": len(services.word_vectors),
        "seconds": round(time.perf_counter() - started, 1),
        "vectors_kept": len(cache) if cache is not None else 0,
    }


def embed_ms(encoder: Any, text: str) -> float:
    started = time.perf_counter()
    encoder.embed([text])
    return (time.perf_counter() - started) * 1000.0


def settle(encoder: Any, text: str) -> float:
    """Seconds until single-query embedding reaches its steady state. It runs at ~0.8 s a
    call for the first seconds after the model loads (and whenever the 2 cores are
    contended), then at ~10 ms: the stages are timed after that (reported as settle_s)."""
    settle_started = time.perf_counter()
    recent: list[float] = []
    while time.perf_counter() - settle_started < 30.0:
        recent.append(embed_ms(encoder, text))
        if len(recent) >= 5 and max(recent[-5:]) < 50.0:
            break
    return time.perf_counter() - settle_started


def time_searches(
    services: Any, qs: list[str], principal: Any
) -> tuple[dict[str, list[float]], int]:
    per_stage: dict[str, list[float]] = {s: [] for s in STAGES}
    hits = 0
    for q in qs:
        result = services.searcher.search(q, principal)
        hits += len(result.hits)
        for stage in STAGES:
            per_stage[stage].append(float(result.timings_ms.get(stage, 0.0)))
    return per_stage, hits


def time_asks(
    services: Any, ask_qs: list[str], principal: Any
) -> tuple[list[float], dict[str, int]]:
    """The full extractive chain, no HTTP."""
    asker = services.asker
    ask_ms: list[float] = []
    outcomes: dict[str, int] = {}
    for q in ask_qs:
        started = time.perf_counter()
        answer = asker.ask(q, principal)
        ask_ms.append((time.perf_counter() - started) * 1000.0)
        outcomes[answer.outcome.kind] = outcomes.get(answer.outcome.kind, 0) + 1
    return ask_ms, outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--engine", choices=("edge", "local"), default="edge")
    parser.add_argument("--on-disk", action="store_true", help="local mode on disk")
    parser.add_argument("--precision", choices=("auto", "true", "false"), default="auto")
    parser.add_argument("--query-encoder", choices=("auto", "torch", "onnx"), default="auto")
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="docent-bench-") as tmp:
        result = measure(
            args.chunks,
            args.queries,
            Path(tmp),
            args.engine,
            args.on_disk,
            args.precision,
            args.query_encoder,
        )
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
