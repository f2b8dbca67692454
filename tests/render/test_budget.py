from itertools import product

import pytest

from docent.contracts import Hit
from render.blocks import render_block
from render.budget import TRUNCATION_MARKER, clamp, order
from render.tokens import count_tokens
from tests.render.builders import make_hit, ranked


def cost(hit: Hit) -> int:
    return count_tokens(render_block(hit))


def test_keeps_hits_in_rank_order_until_the_budget_is_spent() -> None:
    hits = ranked("alpha beta", "gamma delta", "epsilon zeta")
    budget = cost(hits[0]) + cost(hits[1])
    kept, dropped = clamp(hits, budget, count_tokens)
    assert [h.rank for h in kept] == [1, 2]
    assert dropped == 1


def test_a_short_hit_below_a_dropped_one_is_dropped_too() -> None:
    hits = ranked("short", "a much longer passage " * 20, "tiny")
    budget = cost(hits[0]) + cost(hits[2])  # rank 3 alone would still fit
    kept, dropped = clamp(hits, budget, count_tokens)
    assert [h.rank for h in kept] == [1]
    assert dropped == 2


def test_everything_fits() -> None:
    hits = ranked("a", "b")
    assert clamp(hits, 10_000, count_tokens) == (tuple(hits), 0)
    assert clamp([], 10, count_tokens) == ((), 0)


def test_clamp_orders_by_rank_itself_so_reversed_input_still_keeps_rank_one() -> None:
    hits = ranked("first", "second", "third")
    budget = cost(hits[0]) + cost(hits[1])
    kept, dropped = clamp(list(reversed(hits)), budget, count_tokens)
    assert [h.rank for h in kept] == [1, 2]
    assert dropped == 1


def test_order_puts_the_best_hit_last() -> None:
    hits = ranked("a", "b", "c")
    assert [h.rank for h in order(hits)] == [3, 2, 1]


def test_an_oversized_top_hit_is_kept_truncated_with_a_marker() -> None:
    long_text = " ".join(f"word{n}." for n in range(400))
    hits = [make_hit("big.md#1", long_text, rank=1), make_hit("small.md#1", "x", rank=2)]
    kept, dropped = clamp(hits, 120, count_tokens)
    assert dropped == 1
    assert len(kept) == 1
    shown = kept[0]
    assert shown.chunk.chunk_id == "big.md#1"
    assert shown.chunk.text.endswith(TRUNCATION_MARKER)
    prefix = shown.chunk.text[: -len(TRUNCATION_MARKER)]
    assert long_text.startswith(prefix)
    assert long_text[len(prefix)] == " "  # cut between words, never inside "word12."
    assert cost(shown) <= 120
    assert hits[0].chunk.text == long_text  # the input was not changed


def test_a_budget_smaller_than_the_tags_still_keeps_a_marker_block() -> None:
    kept, dropped = clamp(ranked("some words here"), 3, count_tokens)
    assert len(kept) == 1 and dropped == 0
    assert kept[0].chunk.text == TRUNCATION_MARKER.strip()


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        clamp(ranked("a"), 0, count_tokens)


@pytest.mark.parametrize("n", range(1, 6))
def test_dropped_set_is_always_a_suffix_exhaustively(n: int) -> None:
    """Every combination of block sizes (1, 5 or 30 words) and budgets for up to 5 hits."""
    sizes = (1, 5, 30)
    for pattern in product(sizes, repeat=n):
        hits = ranked(*[" ".join(["w"] * size) for size in pattern])
        costs = [cost(h) for h in hits]
        for budget in sorted({1, *range(costs[0], sum(costs) + 2, max(1, min(costs)))}):
            kept, dropped = clamp(hits, budget, count_tokens)
            ids = [h.chunk.chunk_id for h in kept]
            assert ids == [h.chunk.chunk_id for h in hits[: len(kept)]]  # a rank prefix
            assert len(kept) + dropped == n
            assert len(kept) >= 1  # the top hit always stays
            if len(kept) > 1 or costs[0] <= budget:
                assert sum(costs[: len(kept)]) <= budget
                if dropped:
                    assert sum(costs[: len(kept) + 1]) > budget  # greedy: the next did not fit


def test_truncation_never_splits_a_figure() -> None:
    text = "Refunds up to €1,000,000 are approved by the Finance Controller."
    for budget in range(30, 60):
        kept, _ = clamp([make_hit("r.md#1", text)], budget, count_tokens)
        shown = kept[0].chunk.text.replace(TRUNCATION_MARKER, "").replace("… (truncated)", "")
        assert "€1," not in shown or "€1,000,000" in shown
