"""Creating and opening the Edge shard on disk: its engine configuration (vectors, HNSW,
optimizer threshold, keyword payload indexes) and ``index.json``, the record of the
embedding model, dimension and unit text it was built with, checked on every open so a
shard is never searched with vectors of another model or recipe, and the precision its
vectors were computed in (which the embedder then follows, ``ingest/index_precision.py``)."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from store.errors import IndexUnavailable, ModelMismatch
from store.ids import (
    CHUNK_VECTOR,
    INDEXED_FIELDS,
    PRECISION_KEY,
    REBUILD_COMMAND,
    SENTENCE_VECTOR,
    UNIT_TEXT,
    check_unit_text,
)

log = logging.getLogger(__name__)

FORMAT = 1
# HNSW graph for the chunk vector: Qdrant's defaults. The optimizer indexes a segment once
# it holds more than INDEXING_THRESHOLD_KB of vectors (~13k 384-d chunk vectors); smaller
# segments are scanned exactly, which measured faster than HNSW below ~20k points here.
HNSW_M = 16
HNSW_EF_CONSTRUCT = 100
FULL_SCAN_THRESHOLD_KB = 10_000
INDEXING_THRESHOLD_KB = 20_000


def check_model(meta_path: Path, name: str, model_name: str, dimension: int) -> str | None:
    """Refuse a shard built with another model; record the model for a new one. Returns the
    precision its vectors were recorded in (``None``: not recorded)."""
    if meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log.warning("unreadable %s: %s", meta_path, exc)
            meta = {}
        model, dim = meta.get("embedding_model"), meta.get("dimension")
        if model != model_name or dim != dimension:
            raise ModelMismatch(
                f"index {name!r} was built with {model!r} ({dim}-d); the configured "
                f"embedder is {model_name!r} ({dimension}-d). Use the same "
                "model, or set DOCENT_COLLECTION to a new name and reindex."
            )
        # `docent reindex` moves such an index aside and rebuilds it (store/open.py).
        check_unit_text(
            name,
            meta.get("unit_text"),
            f"Rebuild it from the document registry with: {REBUILD_COMMAND}",
        )
        precision = meta.get(PRECISION_KEY)
        return str(precision) if precision is not None else None
    record = {"format": FORMAT, "embedding_model": model_name, "dimension": dimension}
    _write_meta(meta_path, {**record, "unit_text": UNIT_TEXT})
    return None


def record_precision(meta_path: Path, precision: str) -> None:
    """Add the precision of the shard's vectors to its ``index.json``."""
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    _write_meta(meta_path, {**meta, PRECISION_KEY: precision})


def _write_meta(meta_path: Path, meta: dict[str, Any]) -> None:
    tmp = meta_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta), encoding="utf-8")
    os.replace(tmp, meta_path)


def shard_config(dimension: int) -> qe.EdgeConfig:
    return qe.EdgeConfig(
        vectors={
            CHUNK_VECTOR: qe.EdgeVectorParams(size=dimension, distance=qe.Distance.Cosine),
            SENTENCE_VECTOR: qe.EdgeVectorParams(
                size=dimension,
                distance=qe.Distance.Cosine,
                multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
                # Read by id only (the reranker): no graph (48 s vs 332 s at 50k).
                hnsw_config=qe.HnswIndexConfig(
                    m=0, ef_construct=HNSW_EF_CONSTRUCT, full_scan_threshold=0
                ),
            ),
        },
        hnsw_config=qe.HnswIndexConfig(
            m=HNSW_M,
            ef_construct=HNSW_EF_CONSTRUCT,
            full_scan_threshold=FULL_SCAN_THRESHOLD_KB,
        ),
        optimizers=qe.EdgeOptimizersConfig(indexing_threshold=INDEXING_THRESHOLD_KB),
    )


def open_shard(path: Path, dimension: int) -> Any:
    """Load the shard at ``path``, or create it (with its payload indexes) when empty."""
    fresh = not path.exists() or not any(path.iterdir())

    def open_it() -> Any:
        if fresh:
            shard = qe.EdgeShard.create(str(path), shard_config(dimension))
            for key in INDEXED_FIELDS:
                shard.update(
                    qe.UpdateOperation.create_field_index(key, qe.PayloadSchemaType.Keyword)
                )
            shard.flush()
            return shard
        return qe.EdgeShard.load(str(path))

    try:
        return open_it()
    except Exception as exc:  # the engine raises bare Exception with its own text
        log.warning("cannot open the Edge shard at %s: %s", path, exc)
        raise IndexUnavailable(
            f"the index in {path} could not be opened; if it is damaged, move it aside "
            "and rebuild it with `docent reindex`"
        ) from exc
