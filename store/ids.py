"""The stable point-id rule, the names of the two vectors every point carries, and what
the sentence vectors embed."""

from __future__ import annotations

import uuid
from functools import lru_cache

from store.errors import ModelMismatch

CHUNK_VECTOR = "chunk"
SENTENCE_VECTOR = "sentences"
VECTOR_NAMES = (CHUNK_VECTOR, SENTENCE_VECTOR)
# What each sentence vector embeds (``Chunk.unit_embed_texts``). Recorded with the model:
# vectors of bare sentences (indexes built before it) score units on another scale.
UNIT_TEXT = "heading-path+parent-items+unit"
# The metadata key of the precision the vectors were computed in (``fp32`` / ``bf16``): the
# same text under bf16 autocast sits ~1e-5 to 4e-5 (1 - cos) from its float32 vector, enough
# to reorder near-ties, so questions are embedded in the precision the index records.
PRECISION_KEY = "embedding_precision"
_POINT_NAMESPACE = uuid.UUID("6f1c2b8e-5d7a-4c1e-9a3b-2f4e8d6c0b1a")

# Payload fields the access filter, the status rules and the writes select on: every
# adapter keeps a payload index on each of them.
INDEXED_FIELDS = ("source", "access_level", "groups", "status")
# Search hits leave out what no reader of a hit uses (``embed_text``: the embedder's input),
# a third less payload per hit; their ``Chunk.embed_text`` then equals ``text``.
SEARCH_PAYLOAD_EXCLUDES = ("embed_text",)


@lru_cache(maxsize=65536)
def point_id(chunk_id: str) -> str:
    """Stable point id: the same chunk id always lands on the same point (cached: a uuid5
    costs ~12 µs, and a question reads ~50 candidates' ids twice)."""
    return str(uuid.uuid5(_POINT_NAMESPACE, chunk_id))


# The command that rebuilds an index from the document registry.
REBUILD_COMMAND = "docent reindex"
# What to do about an index of another unit rule where it cannot be rebuilt in place (a
# Qdrant server's collection).
NEW_COLLECTION = (
    f"Set DOCENT_COLLECTION to a new name and run `{REBUILD_COMMAND}`, or ingest into a new "
    "data dir."
)


def check_unit_text(name: str, recorded: object, remedy: str = NEW_COLLECTION) -> None:
    """Refuse an index whose sentence vectors embed other text than this version's units,
    saying ``remedy``."""
    if recorded != UNIT_TEXT:
        raise ModelMismatch(
            f"index {name!r} holds sentence vectors of {recorded or 'bare sentences'!r}; this "
            f"version embeds each unit under its heading path and parent list items "
            f"({UNIT_TEXT!r}). {remedy}"
        )
