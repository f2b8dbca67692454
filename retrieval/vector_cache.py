"""The offline reranker's read of its candidates' stored vectors, kept in memory after the
first read of each passage version.

A question's ~50 candidates carry ~300 stored vectors. Reading them back from the embedded
index costs little in the engine but ~8 ms of conversion into Python floats and arrays on
an AVX2-only AMD EPYC (Zen 1: 10.8 ms of a 12.5 ms rerank stage at 50,000 chunks, a
profile in evals/reports/benchmarks.md), for vectors that never change while the passage's
text does not: the same text of the same chunk id was embedded once, into this one index.

So each passage's vectors are kept, keyed by chunk id and content hash, least recently
used first out once ``budget_bytes`` is reached. Which candidates still exist is read from
the index every time (a payload-free read of ids alone, ~0.5 ms): a passage deleted after
the first stage is dropped as before, whether its vectors are kept or not.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk
from store.ids import CHUNK_VECTOR, SENTENCE_VECTOR
from store.protocol import ChunkIndex

Rows = dict[str, NDArray[np.float32]]


def stored_vectors(index: ChunkIndex, chunk_ids: Sequence[str]) -> tuple[Rows, Rows]:
    """The stored chunk vectors and sentence rows of the given chunks, in one read."""
    stored = index.vectors(chunk_ids, (CHUNK_VECTOR, SENTENCE_VECTOR))
    chunks = {cid: v[CHUNK_VECTOR] for cid, v in stored.items() if CHUNK_VECTOR in v}
    sentences = {cid: v[SENTENCE_VECTOR] for cid, v in stored.items() if SENTENCE_VECTOR in v}
    return chunks, sentences


class StoredVectorCache:
    """Stored vectors by passage version, within a budget of bytes; thread-safe."""

    def __init__(self, budget_bytes: int) -> None:
        if budget_bytes < 0:
            raise ValueError(f"the vector cache's budget must be 0 or more, got {budget_bytes}")
        self.budget_bytes = budget_bytes
        self.size_bytes = 0
        self._held: OrderedDict[tuple[str, str], tuple[NDArray[np.float32], ...]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, chunk: object) -> bool:
        """Whether this version of a passage (a ``Chunk``) is kept."""
        return isinstance(chunk, Chunk) and (chunk.chunk_id, chunk.content_hash) in self._held

    def read(self, index: ChunkIndex, chunks: Sequence[Chunk]) -> tuple[Rows, Rows]:
        """``stored_vectors`` of ``chunks`` (as the first stage read them): the vectors of a
        passage version seen before from memory, the rest from ``index``; only passages
        that exist in ``index`` now."""
        keys = {c.chunk_id: (c.chunk_id, c.content_hash) for c in chunks}
        with self._lock:
            held = {cid: self._held[k] for cid, k in keys.items() if k in self._held}
            for cid in held:
                self._held.move_to_end(keys[cid])
        if held:
            present = index.vectors(list(held), ())  # which of them exist now: ids alone
            held = {cid: rows for cid, rows in held.items() if cid in present}
        chunk_rows = {cid: rows[0] for cid, rows in held.items()}
        sentence_rows = {cid: rows[1] for cid, rows in held.items() if len(rows) > 1}
        missing = [cid for cid in keys if cid not in held]
        if missing:
            fresh_chunks, fresh_sentences = stored_vectors(index, missing)
            chunk_rows.update(fresh_chunks)
            sentence_rows.update(fresh_sentences)
            self._keep(
                {
                    keys[cid]: (vector, *_present(fresh_sentences.get(cid)))
                    for cid, vector in fresh_chunks.items()
                }
            )
        return chunk_rows, sentence_rows

    def fill(self, index: ChunkIndex, chunks: Sequence[Chunk], batch: int = 256) -> None:
        """Read ``chunks``' vectors in batches until the budget is reached (at start, off
        the question path: ~0.2 ms a passage on the Zen 1 EPYC)."""
        for start in range(0, len(chunks), batch):
            if self.size_bytes >= self.budget_bytes:
                return
            self.read(index, chunks[start : start + batch])

    def _keep(self, fresh: dict[tuple[str, str], tuple[NDArray[np.float32], ...]]) -> None:
        with self._lock:
            for key, rows in fresh.items():
                for row in rows:
                    row.setflags(write=False)  # shared by every question that reads it
                size = sum(row.nbytes for row in rows)
                if size > self.budget_bytes or key in self._held:
                    continue
                self._held[key] = rows
                self.size_bytes += size
            while self.size_bytes > self.budget_bytes and self._held:
                _, dropped = self._held.popitem(last=False)
                self.size_bytes -= sum(row.nbytes for row in dropped)


def _present(rows: NDArray[np.float32] | None) -> tuple[NDArray[np.float32], ...]:
    return () if rows is None else (rows,)
