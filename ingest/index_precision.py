"""An index's vectors and its questions' vectors in one precision.

The same text under bf16 autocast sits ~1e-5 to 4e-5 (1 - cos) from its float32 vector:
enough to move rerank scores by ~2e-3 and swap near-ties. Which precision a machine would
choose depends on the machine (``ingest/precision.py``), and one index is written and read
by processes on several (a Celery worker with AMX, an API replica without), so the index
records the precision of its vectors and every process follows the record:

- a new (empty) index records the embedder's own choice;
- an index built before the record existed is read once: a few stored chunk vectors are
  embedded again in both precisions, the nearer one is recorded (bf16 and float32 are
  ~1e-5 apart, one precision against itself ~1e-7);
- an embedder whose choice was ``auto`` follows the record; one forced by
  ``DOCENT_EMBEDDING_BF16=true|false`` to the other precision is refused (``ConfigError``),
  as is any other embedder (an injected one) in another precision.
"""

from __future__ import annotations

import logging

import numpy as np

from docent.contracts import Embedder
from docent.errors import ConfigError
from ingest.embedding import SentenceTransformerEmbedder
from ingest.onnx_encoder import cosine_distance
from ingest.precision import PrecisionChoice
from store.ids import CHUNK_VECTOR
from store.protocol import ChunkIndex

log = logging.getLogger(__name__)

SAMPLE_CHUNKS = 12
PRECISIONS = ("fp32", "bf16")


def bind_precision(index: ChunkIndex, embedder: Embedder) -> Embedder:
    """``embedder`` in the precision ``index`` records (recording one first when it has
    none). Embedders without a precision (the hashing test embedder) are returned as they
    are."""
    if not isinstance(embedder, SentenceTransformerEmbedder):
        return embedder
    recorded = index.embedding_precision
    if recorded is None:
        recorded = _first_record(index, embedder)
    if recorded not in PRECISIONS:
        raise ConfigError(
            f"index {index.name!r} records its vectors' precision as {recorded!r}, which this "
            f"version does not know ({', '.join(PRECISIONS)})"
        )
    if recorded == embedder.precision.name:
        return embedder
    if embedder.mode != "auto":
        raise ConfigError(
            f"index {index.name!r} holds {recorded} vectors, and DOCENT_EMBEDDING_BF16 forces "
            f"{embedder.precision.name}: its questions and new documents would be embedded in "
            f"another precision than its vectors. Set DOCENT_EMBEDDING_BF16=auto (or "
            f"{'true' if recorded == 'bf16' else 'false'}), or set DOCENT_COLLECTION to a new "
            "name and reindex."
        )
    log.info(
        "embedding precision: %s, as index %r records (this machine alone would choose %s: %s)",
        recorded,
        index.name,
        embedder.precision.name,
        embedder.precision.reason,
    )
    bound = PrecisionChoice(recorded == "bf16", f"index {index.name!r} holds {recorded} vectors")
    return embedder.with_precision(bound)


def _first_record(index: ChunkIndex, embedder: SentenceTransformerEmbedder) -> str:
    if index.count() == 0:
        precision = embedder.precision.name
        how = f"a new index: the embedder's choice ({embedder.precision.reason})"
    else:
        precision, how = infer_precision(index, embedder)
    index.record_precision(precision)
    log.info("index %r: recorded embedding precision %s (%s)", index.name, precision, how)
    return precision


def infer_precision(index: ChunkIndex, embedder: SentenceTransformerEmbedder) -> tuple[str, str]:
    """The precision a few stored chunk vectors were computed in: the one whose vectors,
    computed again now, are nearer to them. Loads the torch model (once per index)."""
    sample = []
    for chunk in index.scroll(batch=SAMPLE_CHUNKS):
        sample.append(chunk.chunk_id)
        if len(sample) == SAMPLE_CHUNKS:
            break
    stored = index.get(sample, vectors=(CHUNK_VECTOR,))
    rows = [stored[cid] for cid in sample if cid in stored]
    texts = [row.chunk.embed_text for row in rows]
    vectors = np.vstack([row.vectors[CHUNK_VECTOR] for row in rows]).astype(np.float32)
    distance = {
        "fp32": cosine_distance(embedder.encode_in(texts, bf16=False), vectors),
        "bf16": cosine_distance(embedder.encode_in(texts, bf16=True), vectors),
    }
    precision = min(PRECISIONS, key=lambda name: distance[name])
    how = (
        f"read from {len(rows)} stored vectors: 1 - cos to fp32 {distance['fp32']:.1e}, "
        f"to bf16 {distance['bf16']:.1e}"
    )
    return precision, how
