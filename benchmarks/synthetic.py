"""Synthetic chunks for the query-latency benchmark, made from the sample corpus's sentences.

Embedding 50k real chunk texts would take the bundled model ~7 minutes here, so only the
pool of distinct corpus sentences is embedded (once); a synthetic chunk's sentence vectors
are the rows of the sentences it is made of and its chunk vector is their normalised mean.
The texts are real policy prose, so BM25 sees realistic term statistics, and the vectors
live where real ones do.
"""

from __future__ import annotations

import hashlib
import html
import random
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from docent.contracts import Chunk, Embedder

LEVELS = ("public", "employee", "confidential", "restricted")
LEVEL_WEIGHTS = (0.2, 0.5, 0.2, 0.1)  # an employee may read ~70 % of the chunks
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9€$])")
_TAG = re.compile(r"<[^>]+>")


def corpus_sentences(folder: Path, min_words: int = 5, max_words: int = 60) -> list[str]:
    """Distinct prose sentences of the corpus's text files (front matter, headings and
    table rows left out)."""
    seen: dict[str, None] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix not in {".md", ".txt", ".html"} or path.name == "README.md":
            continue
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            text = html.unescape(_TAG.sub("\n", text))
        text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
        for block in re.split(r"\n\s*\n", text):
            lines = [
                ln.strip(" -*")
                for ln in block.splitlines()
                if ln.strip() and not ln.lstrip().startswith(("#", "|"))
            ]
            for sentence in _SENTENCE_END.split(" ".join(lines)):
                words = sentence.split()
                if min_words <= len(words) <= max_words:
                    seen.setdefault(" ".join(words), None)
    return list(seen)


def synthetic_corpus(
    n: int,
    sentences: Sequence[str],
    sentence_vectors: NDArray[np.float32],
    seed: int = 7,
    per_doc: int = 25,
) -> tuple[list[Chunk], NDArray[np.float32], list[NDArray[np.float32]]]:
    """``n`` chunks of 3-6 pool sentences each, with their chunk and sentence vectors."""
    rng = random.Random(seed)
    chunks: list[Chunk] = []
    chunk_vectors = np.zeros((n, sentence_vectors.shape[1]), dtype=np.float32)
    unit_vectors: list[NDArray[np.float32]] = []
    for i in range(n):
        doc, section = divmod(i, per_doc)
        picks = rng.sample(range(len(sentences)), rng.randint(3, 6))
        units = tuple(sentences[p] for p in picks)
        text = " ".join(units)
        source = f"synthetic/doc-{doc:05d}.md"
        heading = (f"Synthetic policy {doc}", f"Section {section}")
        level = rng.choices(LEVELS, LEVEL_WEIGHTS)[0]
        rows = sentence_vectors[picks]
        mean = rows.mean(axis=0)
        chunk_vectors[i] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        unit_vectors.append(rows.astype(np.float32))
        chunks.append(
            Chunk(
                chunk_id=f"{source}#{section}",
                doc_id=hashlib.sha1(source.encode()).hexdigest()[:16],
                source=source,
                heading_path=heading,
                kind="text",
                text=text,
                embed_text=" > ".join(heading) + "\n" + text,
                sentences=units,
                content_hash=hashlib.sha256(text.encode()).hexdigest(),
                access_level=level,
                owner="benchmarks",
                title=heading[0],
            )
        )
    return chunks, chunk_vectors, unit_vectors


def embed_pool(embedder: Embedder, sentences: Sequence[str]) -> NDArray[np.float32]:
    return embedder.embed(list(sentences))
