"""Ingest throughput end to end versus raw embedding of exactly the texts that ingest
embedded, by the same embedder with the same precision choice, in one process.

    python -m benchmarks.ingest_bench [--corpus DIR] [--paths SUB,SUB] [--manifest CSV]

Prints one JSON object: ``{corpus, files, chunks, units_embedded, ingest_s, raw_embed_s,
embed_share, precision, peak_rss_mib, ...}`` where ``embed_share = raw_embed_s / ingest_s``
(1.0: ingest is nothing but embedding). It imports nothing of ``benchmarks`` and only
Docent's stable API (``Settings``, ``open_services``, ``Ingestor.submit/run/job_status``), so the
same file measures another checkout (``PYTHONPATH=<checkout> python .../ingest_bench.py``),
e.g. main as a baseline row.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.machine import cpu_model_and_flags

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "examples" / "policies"
WARM_UP = ("office-guide.txt", "support.html", "whistleblowing.docx", "severance.pdf")


class Recording:
    """The embedder ingest uses, recording every call so it can be replayed alone."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: list[list[str]] = []

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    @property
    def dimension(self) -> int:
        return int(self.inner.dimension)

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def precision_of(embedder: Any) -> str:
    choice = getattr(embedder, "precision", None)  # this branch: a PrecisionChoice
    if choice is not None:
        return str(choice.name)
    return "bf16" if getattr(embedder, "_bf16", False) else "fp32"


def measure(
    workdir: Path, corpus: Path, paths: list[Path], manifest: Path | None, name: str
) -> dict[str, Any]:
    from docent import wiring
    from docent.settings import Settings

    # The root's one way to build services; a checkout from before it has only the class.
    open_services = getattr(wiring, "open_services", None) or wiring.Services

    def settings(data_dir: Path) -> Any:
        data_dir.mkdir(parents=True, exist_ok=True)
        return Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]

    # The embedder as the checkout builds it (its own precision default), outside the timing:
    # on this branch an ``auto`` choice calibrates once here and caches it, where it times.
    # ``configured_embedder`` opens no index (``embedder`` follows an index's record).
    built = open_services(settings(workdir / "model"))
    inner = getattr(built, "configured_embedder", None) or built.embedder
    recording = Recording(inner)

    def ingest(files: list[Path], root: Path, csv: Path | None, data_dir: Path) -> dict[str, Any]:
        services = open_services(settings(data_dir), embedder=recording)
        try:
            ingestor = services.ingestor
            job = ingestor.submit(files, root=root, manifest=csv)
            ingestor.run(job)
            return dict(ingestor.job_status(job))
        finally:
            services.close()

    # One file of each format first, elsewhere: pays imports and first-use costs once.
    ingest([SAMPLE / f for f in WARM_UP], SAMPLE, None, workdir / "warm")
    recording.calls.clear()
    started = time.perf_counter()
    status = ingest(paths, corpus, manifest, workdir / "timed")
    ingest_s = time.perf_counter() - started
    calls = list(recording.calls)

    started = time.perf_counter()
    for texts in calls:  # the same texts, in the same calls, without the rest of ingest
        inner.embed(texts)
    raw_s = time.perf_counter() - started
    return {
        "corpus": name,
        "files": status["files_total"],
        "failed": len(status["errors"]),
        "chunks": status["chunks"],
        "units_embedded": sum(len(c) for c in calls),
        "embed_calls": len(calls),
        "ingest_s": round(ingest_s, 1),
        "chunks_per_s": round(status["chunks"] / ingest_s, 2),
        "raw_embed_s": round(raw_s, 1),
        "embed_share": round(raw_s / ingest_s, 3),
        "precision": precision_of(inner),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "cpu": cpu_model_and_flags()[0],
        "cpu_flags": cpu_model_and_flags()[1],
        "encoder": "torch",  # ingest embeds batches with torch whatever answers questions
        "load_avg": round(os.getloadavg()[0], 1),
    }


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=SAMPLE, help="folder sources are named from")
    parser.add_argument("--paths", default="", help="comma-separated subfolders/files of it")
    parser.add_argument("--manifest", type=Path, default=None)
    parser.add_argument("--name", default=None, help="the corpus column (default: its folder)")
    args = parser.parse_args(argv)
    corpus = args.corpus.resolve()
    paths = [corpus / p for p in args.paths.split(",") if p] or [corpus]
    manifest = args.manifest
    if manifest is None and (corpus / "MANIFEST.csv").is_file():
        manifest = corpus / "MANIFEST.csv"
    name = args.name or (f"{corpus.name}/{{{args.paths}}}" if args.paths else corpus.name)
    with tempfile.TemporaryDirectory(prefix="docent-bench-ingest-") as tmp:
        result = measure(Path(tmp), corpus, paths, manifest, name)
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
