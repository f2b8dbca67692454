"""The chunk index and nothing else: the ``ChunkIndex`` contract, the typed access filter,
the stable point-id rule, the index's errors, and the adapters (``EdgeIndex``: Qdrant Edge
embedded in the process, the default; ``ServerIndex``: a Qdrant server). Nothing outside
this package imports an engine's client."""

from store.access import AccessFilter
from store.errors import IndexLocked, IndexUnavailable, LegacyIndex, ModelMismatch
from store.ids import CHUNK_VECTOR, SENTENCE_VECTOR, point_id
from store.protocol import ChunkIndex, StoredChunk

__all__ = [
    "CHUNK_VECTOR",
    "SENTENCE_VECTOR",
    "AccessFilter",
    "ChunkIndex",
    "IndexLocked",
    "IndexUnavailable",
    "LegacyIndex",
    "ModelMismatch",
    "StoredChunk",
    "point_id",
]
