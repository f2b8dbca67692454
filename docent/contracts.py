"""Data contracts every stage shares: small frozen values, no I/O, nothing else of ours imported.

A stage receives these and returns new ones (``dataclasses.replace``); it never mutates
what it was given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from docent.list_items import item_parents

Status = Literal["current", "superseded", "pending"]
Kind = Literal["text", "table", "list"]
ReasonCode = Literal["out_of_scope", "requires_human", "policy"]


@dataclass(frozen=True)
class DocumentMeta:
    """What we know about one document before it is chunked; ``status`` is derived, never typed."""

    source: str
    doc_id: str
    title: str | None = None
    effective_date: date | None = None
    superseded_by: str | None = None
    supersedes: tuple[str, ...] = ()
    access_level: str = "employee"
    groups: tuple[str, ...] = ()
    owner: str | None = None
    doc_type: str | None = None
    status: Status = "current"


@dataclass(frozen=True)
class Chunk:
    """One retrievable passage. ``text`` is the original text shown to people; ``embed_text``
    is what the embedder saw (heading path prefixed); ``sentences`` are the finer units
    (sentences, table rows, list items) the reranker and the extractive answerer read."""

    chunk_id: str  # "<source>#<n>"
    doc_id: str
    source: str
    heading_path: tuple[str, ...]
    kind: Kind
    text: str
    embed_text: str
    sentences: tuple[str, ...]
    content_hash: str
    effective_date: date | None = None
    superseded_by: str | None = None
    status: Status = "current"
    access_level: str = "employee"
    groups: tuple[str, ...] = ()
    owner: str | None = None
    doc_type: str | None = None
    title: str | None = None
    index_version: int = 0

    @property
    def heading(self) -> str:
        return " > ".join(self.heading_path)

    @property
    def unit_embed_texts(self) -> tuple[str, ...]:
        """What the embedder reads for each of ``sentences``: the unit under its heading
        path, as the chunk is read under it. "Per diem rates" says what "Lisbon: €64" is
        a rate of; an employee's words for a rule often name its section, not its sentence
        (evals/reports/answerer_fit.md: the answerer picks the right unit more often).
        A nested list item is read under the items it sits under as well (``item_parents``):
        "setting up my laptop" is a step of the onboarding item above it."""
        heading = self.heading
        parents = item_parents(self.text) if self.kind != "table" else {}
        return tuple(
            "\n".join(line for line in (heading, *parents.get(unit, ()), unit) if line)
            for unit in self.sentences
        )

    def to_payload(self) -> dict[str, Any]:
        return {
            "chunk_id": self.chunk_id,
            "doc_id": self.doc_id,
            "source": self.source,
            "heading_path": list(self.heading_path),
            "kind": self.kind,
            "text": self.text,
            "embed_text": self.embed_text,
            "sentences": list(self.sentences),
            "content_hash": self.content_hash,
            "effective_date": self.effective_date.isoformat() if self.effective_date else None,
            "superseded_by": self.superseded_by,
            "status": self.status,
            "access_level": self.access_level,
            "groups": list(self.groups),
            "owner": self.owner,
            "doc_type": self.doc_type,
            "title": self.title,
            "index_version": self.index_version,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> Chunk:
        eff = payload.get("effective_date")
        return cls(
            chunk_id=payload["chunk_id"],
            doc_id=payload["doc_id"],
            source=payload["source"],
            heading_path=tuple(payload.get("heading_path") or ()),
            kind=payload.get("kind", "text"),
            text=payload["text"],
            embed_text=payload.get("embed_text", payload["text"]),
            sentences=tuple(payload.get("sentences") or ()),
            content_hash=payload.get("content_hash", ""),
            effective_date=date.fromisoformat(eff) if eff else None,
            superseded_by=payload.get("superseded_by"),
            status=payload.get("status", "current"),
            access_level=payload.get("access_level", "restricted"),
            groups=tuple(payload.get("groups") or ()),
            owner=payload.get("owner"),
            doc_type=payload.get("doc_type"),
            title=payload.get("title"),
            index_version=int(payload.get("index_version", 0)),
        )


@dataclass(frozen=True)
class Principal:
    """Who is asking. ``clearance`` is a level name from the configured ordered levels."""

    user_id: str
    clearance: str
    groups: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Hit:
    """A chunk as retrieval ranked it. Ranks are 1-based; ``None`` means that leg missed it."""

    chunk: Chunk
    rank: int
    score: float
    bm25_rank: int | None = None
    vector_rank: int | None = None
    fused_score: float = 0.0
    rerank_score: float | None = None
    best_sentence: str | None = None
    # The reranker's score of each of ``chunk.sentences`` against the question (same order);
    # empty when the reranker read no units. The extractive answerer chooses by them.
    unit_scores: tuple[float, ...] = ()
    # The share of the codes the question names (``RC-77``) found in heading and text, as
    # the offline reranker read it for this question; ``None`` when no reranker did. The
    # evidence order reuses it rather than reading ~50 passages again. Not serialised.
    code_coverage: float | None = None


# What the asker sees first (DESIGN "Outcomes"), on every backend:
TIER_ANSWER = "answer"  # a checked answer, confident enough to show as one
TIER_PROBABLY_HERE = "probably_here"  # readable passages matched; not a checked answer
TIER_NOT_COVERED = "not_covered"  # nothing the asker may read matched
TIERS = (TIER_ANSWER, TIER_PROBABLY_HERE, TIER_NOT_COVERED)


@dataclass(frozen=True)
class Citation:
    id: str
    source: str
    heading_path: tuple[str, ...]
    effective: date | None
    status: Status
    quote: str


@dataclass(frozen=True)
class Answered:
    answer: str
    citations: tuple[Citation, ...]
    kind: Literal["answered"] = "answered"


@dataclass(frozen=True)
class InsufficientEvidence:
    missing: str
    kind: Literal["insufficient_evidence"] = "insufficient_evidence"


@dataclass(frozen=True)
class Ambiguous:
    readings: tuple[str, ...]
    clarifying_question: str
    kind: Literal["ambiguous"] = "ambiguous"


@dataclass(frozen=True)
class Declined:
    reason_code: ReasonCode
    detail: str = ""
    kind: Literal["declined"] = "declined"


Outcome = Answered | InsufficientEvidence | Ambiguous | Declined


class Embedder(Protocol):
    """Turns texts into unit-length float32 row vectors. Built once, injected everywhere."""

    @property
    def model_name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]: ...
