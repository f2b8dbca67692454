"""Fitting the answer gate on a split: the logistic fit, holding answers back, and the
threshold rule (fewer wrong answers, at most ``max_answer_loss`` of the right ones)."""

import numpy as np
import pytest

from evals.cases import Case
from evals.gate_fit import (
    GateRow,
    answerable_correct,
    choose_gate_threshold,
    fit_gate,
    fit_logistic,
    gated_columns,
)
from evals.metrics import Column
from generate.answer_gate import AnswerGate, Signals


def case(qid: str, stratum: str = "answerable") -> Case:
    return Case(qid=qid, q="q", stratum=stratum, user_access="employee")


def test_the_logistic_fit_finds_the_signal_that_separates_and_ignores_noise() -> None:
    rng = np.random.default_rng(7)
    x = rng.normal(size=(400, 2))
    y = (x[:, 0] + 0.3 * rng.normal(size=400) > 0.5).astype(np.float64)
    intercept, coefficients = fit_logistic(x * 3.0 + 1.0, y)  # raw (unstandardised) inputs
    assert coefficients[0] > 1.0 and abs(coefficients[1]) < 0.2 * coefficients[0]
    decision = intercept + (x * 3.0 + 1.0) @ coefficients
    assert np.mean((decision > 0) == (y == 1)) > 0.85


def signals(block: float, lead: float, margin: float) -> tuple[float, ...]:
    return Signals(block=block, lead=lead, margin=margin).vector()


def rows_and_columns() -> tuple[list[GateRow], dict[str, tuple[Case, Column]]]:
    right, wrong, ooc, unanswered = (
        case("right"),
        case("wrong"),
        case("ooc", "out_of_corpus"),
        case("held", "answerable"),
    )
    rows = [
        GateRow(right, signals(0.7, 0.4, 0.3), "correct"),
        GateRow(wrong, signals(0.3, 0.0, 0.01), "wrong"),
        GateRow(ooc, signals(0.32, 0.02, 0.0), "wrong"),
    ]
    columns: dict[str, tuple[Case, Column]] = {
        "right": (right, "correct"),
        "wrong": (wrong, "wrong"),
        "ooc": (ooc, "wrong"),
        "held": (unanswered, "abstained"),  # not answered with the gate open: no row
    }
    return rows, columns


def test_a_held_answer_is_an_abstention_on_a_must_answer_case_and_right_on_the_others() -> None:
    rows, columns = rows_and_columns()
    gate = AnswerGate(intercept=-3.0, block=4.0, lead=3.0, margin=2.5, threshold=0.4)
    graded = {c.qid: column for c, column in gated_columns(rows, columns, gate)}
    assert graded == {
        "right": "correct",
        "wrong": "abstained",
        "ooc": "correct",
        "held": "abstained",
    }
    opened = {c.qid: col for c, col in gated_columns(rows, columns, AnswerGate(threshold=0.0))}
    assert opened == {qid: column for qid, (_, column) in columns.items()}


def test_the_fit_weighs_the_relative_signals_that_separate_and_none_when_nothing_differs() -> None:
    rows, _ = rows_and_columns()
    gate = fit_gate(rows * 5)
    # Only the relative signals are fitted; the absolute block relevance weighs 0.
    assert gate is not None and min(gate.lead, gate.margin) > 0 and gate.block == 0.0
    assert fit_gate([r for r in rows if r.column == "wrong"]) is None


def test_the_threshold_is_the_cheapest_that_keeps_the_answers_within_the_allowed_loss() -> None:
    a, b, c = case("a"), case("b"), case("c")
    o = case("o", "out_of_corpus")
    graded: dict[float, list[tuple[Case, Column]]] = {
        0.0: [(a, "correct"), (b, "correct"), (c, "wrong"), (o, "wrong")],
        0.3: [(a, "correct"), (b, "correct"), (c, "abstained"), (o, "wrong")],
        0.5: [(a, "correct"), (b, "abstained"), (c, "abstained"), (o, "correct")],
    }
    assert answerable_correct(graded[0.0]) == pytest.approx(2 / 3)
    # 0.5 is cheapest (1 abstention more, 2 wrong fewer) but gives up a third of the answers.
    assert choose_gate_threshold(graded, wrong_cost=3.0, max_answer_loss=0.05) == 0.3
    assert choose_gate_threshold(graded, wrong_cost=3.0, max_answer_loss=0.5) == 0.5
