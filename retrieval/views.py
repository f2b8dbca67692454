"""How retrieval's hits read: the JSON of ``docent search --json`` (the search hit's
contract, ``docent.views.hit_json``, with what ``--explain`` adds) and its terminal lines;
the commands live in the composition root (``docent/commands/search.py``)."""

from __future__ import annotations

from typing import Any

from docent.contracts import Hit
from docent.views import hit_json, iso


def search_hit(
    hit: Hit, *, explain: bool = False, threshold: float | None = None
) -> dict[str, Any]:
    """One hit as ``docent search --json`` shows it: the search hit's contract
    (``docent.views.hit_json``, an ask's ``retrieved``); with ``explain``, how retrieval
    ranked it too, and with ``threshold`` (a cut candidate) why it was cut."""
    out = hit_json(hit)
    if explain:
        out["effective"] = iso(hit.chunk.effective_date)
        out["scores"] = {
            "bm25_rank": hit.bm25_rank,
            "vector_rank": hit.vector_rank,
            "fused": round(hit.fused_score, 6),
            "rerank": None if hit.rerank_score is None else round(hit.rerank_score, 6),
        }
        out["best_sentence"] = hit.best_sentence
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
