"""The merge search for a near-duplicate open gap (``api.gaps.nearest``), pure: the nearest
by cosine, ties to the highest id, a vector of another length or of norm 0 scoring 0; the
same choice as the per-gap rule it replaced. A gap without a vector is left out by the
query itself (tests/api/test_gaps.py)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from api.gaps import nearest


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    """The rule gap by gap, as it was written before the one product: the specification."""
    if len(a) != len(b) or not a:
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
    return dot / norm if norm else 0.0


def test_the_nearest_is_the_per_gap_rules_choice() -> None:
    rng = np.random.default_rng(7)
    for _ in range(50):
        rows = rng.standard_normal((int(rng.integers(1, 80)), 384)).tolist()
        ids = rng.permutation(1000)[: len(rows)].tolist()
        gaps = list(zip(ids, rows, strict=True))
        query = rng.standard_normal(384).tolist()
        want = max((cosine(query, row), gap_id) for gap_id, row in gaps)
        got = nearest(query, gaps)
        assert got is not None
        assert got[1] == want[1] and got[0] == pytest.approx(want[0], abs=1e-12)


@pytest.mark.parametrize("last_id", [999, 0])
def test_on_equal_cosines_the_highest_id_wins_wherever_the_copies_sit(last_id: int) -> None:
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((121, 384))
    for i in (17, 64, 120):  # 120: the last row, which a blocked BLAS kernel sums apart
        rows[i] = rows[0]
    rows[33] = rows[0] * 2.0  # a scaled copy: the same cosine, exactly
    query = (rows[0] + 0.01 * rng.standard_normal(384)).tolist()
    ids = [*range(100, 220), last_id]
    gaps = list(zip(ids, rows.tolist(), strict=True))
    want = max(ids[i] for i in (0, 17, 33, 64, 120))
    assert nearest(query, gaps) == pytest.approx((cosine(query, rows[0].tolist()), want))
    assert nearest(query, gaps[::-1]) == nearest(query, gaps)
    assert nearest([1.0, 0.0], [(9, [2.0, 0.0]), (4, [1.0, 0.0])]) == (1.0, 9)


def test_another_length_or_a_zero_vector_scores_zero() -> None:
    query = [1.0, 0.0, 0.0]
    # A zero score beats a negative one (what a threshold of 0 would merge into).
    assert nearest(query, [(5, [-1.0, 0.0, 0.0]), (3, [0.0, 0.0, 0.0])]) == (0.0, 3)
    assert nearest(query, [(5, [-1.0, 0.0, 0.0]), (3, [1.0, 0.0])]) == (0.0, 3)
    assert nearest(query, [(1, [0.0, 0.0, 0.0]), (2, [1.0, 2.0])]) == (0.0, 2)
    assert nearest(query, [(2, [0.5, 0.5, 0.0]), (8, [1.0])]) == pytest.approx((0.5**0.5, 2))
    assert nearest([], [(1, []), (2, [1.0])]) == (0.0, 2)
    assert nearest(query, []) is None
