"""Reciprocal rank fusion against a hand-computed example."""

import pytest

from retrieval.fusion import best_ranks, fuse_places


def rrf(rankings: list[list[str]], k: int = 60) -> list[tuple[str, float]]:
    """Reciprocal rank fusion of plain rankings, as the searcher fuses its two legs."""
    return fuse_places([best_ranks(ranking) for ranking in rankings], k)


def test_rrf_matches_a_hand_computed_example() -> None:
    bm25 = ["a", "b", "c"]
    vector = ["c", "a", "d"]
    # k = 60, ranks 1-based:
    #   a: 1/61 + 1/62 = 0.0325224...
    #   c: 1/63 + 1/61 = 0.0322664...
    #   b: 1/62        = 0.0161290...
    #   d: 1/63        = 0.0158730...
    fused = rrf([bm25, vector], k=60)
    assert [item for item, _ in fused] == ["a", "c", "b", "d"]
    expected = {
        "a": 1 / 61 + 1 / 62,
        "c": 1 / 63 + 1 / 61,
        "b": 1 / 62,
        "d": 1 / 63,
    }
    for item, score in fused:
        assert score == pytest.approx(expected[item], rel=1e-12)
    assert fused[0][1] == pytest.approx(0.03252247488101534)


def test_k_changes_how_much_the_top_ranks_dominate() -> None:
    # x is first in one ranking; m is third in both. A small k lets one first place win,
    # a large k lets agreement win: the fused order flips.
    rankings = [["x", "p", "m"], ["q", "r", "m"]]
    small = rrf(rankings, k=0)
    large = rrf(rankings, k=1000)
    assert dict(small)["x"] == pytest.approx(1.0)
    assert dict(small)["m"] == pytest.approx(2 / 3)
    assert [item for item, _ in small][:2] == ["x", "q"]
    assert [item for item, _ in large][0] == "m"
    assert dict(large)["m"] == pytest.approx(2 / 1003)
    assert dict(large)["x"] == pytest.approx(1 / 1001)


def test_ties_keep_first_seen_order_and_duplicates_count_once() -> None:
    fused = rrf([["p", "q", "p"], ["q", "p"]], k=60)
    assert [item for item, _ in fused] == ["p", "q"]
    assert fused[0][1] == pytest.approx(fused[1][1])  # p: 1/61 + 1/62, q: 1/62 + 1/61
    tied = rrf([["b"], ["a"]])
    assert [item for item, _ in tied] == ["b", "a"]
    assert [score for _, score in tied] == pytest.approx([1 / 61, 1 / 61])


def test_empty_and_invalid() -> None:
    assert rrf([]) == []
    assert rrf([[], []]) == []
    with pytest.raises(ValueError, match="k must be 0 or more"):
        rrf([["a"]], k=-1)


def test_best_ranks_keeps_each_ids_best_place() -> None:
    assert best_ranks(["a", "b", "c"], ["c", "d"], []) == {"a": 1, "b": 2, "c": 1, "d": 2}
    assert best_ranks() == {}


def test_a_leg_searched_twice_counts_each_id_once_at_its_better_place() -> None:
    # A past-version question: the whole index, then the superseded passages alone.
    keyword = best_ranks(["now-1", "now-2", "old-1"], ["old-1", "old-2"])
    vector = best_ranks(["now-2", "old-1"], ["old-1"])
    assert keyword == {"now-1": 1, "now-2": 2, "old-1": 1, "old-2": 2}
    fused = dict(fuse_places([keyword, vector], k=60))
    # Not 1/61 per search of each leg (four terms): one term per leg.
    assert fused["old-1"] == pytest.approx(2 / 61)
    assert fused["now-2"] == pytest.approx(1 / 62 + 1 / 61)
