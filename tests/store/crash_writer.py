"""Run as a child process by ``test_crash.py``: open an index and upsert batches, printing
``ack N`` after each batch the index has acknowledged, until killed."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from docent.contracts import Chunk
from store.edge import EdgeIndex
from store.protocol import ChunkIndex
from store.server import ServerIndex

DIM = 64


def chunks(start: int, stop: int) -> list[Chunk]:
    return [
        Chunk(
            chunk_id=f"bulk-{i // 50}.md#{i % 50}",
            doc_id=f"bulk-{i // 50}",
            source=f"bulk-{i // 50}.md",
            heading_path=("Bulk", str(i)),
            kind="text",
            text=f"Bulk chunk {i}.",
            embed_text=f"Bulk chunk {i}.",
            sentences=(f"Bulk chunk {i}.", "Second unit."),
            content_hash=str(i),
        )
        for i in range(start, stop)
    ]


def vectors(start: int, stop: int) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(start)
    flat = rng.standard_normal((stop - start, DIM)).astype(np.float32)
    return flat, [rng.standard_normal((2, DIM)).astype(np.float32) for _ in range(stop - start)]


def open_index(kind: str, folder: Path) -> ChunkIndex:
    if kind == "edge":
        return EdgeIndex(folder / "shard-root", "crash-64", DIM)
    return ServerIndex.local(str(folder / "local"), "crash", "crash-64", DIM)


def main() -> None:
    kind, folder, total, batch = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    index = open_index(kind, folder)
    index.ensure()
    for start in range(0, total, batch):
        stop = min(total, start + batch)
        flat, rows = vectors(start, stop)
        index.upsert(chunks(start, stop), flat, rows)
        print(f"ack {stop}", flush=True)
    print("done", flush=True)


if __name__ == "__main__":
    main()
