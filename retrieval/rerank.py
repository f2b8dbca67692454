"""Second-stage rerankers: read the fused candidates more finely than the first stage and
record, on each hit, a ``rerank_score`` (what the relevance threshold is compared with)
and the ``best_sentence`` (what the extractive answerer quotes).

- ``SentenceReranker`` (offline default): 0.5 × the best per-sentence cosine + 0.5 × the
  chunk cosine, from the vectors the bundled embedder stored at ingest; measured on real
  policy questions it lifts R@1 0.64 → 0.74 and MRR@10 0.80 → 0.85 over the fused order
  (../shared/NOTES.md). Costs one query embedding and one vector fetch.
- ``CrossEncoderReranker``: a local ``sentence_transformers.CrossEncoder`` when
  ``DOCENT_RERANKER_MODEL`` names one; scores are sigmoid probabilities, so the threshold
  must be tuned for it separately.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk, Embedder, Hit
from retrieval.codes import code_coverage, passage_coverage, query_codes
from retrieval.errors import RerankerUnavailable
from retrieval.vector_cache import StoredVectorCache, stored_vectors
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)


class Reranker(Protocol):
    """Scores and reorders candidates; returns new hits (best first, ranks renumbered,
    ``score`` = ``rerank_score``) with ``rerank_score`` and ``best_sentence`` set."""

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]: ...

    def warm(self, chunks: Sequence[Chunk]) -> None:
        """Read now, off the question path, what it keeps of these passages between
        questions (nothing for a reranker that keeps nothing)."""


Scored = tuple[Hit, float, str | None, tuple[float, ...]]


def ranked(scored: Sequence[Scored], coverage: Sequence[float] | None = None) -> list[Hit]:
    """Order by score (ties keep the incoming order) and renumber ranks from 1. ``coverage``
    (one per scored hit, or none read) becomes each hit's ``code_coverage``."""
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][1], i))
    return [
        replace(
            scored[i][0],
            rank=new_rank,
            score=scored[i][1],
            rerank_score=scored[i][1],
            best_sentence=scored[i][2],
            unit_scores=scored[i][3],
            code_coverage=coverage[i] if coverage is not None else None,
        )
        for new_rank, i in enumerate(order, start=1)
    ]


def _unit(vector: NDArray[np.float32]) -> NDArray[np.float32]:
    norm = float(np.linalg.norm(vector))
    return vector / norm if norm > 0 else vector


def _unit_rows(matrix: NDArray[np.float32]) -> NDArray[np.float32]:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: NDArray[np.float32] = matrix / norms
    return out


@dataclass(frozen=True)
class StackedVectors:
    """The stored vectors of the candidates still in the index, stacked for one product
    each: ``chunks`` row i is ``hits[i]``'s chunk vector; ``units`` holds every candidate's
    sentence rows back to back, ``hits[i]``'s from ``starts[i]``, ``counts[i]`` of them (0:
    none stored)."""

    hits: tuple[Hit, ...]
    chunks: NDArray[np.float32]
    units: NDArray[np.float32]
    starts: NDArray[np.intp]
    counts: NDArray[np.intp]


def stacked_vectors(
    index: ChunkIndex,
    hits: Sequence[Hit],
    dimension: int,
    cache: StoredVectorCache | None = None,
) -> StackedVectors:
    """One read of the candidates' vectors (through ``cache`` when given), stacked; a
    candidate deleted since the first stage is left out (it no longer exists to cite)."""
    if cache is None:
        chunk_rows, sentence_rows = stored_vectors(index, [h.chunk.chunk_id for h in hits])
    else:
        chunk_rows, sentence_rows = cache.read(index, [h.chunk for h in hits])
    kept = tuple(h for h in hits if h.chunk.chunk_id in chunk_rows)
    for hit in hits:
        if hit.chunk.chunk_id not in chunk_rows:
            log.info("rerank: chunk %s left the index mid-query; dropped", hit.chunk.chunk_id)
    empty = np.zeros((0, dimension), dtype=np.float32)
    units = [sentence_rows.get(h.chunk.chunk_id, empty) for h in kept]
    units = [u if u.ndim == 2 else empty for u in units]
    counts = np.fromiter((len(u) for u in units), dtype=np.intp, count=len(units))
    starts = np.zeros(len(units), dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    return StackedVectors(
        hits=kept,
        chunks=np.stack([chunk_rows[h.chunk.chunk_id] for h in kept]) if kept else empty,
        units=np.concatenate(units) if units else empty,
        starts=starts,
        counts=counts,
    )


def segment_argmax(
    values: NDArray[np.float32], starts: NDArray[np.intp], counts: NDArray[np.intp]
) -> NDArray[np.intp]:
    """Per segment ``values[starts[i] : starts[i] + counts[i]]`` (each non-empty), the index
    of its first largest value, as ``np.argmax`` gives it for one segment."""
    best = np.maximum.reduceat(values, starts)
    positions = np.arange(len(values), dtype=np.intp)
    at_best = np.where(values == np.repeat(best, counts), positions, len(values))
    first: NDArray[np.intp] = np.minimum.reduceat(at_best, starts)
    return np.where(first < len(values), first, starts)  # a NaN segment: its first row


def _best_sentence(chunk: Chunk, row: int | None) -> str | None:
    if not chunk.sentences:
        return chunk.text  # a chunk with no finer units is its own best unit
    if row is None or row >= len(chunk.sentences):
        return None
    return chunk.sentences[row]


# The weight of the query's codes found in a passage, against cosines weighted to 1 in all.
CODE_WEIGHT = 0.15


class SentenceReranker:
    """The offline default: needs only the bundled embedder and the vectors stored at ingest.

    ``score = w · best sentence cosine + (1 − w) · chunk cosine + code_weight · coverage``,
    where coverage is the share of the codes the query names (``RC-77``, ``7.3(b)``) that
    the chunk contains exactly. The embedder cannot tell ``RC-77`` from ``RC-75``; without
    the code term the rerank undoes what the keyword leg found. Queries naming no code
    score exactly as the measured design (0.5 / 0.5)."""

    def __init__(
        self,
        embedder: Embedder,
        index: ChunkIndex,
        *,
        sentence_weight: float = 0.5,
        code_weight: float = CODE_WEIGHT,
        cache: StoredVectorCache | None = None,
    ) -> None:
        """``cache``: keeps the candidates' stored vectors between questions
        (``retrieval/vector_cache.py``); None reads them from ``index`` every time."""
        if not 0.0 <= sentence_weight <= 1.0:
            raise ValueError(f"sentence_weight must be within [0, 1], got {sentence_weight}")
        if code_weight < 0.0:
            raise ValueError(f"code_weight must be 0 or more, got {code_weight}")
        self.embedder = embedder
        self.index = index
        self.sentence_weight = sentence_weight
        self.code_weight = code_weight
        self.cache = cache

    def warm(self, chunks: Sequence[Chunk]) -> None:
        """Keep the passages' stored vectors (``cache``), as many as its budget holds."""
        if self.cache is not None:
            self.cache.fill(self.index, chunks)

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        if not hits:
            return []
        query_vector = _unit(self.embedder.embed([query])[0])
        codes = query_codes(query) if self.code_weight > 0 else frozenset()
        found = stacked_vectors(self.index, hits, len(query_vector), self.cache)
        if not found.hits:
            return []
        chunks = [hit.chunk for hit in found.hits]
        sizes = np.fromiter((len(c.sentences) for c in chunks), dtype=np.intp, count=len(chunks))
        _warn_unit_mismatch(chunks, sizes, found.counts)
        # One product for every chunk vector and one for every sentence row.
        chunk_cos = (_unit_rows(found.chunks) @ query_vector).astype(np.float64)
        unit_sims = _unit_rows(found.units) @ query_vector
        has_units = found.counts > 0
        aligned = has_units & (found.counts == sizes)  # one row per unit of chunk.sentences
        choice = unit_sims
        if codes:
            # Prefer the sentence that names the code (7.3(b), not 7.3(a)).
            choice = unit_sims + self.code_weight * _unit_coverage(codes, chunks, aligned, found)
        best_row = np.full(len(chunks), -1, dtype=np.intp)
        if has_units.any():
            starts, counts = found.starts[has_units], found.counts[has_units]
            best_row[has_units] = segment_argmax(choice, starts, counts) - starts
        best_cos = chunk_cos.copy()
        best_cos[has_units] = unit_sims[found.starts[has_units] + best_row[has_units]]
        scores = self.sentence_weight * best_cos + (1.0 - self.sentence_weight) * chunk_cos
        coverage = [passage_coverage(codes, c) for c in chunks] if codes else None
        if coverage is not None:
            scores += self.code_weight * np.array(coverage, dtype=np.float64)
        rounded = [round(x, 4) for x in unit_sims.tolist()]
        scored: list[Scored] = [
            (
                hit,
                score,
                _best_sentence(hit.chunk, row if row >= 0 else None),
                tuple(rounded[start : start + count]) if ok else (),
            )
            for hit, score, row, start, count, ok in zip(
                found.hits,
                scores.tolist(),
                best_row.tolist(),
                found.starts.tolist(),
                found.counts.tolist(),
                aligned.tolist(),
                strict=True,
            )
        ]
        return ranked(scored, coverage)


def _warn_unit_mismatch(
    chunks: Sequence[Chunk], sizes: NDArray[np.intp], counts: NDArray[np.intp]
) -> None:
    """Sentence rows that do not match the chunk's units (a chunk with none stores one row)."""
    for i in np.flatnonzero((counts > 0) & (counts != np.maximum(sizes, 1))).tolist():
        log.warning(
            "rerank: %s has %d sentence vectors for %d sentences",
            chunks[i].chunk_id,
            int(counts[i]),
            int(sizes[i]),
        )


def _unit_coverage(
    codes: frozenset[str],
    chunks: Sequence[Chunk],
    aligned: NDArray[np.bool_],
    found: StackedVectors,
) -> NDArray[np.float32]:
    """Per sentence row, the share of the query's codes its unit names (0 where the rows do
    not line up with the chunk's units)."""
    cover = np.zeros(len(found.units), dtype=np.float32)
    for i in np.flatnonzero(aligned).tolist():
        start = int(found.starts[i])
        for j, sentence in enumerate(chunks[i].sentences):
            cover[start + j] = code_coverage(codes, sentence)
    return cover


def passage(chunk: Chunk) -> str:
    """The text a cross-encoder reads for a chunk: its heading path, then its text."""
    return f"{chunk.heading}\n{chunk.text}" if chunk.heading_path else chunk.text


class CrossEncoderReranker:
    """A local ``sentence_transformers.CrossEncoder``. Never downloads: the argument must be
    a directory holding the model. The best sentence is chosen by the same model, for the
    ``sentence_hits`` best chunks only (the others will not reach the answer stage)."""

    def __init__(
        self,
        model_path_or_name: str,
        *,
        batch_size: int = 32,
        max_length: int = 512,
        sentence_hits: int = 10,
    ) -> None:
        if batch_size <= 0 or max_length <= 0 or sentence_hits < 0:
            raise ValueError("batch_size and max_length must be > 0, sentence_hits >= 0")
        path = Path(model_path_or_name).expanduser()
        if not path.is_dir():
            raise RerankerUnavailable(
                f"DOCENT_RERANKER_MODEL={model_path_or_name!r} is not a local model directory; "
                "Docent never downloads models (unset it to use the offline reranker)"
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        import torch
        from sentence_transformers import CrossEncoder

        try:
            self._model: Any = CrossEncoder(
                str(path), device="cpu", local_files_only=True, max_length=max_length
            )
        except Exception as exc:  # transformers raises OSError, ValueError, KeyError...
            raise RerankerUnavailable(
                f"DOCENT_RERANKER_MODEL={model_path_or_name!r} could not be loaded as a "
                f"CrossEncoder: {exc}"
            ) from exc
        if self._model.num_labels != 1:
            raise RerankerUnavailable(
                f"DOCENT_RERANKER_MODEL={model_path_or_name!r} has {self._model.num_labels} "
                "output labels; a reranker must give one relevance score"
            )
        self._sigmoid = torch.nn.Sigmoid()
        self.batch_size = batch_size
        self.sentence_hits = sentence_hits

    def warm(self, chunks: Sequence[Chunk]) -> None:
        """It reads question and passage together: nothing to keep."""

    def _predict(self, pairs: Sequence[tuple[str, str]]) -> NDArray[np.float32]:
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        import torch

        with torch.inference_mode():
            scores = self._model.predict(
                list(pairs),
                batch_size=self.batch_size,
                activation_fn=self._sigmoid,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        return np.asarray(scores, dtype=np.float32).reshape(len(pairs))

    def rerank(self, query: str, hits: Sequence[Hit]) -> list[Hit]:
        if not hits:
            return []
        chunk_scores = self._predict([(query, passage(hit.chunk)) for hit in hits])
        order = sorted(range(len(hits)), key=lambda i: (-float(chunk_scores[i]), i))
        read_closely = set(order[: self.sentence_hits])
        pairs: list[tuple[str, str]] = []
        owners: list[int] = []
        for i in sorted(read_closely):
            for unit in hits[i].chunk.sentences:
                pairs.append((query, unit))
                owners.append(i)
        sentence_scores = self._predict(pairs)
        best: dict[int, tuple[float, str]] = {}
        per_unit: dict[int, list[float]] = {}
        for owner, pair, score in zip(owners, pairs, sentence_scores, strict=True):
            per_unit.setdefault(owner, []).append(float(score))
            if owner not in best or float(score) > best[owner][0]:
                best[owner] = (float(score), pair[1])
        scored: list[Scored] = []
        for i, hit in enumerate(hits):
            best_sentence: str | None = None
            if i in best:
                best_sentence = best[i][1]
            elif i in read_closely and not hit.chunk.sentences:
                best_sentence = hit.chunk.text
            units = tuple(round(x, 4) for x in per_unit.get(i, ()))
            scored.append((hit, float(chunk_scores[i]), best_sentence, units))
        return ranked(scored)
