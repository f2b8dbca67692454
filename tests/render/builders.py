"""Hand-built chunks and hits for the render and generate tests (not a test module)."""

from __future__ import annotations

from datetime import date
from typing import Any

from docent.contracts import Chunk, Hit


def make_chunk(
    chunk_id: str = "handbook.md#1",
    text: str = "Full-time employees receive 25 days of paid annual leave per calendar year.",
    *,
    heading_path: tuple[str, ...] = ("Employee Handbook", "Annual leave"),
    sentences: tuple[str, ...] | None = None,
    **fields: Any,
) -> Chunk:
    source = fields.pop("source", chunk_id.split("#", 1)[0])
    return Chunk(
        chunk_id=chunk_id,
        doc_id=fields.pop("doc_id", source),
        source=source,
        heading_path=heading_path,
        kind=fields.pop("kind", "text"),
        text=text,
        embed_text=text,
        sentences=sentences if sentences is not None else (),
        content_hash=fields.pop("content_hash", "h-" + chunk_id),
        effective_date=fields.pop("effective_date", date(2025, 1, 6)),
        **fields,
    )


def make_hit(
    chunk_id: str = "handbook.md#1",
    text: str = "Full-time employees receive 25 days of paid annual leave per calendar year.",
    *,
    rank: int = 1,
    score: float = 0.8,
    rerank_score: float | None = None,
    best_sentence: str | None = None,
    unit_scores: tuple[float, ...] = (),
    **chunk_fields: Any,
) -> Hit:
    return Hit(
        chunk=make_chunk(chunk_id, text, **chunk_fields),
        rank=rank,
        score=score,
        bm25_rank=rank,
        vector_rank=rank,
        fused_score=1.0 / (60 + rank),
        rerank_score=score if rerank_score is None else rerank_score,
        best_sentence=best_sentence,
        unit_scores=unit_scores,
    )


def ranked(*texts: str, prefix: str = "doc.md") -> list[Hit]:
    """Hits ranked 1..n over the given texts, ids ``<prefix>#<rank>``."""
    return [
        make_hit(f"{prefix}#{n}", text, rank=n, score=1.0 - n / 100)
        for n, text in enumerate(texts, start=1)
    ]
