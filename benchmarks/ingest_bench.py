"""Ingest throughput end to end versus raw embedding throughput of the same model, in one
process: the ratio says how much of ingest is embedding and how much is everything else
(partitioning, chunking, registry, index writes).

    python -m benchmarks.ingest_bench

Prints one JSON object.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "examples" / "policies"
WARM_UP = ("office-guide.txt", "support.html", "whistleblowing.docx", "severance.pdf")


def measure(workdir: Path) -> dict[str, object]:
    from docent.settings import Settings
    from docent.wiring import Services
    from evals.baseline import manifest_files
    from ingest.embedding import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder("bundled")

    def ingest(
        files: list[Path], data_dir: Path
    ) -> tuple[float, list[tuple[str, tuple[str, ...]]]]:
        data_dir.mkdir(parents=True)
        settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
        services = Services(settings, embedder=embedder)
        try:
            started = time.perf_counter()
            job = services.ingestor.submit(files, root=CORPUS, manifest=CORPUS / "MANIFEST.csv")
            services.ingestor.run(job)
            took = time.perf_counter() - started
            chunks = [(c.embed_text, c.sentences) for c in services.index.scroll()]
        finally:
            services.close()
        return took, chunks

    # One file of each format first, elsewhere: pays imports and first-use costs once.
    warm_s, _ = ingest([CORPUS / f for f in WARM_UP], workdir / "warm")
    ingest_s, chunks = ingest(manifest_files(CORPUS), workdir / "timed")

    texts = [text for text, _ in chunks]
    units = [s for _, sentences in chunks for s in sentences]
    raw: dict[str, float] = {}
    for attempt in ("first", "second"):
        started = time.perf_counter()
        embedder.embed(texts)
        raw[f"chunks_{attempt}_s"] = time.perf_counter() - started
        started = time.perf_counter()
        embedder.embed(units)
        raw[f"units_{attempt}_s"] = time.perf_counter() - started
    chunk_s = min(raw["chunks_first_s"], raw["chunks_second_s"])
    unit_s = min(raw["units_first_s"], raw["units_second_s"])
    return {
        "files": len(manifest_files(CORPUS)),
        "chunks": len(texts),
        "sentence_units": len(units),
        "warm_up_s": round(warm_s, 1),
        "ingest_s": round(ingest_s, 1),
        "ingest_chunks_per_s": round(len(texts) / ingest_s, 2),
        "raw_embed_chunks_per_s": round(len(texts) / chunk_s, 1),
        "raw_embed_units_per_s": round(len(units) / unit_s, 1),
        "raw_embed_s": {k: round(v, 2) for k, v in raw.items()},
        # Ingest embeds each chunk and each of its units: the embedding it cannot avoid.
        "embedding_share_of_ingest": round((chunk_s + unit_s) / ingest_s, 3),
        "ratio_ingest_to_raw_chunks": round((len(texts) / ingest_s) / (len(texts) / chunk_s), 3),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 0),
        "load_avg": round(os.getloadavg()[0], 1),
    }


def main() -> int:
    os.environ.setdefault("DO_NOT_TRACK", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory(prefix="docent-bench-ingest-") as tmp:
        result = measure(Path(tmp))
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
