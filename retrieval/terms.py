"""How much of a question's wording a passage covers, word by word: the evidence order's
seventh signal (``retrieval/order.py``).

A word of the question counts as covered by the passage's nearest word — the cosine of the
bundled embedder's vectors of the two words read alone — so "washing my clothes" finds
"laundry" and "ring" finds "telephone", where the keyword leg needs the same word and the
passage vector blurs one sentence's rule into its neighbours'. A cosine at or below
``FLOOR`` covers nothing, 1 covers the word fully. Words weigh by how few of the question's
own candidates hold them (an inverse document frequency over the candidate pool, not the
corpus: a word every candidate shares tells them apart no better than none does, on any
corpus). Chosen on the dev splits, leave one corpus out (evals/reports/transfer.md,
change set 7).

Word vectors are computed once per word and kept in ``<data_dir>/terms/`` (one file per
embedding model), so a new process reads them instead of embedding again; a word never
seen is embedded when a question or a candidate first holds it.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import re
import tempfile
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk, Embedder, Hit
from retrieval.tokenize import STOP_WORDS

log = logging.getLogger(__name__)

FLOOR = 0.3
# Words of three letters or more; digits and codes are the keyword leg's and the code
# rule's (an embedder cannot tell "RC-77" from "RC-75").
_WORD = re.compile(r"[^\W\d_]{3,}")
# Passages whose word rows are kept in memory (~0.5 KB each as int32: 100 MiB at 200,000).
PASSAGES_KEPT = 250_000
# New words are written out once this many have gathered (and when the process closes).
SAVE_EVERY = 256
_BATCH = 256


class WordVectors(Protocol):
    """Unit vectors of single words: rows of one table, looked up by word or by passage."""

    @property
    def table(self) -> NDArray[np.float32]: ...

    def rows(self, words: Sequence[str]) -> NDArray[np.intp]: ...

    def passage_rows(self, chunk: Chunk) -> NDArray[np.intp]: ...

    def learn(self, chunks: Sequence[Chunk]) -> None: ...


def _words(text: str) -> set[str]:
    """The distinct words of ``text`` worth matching: lower-cased, three letters or more,
    not stop words."""
    return set(_WORD.findall(text.lower())).difference(STOP_WORDS)


@lru_cache(maxsize=8192)
def content_words(text: str) -> tuple[str, ...]:
    """A question's words worth matching (``_words``), sorted."""
    return tuple(sorted(_words(text)))


def passage_words(chunk: Chunk) -> list[str]:
    """A passage's distinct words, its heading path's included (a rule's subject is often
    only there), in no order (it is read ~50 times a question: no sorting, no cache on the
    text: ``WordVectorCache.passage_rows`` keeps the result per chunk)."""
    return list(_words(" ".join((*chunk.heading_path, chunk.text))))


def term_coverage(question: str, hits: Sequence[Hit], words: WordVectors) -> NDArray[np.float64]:
    """Per hit, the weighted share of the question's words its passage covers (0–1)."""
    asked = content_words(question)
    coverage = np.zeros(len(hits))
    if not asked or not hits:
        return coverage
    asked_rows = words.rows(asked)
    held = [words.passage_rows(h.chunk) for h in hits]
    table = words.table  # read after the rows: it holds every row handed out
    lengths = np.fromiter((len(r) for r in held), dtype=np.intp, count=len(held))
    if not lengths.any():
        return coverage
    flat = np.concatenate(held)
    # How many candidates hold each question word (a passage lists a word once).
    holders = np.array([np.count_nonzero(flat == r) for r in asked_rows], dtype=np.float64)
    weights = np.log((len(hits) + 1) / (holders + 0.5))
    weights /= weights.sum()
    present, where = np.unique(flat, return_inverse=True)
    similarity = (table[asked_rows] @ table[present].T)[:, where]  # question words × units
    filled = np.flatnonzero(lengths)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
    nearest = np.maximum.reduceat(similarity, starts, axis=1)  # question words × passages
    covered = np.clip((nearest - FLOOR) / (1.0 - FLOOR), 0.0, 1.0)
    coverage[filled] = weights @ covered
    return coverage


def _passage_key(chunk: Chunk) -> tuple[str, str]:
    return (chunk.chunk_id, chunk.content_hash)


class WordVectorCache:
    """``WordVectors`` through an embedder, each word embedded once and kept on disk.

    Thread-safe. Processes sharing a data dir (``docent serve`` and a ``docent ask``) each
    write the words they embedded: a write takes the file's lock and first adds the words
    another process wrote since this one read it, so neither loses the other's."""

    def __init__(self, embedder: Embedder, folder: Path | None) -> None:
        self.embedder = embedder
        key = hashlib.sha256(f"{embedder.model_name}:{embedder.dimension}".encode()).hexdigest()
        self.path = Path(folder) / f"words-{key[:16]}.npz" if folder is not None else None
        self._lock = threading.Lock()
        self._row: dict[str, int] = {}
        self._table = np.zeros((0, embedder.dimension), dtype=np.float32)
        self._unsaved = 0
        self._passages: dict[tuple[str, str], NDArray[np.int32]] = {}
        self._merge_from_disk()

    def __len__(self) -> int:
        return len(self._row)

    @property
    def table(self) -> NDArray[np.float32]:
        return self._table

    def rows(self, words: Sequence[str]) -> NDArray[np.intp]:
        with self._lock:
            missing = set(words).difference(self._row)
            if missing:
                self._add(sorted(missing))
            return np.array(list(map(self._row.__getitem__, words)), dtype=np.intp)

    def passage_rows(self, chunk: Chunk) -> NDArray[np.intp]:
        """The rows of a passage's words, kept per chunk version (a question reads ~50)."""
        found = self._passages.get(_passage_key(chunk))
        if found is None:
            found = self._remember(chunk, passage_words(chunk))
        return found.astype(np.intp)

    def learn(self, chunks: Sequence[Chunk]) -> None:
        """Read every passage's words and embed the new ones now (at start, off the question
        path), so a question reads its candidates' words from memory: reading a passage the
        first time costs ~75 µs of regular expression, 50 candidates a question."""
        kept = [c for c in chunks[:PASSAGES_KEPT] if _passage_key(c) not in self._passages]
        words = [passage_words(c) for c in kept]
        new = sorted(set().union(*words).difference(self._row))
        for i in range(0, len(new), _BATCH):
            self.rows(new[i : i + _BATCH])  # a batch at a time: questions may run between
        for chunk, its_words in zip(kept, words, strict=True):
            self._remember(chunk, its_words)
        self.save()

    def _remember(self, chunk: Chunk, words: Sequence[str]) -> NDArray[np.int32]:
        rows = self.rows(words).astype(np.int32)
        if len(self._passages) >= PASSAGES_KEPT:
            self._passages.clear()  # a crude bound; refilled by the next questions
        self._passages[_passage_key(chunk)] = rows
        return rows

    def _add(self, missing: list[str]) -> None:
        fresh = [
            self.embedder.embed(missing[i : i + _BATCH]) for i in range(0, len(missing), _BATCH)
        ]
        self._append(missing, np.concatenate(fresh))
        self._unsaved += len(missing)
        if self._unsaved >= SAVE_EVERY:
            self._save()

    def save(self) -> None:
        """Write the words gathered since the last write (the process is closing)."""
        with self._lock:
            if self._unsaved:
                self._save()

    def _append(self, words: Sequence[str], vectors: NDArray[np.float32]) -> None:
        """New words' vectors after the rows already handed out (those keep their place)."""
        start = len(self._table)
        self._table = np.concatenate([self._table, vectors]).astype(np.float32, copy=False)
        for i, word in enumerate(words):
            self._row[word] = start + i

    def _read(self) -> tuple[list[str], NDArray[np.float32]] | None:
        """The words and vectors on disk, or None (no file, or one not to trust)."""
        if self.path is None or not self.path.exists():
            return None
        try:
            with np.load(self.path, allow_pickle=False) as data:
                words = [str(w) for w in data["words"]]
                table = np.asarray(data["vectors"], dtype=np.float32)
        except (OSError, KeyError, ValueError) as exc:
            log.warning("word vectors %s unreadable (%s); embedding words again", self.path, exc)
            return None
        if table.shape != (len(words), self.embedder.dimension):
            log.warning("word vectors %s do not fit the embedder; embedding again", self.path)
            return None
        return words, table

    def _merge_from_disk(self) -> None:
        """The words on disk this process does not hold yet: all of them when it starts,
        then those another process wrote since."""
        found = self._read()
        if found is None:
            return
        words, table = found
        new = [i for i, w in enumerate(words) if w not in self._row]
        if new:
            self._append([words[i] for i in new], table[new])

    def _save(self) -> None:
        if self.path is None:
            self._unsaved = 0
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_suffix(".lock"), "a") as lock:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX)  # released when closed
                self._merge_from_disk()
                self._write(self.path)
        except OSError as exc:
            log.warning("word vectors not saved to %s: %s", self.path, exc)
            return
        self._unsaved = 0

    def _write(self, path: Path) -> None:
        words = sorted(self._row, key=self._row.__getitem__)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".npz")
        try:
            with os.fdopen(fd, "wb") as fh:
                np.savez(fh, words=np.array(words, dtype=np.str_), vectors=self._table)
            os.replace(tmp, path)  # atomic: a reader sees the old file or the new
        finally:
            Path(tmp).unlink(missing_ok=True)
