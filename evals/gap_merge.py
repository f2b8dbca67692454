"""Choose the similarity at which two unanswered questions are one content gap
(``DOCENT_GAP_MERGE_SIMILARITY``, api/gaps.py) on example pairs: ``evals/gap_pairs.jsonl``
holds pairs of questions an employee might ask, each marked the same question in other words
(``same: true``) or a different question that shares words (``false``).

Merging two different questions hides one of them from the docs team; leaving two phrasings
apart only lists one gap twice. So the bar is the lowest on a 0.05 grid that merges no
different pair, and the report says how many same-meaning pairs it merges.

    python -m evals.gap_merge [--pairs evals/gap_pairs.jsonl] [--out evals/reports/gap_merge.md]

The question vectors come from the composition root's query encoder (the one the API embeds
questions with), so the bundled model, offline.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from docent.contracts import Embedder

PAIRS = Path(__file__).resolve().parent / "gap_pairs.jsonl"
REPORT = Path(__file__).resolve().parent / "reports" / "gap_merge.md"
GRID = tuple(round(0.05 * n, 2) for n in range(8, 20))  # 0.40 … 0.95


@dataclass(frozen=True)
class Pair:
    a: str
    b: str
    same: bool
    similarity: float


def load_pairs(path: Path = PAIRS) -> list[tuple[str, str, bool]]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [(str(r["a"]), str(r["b"]), bool(r["same"])) for r in rows]


def score_pairs(embedder: Embedder, pairs: Sequence[tuple[str, str, bool]]) -> list[Pair]:
    """Each pair's cosine (the vectors are unit length: their dot product)."""
    texts = [text for a, b, _ in pairs for text in (a, b)]
    vectors = embedder.embed(texts)
    return [
        Pair(a, b, same, round(float(vectors[2 * i] @ vectors[2 * i + 1]), 3))
        for i, (a, b, same) in enumerate(pairs)
    ]


def choose_threshold(scored: Sequence[Pair]) -> float:
    """The lowest grid value above every different pair's similarity."""
    worst = max((p.similarity for p in scored if not p.same), default=0.0)
    return next((t for t in GRID if t > worst), GRID[-1])


def merged(scored: Sequence[Pair], threshold: float, *, same: bool) -> int:
    return sum(1 for p in scored if p.same == same and p.similarity >= threshold)


def render_report(scored: Sequence[Pair], threshold: float, model: str) -> str:
    n_same = sum(1 for p in scored if p.same)
    n_diff = len(scored) - n_same
    lines = [
        "# Merging near-duplicate content gaps",
        "",
        f"Written by `python -m evals.gap_merge` over `evals/gap_pairs.jsonl` ({len(scored)} "
        f"pairs), question vectors from `{model}` (the query encoder).",
        "",
        f"**Chosen: `DOCENT_GAP_MERGE_SIMILARITY={threshold:.2f}`**, the lowest value on a "
        "0.05 grid that merges no pair of different questions: it merges "
        f"{merged(scored, threshold, same=True)} of {n_same} same-meaning pairs and "
        f"{merged(scored, threshold, same=False)} of {n_diff} different ones. A pair below "
        "it stays two gaps (listed twice); a pair above it would hide one question.",
        "",
        "| threshold | same-meaning merged | different merged |",
        "|---|---|---|",
    ]
    lines += [
        f"| {t:.2f} | {merged(scored, t, same=True)}/{n_same} | "
        f"{merged(scored, t, same=False)}/{n_diff} |"
        for t in GRID
    ]
    lines += ["", "| similarity | same? | question A | question B |", "|---|---|---|---|"]
    for p in sorted(scored, key=lambda p: -p.similarity):
        lines.append(f"| {p.similarity:.3f} | {'yes' if p.same else 'no'} | {p.a} | {p.b} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    from docent.settings import Settings
    from docent.wiring import open_services

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=Path, default=PAIRS)
    parser.add_argument("--out", type=Path, default=REPORT)
    args = parser.parse_args(argv)
    services = open_services(Settings())
    try:
        encoder = services.query_encoder
        scored = score_pairs(encoder, load_pairs(args.pairs))
        threshold = choose_threshold(scored)
        args.out.write_text(render_report(scored, threshold, encoder.model_name))
    finally:
        services.close()
    print(f"threshold {threshold:.2f}; report: {args.out}")


if __name__ == "__main__":
    main()
