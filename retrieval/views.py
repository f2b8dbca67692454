"""How retrieval's hits read: the JSON of ``docent search --json`` and its terminal lines;
the commands live in the composition root (``docent/commands/search.py``)."""

from __future__ import annotations

from typing import Any

from docent.contracts import Hit


def hit_json(hit: Hit, threshold: float | None = None) -> dict[str, Any]:
    """One hit as the CLI's JSON shows it (``threshold`` given: say why it was cut)."""
    chunk = hit.chunk
    out: dict[str, Any] = {
        "rank": hit.rank,
        "chunk_id": chunk.chunk_id,
        "source": chunk.source,
        "heading_path": list(chunk.heading_path),
        "status": chunk.status,
        "effective_date": chunk.effective_date.isoformat() if chunk.effective_date else None,
        "scores": {
            "bm25_rank": hit.bm25_rank,
            "vector_rank": hit.vector_rank,
            "fused": round(hit.fused_score, 6),
            "rerank": None if hit.rerank_score is None else round(hit.rerank_score, 6),
        },
        "best_sentence": hit.best_sentence,
        "text": chunk.text,
    }
    if threshold is not None:
        below = hit.rerank_score is None or hit.rerank_score < threshold
        out["reason"] = "below_threshold" if below else "beyond_top_k"
    return out


def hit_line(hit: Hit, threshold: float | None = None) -> str:
    chunk = hit.chunk
    rerank = "-" if hit.rerank_score is None else f"{hit.rerank_score:.3f}"
    when = chunk.effective_date.isoformat() if chunk.effective_date else "undated"
    legs = f"bm25 #{hit.bm25_rank or '-'}, vector #{hit.vector_rank or '-'}"
    head = f"{hit.rank}. [{rerank}] {chunk.source}"
    if chunk.heading_path:
        head += f" › {chunk.heading}"
    if threshold is not None:
        below = hit.rerank_score is None or hit.rerank_score < threshold
        head += " (below threshold)" if below else " (beyond top-k)"
    lines = [head, f"   {chunk.status}, effective {when}; {legs}, fused {hit.fused_score:.4f}"]
    if hit.best_sentence:
        lines.append(f"   “{hit.best_sentence}”")
    return "\n".join(lines)
