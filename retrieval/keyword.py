"""The keyword leg: BM25 (rank-bm25) over every chunk's heading path and text, built from
``ChunkIndex.scroll`` so both legs see the same chunks.

The index is static, so it is keyed by the database's ``index_version``: a snapshot per
version, persisted as ``<data_dir>/keyword/<index name>-v<version>.pkl``, reloaded from
that file or rebuilt from the chunk index when the version moves. A long-lived searcher
calls ``refresh(version)`` before each query and so sees new ingests without a restart.

A new ingest does not make the next question wait for a large rebuild: while the previous
snapshot holds more than ``inline_max_chunks`` chunks, the new one is built on a background
thread and questions run on the previous version until it is ready (the searcher re-reads
those hits from the chunk index, so a re-marked or deleted chunk is never served stale).
Small indexes (a rebuild well under a second) are rebuilt inline.

A snapshot file that would not fit on the data dir's disk with ``min_free_disk_mb`` MiB to
spare is not written (``docent.disk``: filling the disk would kill the embedded vector
engine); the snapshot still serves from memory and the next process rebuilds it.

Permissions: the caller's mask zeroes the scores of chunks the asker may not see *before*
the top-k is taken; chunks that share no term with the query (score 0) are never hits.
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rank_bm25 import BM25Okapi

from docent.contracts import Chunk
from docent.disk import disk_full_reason
from retrieval.errors import KeywordIndexError
from retrieval.permissions import AccessColumns
from retrieval.tokenize import tokenize
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)

# Bump when the tokeniser, the indexed text or the stored statistics change: older files are
# then rebuilt. 2: the file holds the built BM25 statistics, not the token lists (building
# them again took ~0.8 s of a cold `docent ask` on ../shared/corpora on a Zen 1 EPYC).
FORMAT_VERSION = 2


class LuceneBM25(BM25Okapi):  # type: ignore[misc]  # rank-bm25 ships no types
    """BM25Okapi with Lucene's always-positive idf, ``log(1 + (N - n + 0.5) / (n + 0.5))``
    (Okapi's idf goes negative for terms in over half the chunks, which in a small corpus
    can sink an exact match), scored from postings instead of a scan of every chunk."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75):
        super().__init__([list(doc) for doc in corpus], k1=k1, b=b)
        postings: dict[str, tuple[list[int], list[int]]] = {}
        for index, freqs in enumerate(self.doc_freqs):
            for term, tf in freqs.items():
                docs, tfs = postings.setdefault(term, ([], []))
                docs.append(index)
                tfs.append(tf)
        self._postings = {
            term: (np.asarray(docs, dtype=np.int64), np.asarray(tfs, dtype=np.float64))
            for term, (docs, tfs) in postings.items()
        }
        self._length_norm = self.k1 * (
            1 - self.b + self.b * np.asarray(self.doc_len, dtype=np.float64) / self.avgdl
        )
        # The postings replace the per-chunk term counts BM25Okapi's own scorers read (a
        # dict per chunk): they are not kept, in memory or in the snapshot file.
        del self.doc_freqs

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5))

    def get_scores(self, query: Sequence[str]) -> NDArray[np.float64]:
        """The same sum as BM25Okapi.get_scores, one term's postings at a time."""
        scores = np.zeros(self.corpus_size, dtype=np.float64)
        for term in query:
            posting = self._postings.get(term)
            if posting is None:
                continue
            docs, tfs = posting
            scores[docs] += self.idf[term] * tfs * (self.k1 + 1) / (tfs + self._length_norm[docs])
        return scores


def indexed_text(chunk: Chunk) -> str:
    """What BM25 reads: the title (when the heading path does not start with it), the
    heading path and the chunk text."""
    parts: list[str] = []
    if chunk.title and (not chunk.heading_path or chunk.heading_path[0] != chunk.title):
        parts.append(chunk.title)
    parts.extend(chunk.heading_path)
    parts.append(chunk.text)
    return "\n".join(parts)


@dataclass(frozen=True)
class KeywordSnapshot:
    """The keyword index at one ``index_version``: the chunks and their BM25 statistics."""

    version: int
    chunks: tuple[Chunk, ...]
    bm25: LuceneBM25 | None  # None when there are no chunks

    @cached_property
    def access(self) -> AccessColumns:
        """The chunks' access fields as columns, for fast permission masks."""
        return AccessColumns.of(self.chunks)

    def search(self, query: str, mask: NDArray[np.bool_], limit: int) -> list[tuple[Chunk, float]]:
        """Best ``limit`` chunks the mask allows, by BM25 score; never a zero-score chunk."""
        if limit <= 0:
            raise ValueError("limit must be greater than 0")
        mask = np.asarray(mask, dtype=np.bool_)
        if mask.shape != (len(self.chunks),):
            raise ValueError(
                f"permission mask has shape {mask.shape}, the keyword index holds "
                f"{len(self.chunks)} chunks (version {self.version})"
            )
        terms = tokenize(query)
        if self.bm25 is None or not terms:
            return []
        scores = np.where(mask, self.bm25.get_scores(terms), 0.0)
        candidates = np.flatnonzero(scores > 0.0)
        if len(candidates) > limit:
            # Only those at or above the limit-th best score can be kept (ties at the cut-off
            # included): sorting every matching chunk cost ~10 ms at 200,000 chunks.
            at = len(candidates) - limit
            kth = np.partition(scores[candidates], at)[at]
            candidates = candidates[scores[candidates] >= kth]
        # Best score first; equal scores in chunk-id order, so the cut-off is deterministic.
        order = candidates[np.lexsort((candidates, -scores[candidates]))][:limit]
        return [(self.chunks[i], float(scores[i])) for i in order]


def build_snapshot(
    chunks: Sequence[Chunk], version: int, *, k1: float = 1.5, b: float = 0.75
) -> KeywordSnapshot:
    """A snapshot over ``chunks`` (ordered by chunk id)."""
    ordered = tuple(sorted(chunks, key=lambda c: c.chunk_id))
    tokens = [tokenize(indexed_text(c)) for c in ordered]
    bm25 = LuceneBM25(tokens, k1, b) if ordered else None
    return KeywordSnapshot(version=version, chunks=ordered, bm25=bm25)


def snapshot_size(chunks: Sequence[Chunk]) -> int:
    """A generous estimate of a snapshot file: twice the text each chunk's payload holds
    (text, sentences, embedding text; its BM25 postings hold the text again) and 1 KiB of fields a
    chunk (about twice what the sample corpus measured)."""
    text = sum(
        len(c.text.encode("utf-8"))
        + len(c.embed_text.encode("utf-8"))
        + sum(len(s.encode("utf-8")) for s in c.sentences)
        for c in chunks
    )
    return 2 * text + 1024 * len(chunks)


class KeywordIndex:
    """The keyword leg over one chunk index, kept at the database's index version."""

    def __init__(
        self,
        index: ChunkIndex,
        data_dir: Path,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        keep_versions: int = 2,
        inline_max_chunks: int = 5_000,
        min_free_disk_mb: int = 0,
    ) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0:
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        if keep_versions < 1:
            raise ValueError("keep_versions must be at least 1")
        if inline_max_chunks < 0:
            raise ValueError("inline_max_chunks must be 0 or more")
        if min_free_disk_mb < 0:
            raise ValueError("min_free_disk_mb must be 0 or more")
        self.index = index
        self.folder = Path(data_dir) / "keyword"
        self.k1, self.b = k1, b
        self.keep_versions = keep_versions
        self.inline_max_chunks = inline_max_chunks
        self.min_free_disk_mb = min_free_disk_mb
        self._snapshot: KeywordSnapshot | None = None
        self._lock = threading.Lock()
        self._builder: threading.Thread | None = None
        self._wanted = -1
        self.last_build_ms: float | None = None

    # --- the current snapshot ------------------------------------------------------------
    @property
    def snapshot(self) -> KeywordSnapshot:
        if self._snapshot is None:
            raise KeywordIndexError("keyword index not loaded yet: call refresh(index_version)")
        return self._snapshot

    @property
    def version(self) -> int | None:
        return self._snapshot.version if self._snapshot else None

    @property
    def chunks(self) -> tuple[Chunk, ...]:
        return self.snapshot.chunks

    def search(self, query: str, mask: NDArray[np.bool_], limit: int) -> list[tuple[Chunk, float]]:
        return self.snapshot.search(query, mask, limit)

    def path(self, version: int) -> Path:
        return self.folder / f"{self.index.name}-v{version}.pkl"

    # --- keeping up with ingests ---------------------------------------------------------
    def refresh(self, version: int, *, wait: bool = False) -> KeywordSnapshot:
        """The snapshot to search at ``version``: the one in memory, else the file, else a
        rebuild. Past ``inline_max_chunks`` (and unless ``wait``) a rebuild runs in the
        background and the previous snapshot is returned meanwhile (its ``version`` says so)."""
        current = self._snapshot
        if current is not None and current.version == version:
            return current
        if current is not None and not wait and len(current.chunks) > self.inline_max_chunks:
            self._build_in_background(version)
            return self._snapshot or current
        with self._lock:
            current = self._snapshot
            if current is not None and current.version == version:
                return current
            snapshot = self._load(version) or self._rebuild(version)
            self._install(snapshot)
            return snapshot

    def _install(self, snapshot: KeywordSnapshot) -> None:
        current = self._snapshot
        if current is None or snapshot.version >= current.version:
            self._snapshot = snapshot

    def _build_in_background(self, version: int) -> None:
        with self._lock:
            self._wanted = max(self._wanted, version)
            if self._builder is not None and self._builder.is_alive():
                return  # the running builder picks up the newest wanted version when done
            self._builder = threading.Thread(
                target=self._build_loop, name="keyword-rebuild", daemon=True
            )
            self._builder.start()

    def _build_loop(self) -> None:
        while True:
            with self._lock:
                target = self._wanted
                current = self._snapshot
                if current is not None and current.version >= target:
                    self._builder = None
                    return
            try:
                snapshot = self._load(target) or self._rebuild(target)
            except Exception:  # the previous snapshot keeps serving; the next query retries
                log.exception("keyword index: background rebuild of version %d failed", target)
                with self._lock:
                    self._builder = None
                return
            with self._lock:
                self._install(snapshot)

    def wait_built(self, timeout: float | None = None) -> None:
        """Block until a background rebuild (if any) has finished."""
        builder = self._builder
        if builder is not None:
            builder.join(timeout)

    def close(self) -> None:
        self.wait_built()

    def _rebuild(self, version: int) -> KeywordSnapshot:
        started = time.perf_counter()
        snapshot = build_snapshot(list(self.index.scroll()), version, k1=self.k1, b=self.b)
        self.last_build_ms = (time.perf_counter() - started) * 1000.0
        self._save(snapshot)
        log.info("keyword index rebuilt: version %d, %d chunks", version, len(snapshot.chunks))
        return snapshot

    def _load(self, version: int) -> KeywordSnapshot | None:
        path = self.path(version)
        if not path.exists():
            return None
        try:
            with path.open("rb") as fh:
                # Our own file under the data dir, written by _save below.
                data: dict[str, Any] = pickle.load(fh)  # noqa: S301
            if (
                data.get("format") != FORMAT_VERSION
                or data.get("collection") != self.index.name
                or data.get("version") != version
                or (data.get("k1"), data.get("b")) != (self.k1, self.b)
            ):
                return None
            chunks = tuple(Chunk.from_payload(p) for p in data["chunks"])
            # A database reset can reuse a version number over different content: the
            # point count is a cheap guard against serving a stale file.
            if len(chunks) != self.index.count():
                log.warning("keyword index file %s is stale; rebuilding", path.name)
                return None
            bm25 = data["bm25"]
            if not (isinstance(bm25, LuceneBM25) if chunks else bm25 is None):
                raise ValueError("its BM25 statistics do not match its chunks")
        except (OSError, pickle.UnpicklingError, EOFError, KeyError, TypeError, ValueError) as exc:
            log.warning("keyword index file %s unreadable (%s); rebuilding", path.name, exc)
            return None
        return KeywordSnapshot(version=version, chunks=chunks, bm25=bm25)

    def _save(self, snapshot: KeywordSnapshot) -> None:
        reason = disk_full_reason(
            self.folder, snapshot_size(snapshot.chunks), self.min_free_disk_mb
        )
        if reason is not None:
            # Serving from memory still works; the next process rebuilds.
            log.warning("keyword index not persisted: %s", reason)
            return
        data = {
            "format": FORMAT_VERSION,
            "collection": self.index.name,
            "version": snapshot.version,
            "k1": self.k1,
            "b": self.b,
            "chunks": [c.to_payload() for c in snapshot.chunks],
            "bm25": snapshot.bm25,
        }
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            try:
                with os.fdopen(fd, "wb") as fh:
                    pickle.dump(data, fh, protocol=pickle.HIGHEST_PROTOCOL)
                # Atomic: a concurrent reader sees the old file or the whole new one.
                os.replace(tmp, self.path(snapshot.version))
            finally:
                Path(tmp).unlink(missing_ok=True)
        except OSError as exc:
            # Serving from memory still works; the next process rebuilds.
            log.warning("keyword index not persisted to %s: %s", self.folder, exc)
            return
        self._prune(snapshot.version)

    def _prune(self, keep: int) -> None:
        prefix = f"{self.index.name}-v"
        versions = []
        for file in self.folder.glob(f"{prefix}*.pkl"):
            tail = file.name[len(prefix) : -len(".pkl")]
            if tail.isdigit():
                versions.append((int(tail), file))
        stale = sorted((v for v in versions if v[0] != keep), reverse=True)
        for _, file in stale[self.keep_versions - 1 :]:
            file.unlink(missing_ok=True)
