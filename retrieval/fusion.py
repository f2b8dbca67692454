"""Reciprocal rank fusion (Cormack, Clarke & Büttcher, 2009): each ranking gives an id
``1 / (k + rank)`` with 1-based ranks, and the sums decide the fused order. It needs no
score calibration between legs, which BM25 scores and cosines do not share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def fuse_places(legs: Sequence[Mapping[str, int]], k: int = 60) -> list[tuple[str, float]]:
    """Fused ``(id, score)`` pairs, best first, from each leg's place for each id
    (``best_ranks``: a leg searched twice, the whole index then a part of it, counts each id
    once, at its better place). Ties keep the order in which ids were first seen (earlier
    legs first), so the result is deterministic."""
    if k < 0:
        raise ValueError(f"rrf k must be 0 or more, got {k}")
    scores: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for places in legs:
        for item, rank in places.items():
            first_seen.setdefault(item, len(first_seen))
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return sorted(scores.items(), key=lambda pair: (-pair[1], first_seen[pair[0]]))


def best_ranks(*rankings: Sequence[str]) -> dict[str, int]:
    """Each id's best (lowest) place over ``rankings``, places from 1, in the order the ids
    were first seen."""
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            best[item] = min(rank, best.get(item, rank))
    return best


def by_place(places: Mapping[str, int]) -> tuple[str, ...]:
    """The ids best place first (ties in the order they were first seen)."""
    return tuple(sorted(places, key=places.__getitem__))
