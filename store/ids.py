"""The stable point-id rule and the names of the two vectors every point carries."""

from __future__ import annotations

import uuid

CHUNK_VECTOR = "chunk"
SENTENCE_VECTOR = "sentences"
VECTOR_NAMES = (CHUNK_VECTOR, SENTENCE_VECTOR)
_POINT_NAMESPACE = uuid.UUID("6f1c2b8e-5d7a-4c1e-9a3b-2f4e8d6c0b1a")

# Payload fields the access filter, the status rules and the writes select on: every
# adapter keeps a payload index on each of them.
INDEXED_FIELDS = ("source", "access_level", "groups", "status")
# Search hits leave out what no reader of a hit uses (``embed_text``: the embedder's input),
# a third less payload per hit; their ``Chunk.embed_text`` then equals ``text``.
SEARCH_PAYLOAD_EXCLUDES = ("embed_text",)


def point_id(chunk_id: str) -> str:
    """Stable point id: the same chunk id always lands on the same point."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))
