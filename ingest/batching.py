"""Embedding across files: documents whose content changed wait in one batch, and every
distinct text of the batch is embedded once, longest first, ``BATCH_TEXTS`` to a call.

Ingest time is embedding time (99 % of a real-corpus profile), so nothing is embedded that
need not be: a unit identical to its chunk text (a one-sentence chunk), a sentence repeated
across chunks or files (boilerplate, an archived copy, the same policy in another format)
is embedded once. One call over many files gives the model full batches; sorting by length
puts texts of similar length in the same batch, so little of each batch is padding.
Each file is still written, committed and reported on its own (``Ingestor``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk, DocumentMeta, Embedder
from ingest.jobs import FileTask
from ingest.registry import Embedded

# Distinct texts (chunks + units) a batch gathers before it is embedded: ~8 model batches,
# a few seconds of embedding, so a file waits little and a killed process loses little.
BATCH_TEXTS = 256
# Vectors kept after their batch, for texts that come again in a later file.
MEMO_TEXTS = 20_000


@dataclass(frozen=True)
class Prepared:
    """A file partitioned, chunked and classified, whose chunks need vectors."""

    task: FileTask
    meta: DocumentMeta
    chunks: tuple[Chunk, ...]
    force: bool
    started: float

    @property
    def texts(self) -> list[str]:
        return distinct_texts(self.chunks)


def distinct_texts(chunks: Iterable[Chunk]) -> list[str]:
    """Every text a document needs a vector for (chunk ``embed_text``s and their units),
    each once, in first-seen order."""
    seen: dict[str, None] = {}
    for chunk in chunks:
        seen.setdefault(chunk.embed_text)
        for unit in chunk.unit_embed_texts:
            seen.setdefault(unit)
    return list(seen)


def by_length(texts: Sequence[str]) -> list[str]:
    """Longest first, so each model batch holds texts of about the same length."""
    return sorted(texts, key=len, reverse=True)


class VectorMemo:
    """Vectors by text for the current batch and the most recent ones before it."""

    def __init__(self, embedder: Embedder, capacity: int = MEMO_TEXTS) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._vectors: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self.embedded_texts = 0  # texts sent to the model, for the benchmark and logs

    def embed(self, texts: Iterable[str], done: Callable[[float], None] | None = None) -> int:
        """Embed each of ``texts`` this memo does not hold, ``BATCH_TEXTS`` to a call; return
        how many. ``done`` hears the share embedded after each call but the last: one large
        file is several calls, and its job's progress (and time left) moves meanwhile (a user
        pass saw "about 11 s left" rise to 23 s while one file embedded)."""
        unique = list(dict.fromkeys(texts))
        for text in unique:
            if text in self._vectors:
                self._vectors.move_to_end(text)
        missing = by_length([t for t in unique if t not in self._vectors])
        held = len(unique) - len(missing)  # counted as done: a retry's share never falls back
        for start in range(0, len(missing), BATCH_TEXTS):
            if start and done is not None:
                done((held + start) / len(unique))
            part = missing[start : start + BATCH_TEXTS]
            for text, vector in zip(part, self._embedder.embed(part), strict=True):
                self._vectors[text] = vector
            self.embedded_texts += len(part)
        return len(missing)

    def embedded(self, chunks: Sequence[Chunk]) -> Embedded:
        """A document's vectors; every text must have gone through ``embed``."""
        dim = self._embedder.dimension
        for text in distinct_texts(chunks):
            self._vectors.move_to_end(text)
        chunk_vectors = np.asarray(
            [self._vectors[c.embed_text] for c in chunks], dtype=np.float32
        ).reshape(len(chunks), dim)
        sentence_vectors = tuple(
            np.asarray([self._vectors[s] for s in c.unit_embed_texts], dtype=np.float32).reshape(
                len(c.sentences), dim
            )
            for c in chunks
        )
        return Embedded(chunk_vectors, sentence_vectors)

    def trim(self) -> None:
        """Forget the least recently used vectors beyond the capacity (between batches)."""
        while len(self._vectors) > self._capacity:
            self._vectors.popitem(last=False)
