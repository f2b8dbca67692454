"""The answerer fit: a conditional logit over each case's units, and the threshold choice."""

import numpy as np
import pytest

from evals.answerer_fit import (
    FEATURES,
    CaseUnits,
    as_weights,
    choose_min_score,
    cost,
    fit_conditional_logit,
    top1_accuracy,
)
from evals.cases import Case


def synthetic(seed: int, n: int = 60) -> list[CaseUnits]:
    """Cases whose labelled unit has the higher 'semantic' but not the higher 'block'."""
    rng = np.random.default_rng(seed)
    data = []
    for i in range(n):
        rows = rng.uniform(0, 1, size=(6, len(FEATURES)))
        right = int(rng.integers(6))
        rows[right, 0] = rows[:, 0].max() + 0.2  # meaning points at it
        rows[right, 1] = rows[:, 1].min() - 0.1  # block relevance points away
        labels = np.zeros(6, dtype=bool)
        labels[right] = True
        data.append(CaseUnits(f"q{i}", rows, labels))
    return data


def test_the_fit_learns_to_put_the_labelled_unit_first() -> None:
    train, held_out = synthetic(1), synthetic(2)
    weights = fit_conditional_logit(train)
    assert weights[0] > 0 > weights[1]  # meaning up, the misleading signal down
    hits, total = top1_accuracy(held_out, weights)
    assert hits == total == 60


def test_no_labelled_unit_is_an_error() -> None:
    rows = np.zeros((3, len(FEATURES)))
    with pytest.raises(ValueError, match="nothing to fit"):
        fit_conditional_logit([CaseUnits("q", rows, np.zeros(3, dtype=bool))])


def test_weights_are_scaled_to_the_semantic_weight_with_penalties_positive() -> None:
    vector = np.array([2.0, 1.0, 0.5, 0.4, 0.2, -1.0, -0.02])
    w = as_weights(vector, 1.5)
    assert (w.semantic, w.block, w.lexical, w.fit, w.title) == (1.0, 0.5, 0.25, 0.2, 0.1)
    assert (w.meta, w.rank, w.min_score) == (0.5, 0.01, 1.5)
    rewarded = as_weights(np.array([1.0, 0, 0, 0, 0, 0.3, 0.05]), 1.0)
    assert (rewarded.meta, rewarded.rank) == (0.0, 0.0)  # a penalty never rewards
    with pytest.raises(ValueError, match="semantic"):
        as_weights(np.array([-1.0, 1, 1, 1, 1, 1, 1]), 1.0)


def case(stratum: str) -> Case:
    return Case(qid=stratum, q="q", expect=(), gold=(), stratum=stratum, user_access="employee")


def test_the_threshold_is_chosen_at_the_exchange_rate() -> None:
    answerable, out = case("answerable"), case("out_of_corpus")
    graded = {
        1.0: [(answerable, "correct"), (out, "wrong")],  # cost 3
        1.2: [(answerable, "abstained"), (out, "correct")],  # cost 1
        1.4: [(answerable, "abstained"), (out, "correct")],  # cost 1: tie, the higher wins
    }
    assert cost(graded[1.0], 3.0) == 3 and cost(graded[1.2], 3.0) == 1
    assert choose_min_score(graded, 3.0) == 1.4
    assert choose_min_score(graded, 0.5) == 1.0  # wrong is cheap: answer more
