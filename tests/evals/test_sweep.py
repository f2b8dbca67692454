"""The operating-point table, the threshold choice and the plot, on hand-made points."""

from __future__ import annotations

from pathlib import Path

import pytest

from evals.metrics import Rate
from evals.sweep import (
    OperatingPoint,
    choose_threshold,
    operating_point,
    parse_thresholds,
    plot_operating_points,
    sweep_table,
)


def test_parse_thresholds_ranges_include_both_ends() -> None:
    assert parse_thresholds("0.2:0.4:0.05") == [0.2, 0.25, 0.3, 0.35, 0.4]
    assert parse_thresholds("0.5,0.3") == [0.3, 0.5]
    for bad in ("0.5:0.2:0.1", "0.2:0.4:0", "a:b:c", ""):
        with pytest.raises(ValueError, match="--thresholds"):
            parse_thresholds(bad)


def test_operating_point_by_hand() -> None:
    graded = [
        ("answerable", "answered", "correct"),
        ("answerable", "insufficient_evidence", "abstained"),
        ("superseded", "answered", "wrong"),
        ("out_of_corpus", "answered", "wrong"),
        ("permission", "declined", "correct"),
        ("ambiguous", "ambiguous", "correct"),
    ]
    p = operating_point(0.4, graded)
    assert (p.false_abstention.k, p.false_abstention.n) == (1, 3)
    assert (p.wrong.k, p.wrong.n) == (2, 6)
    assert (p.answered_must_abstain.k, p.answered_must_abstain.n) == (1, 2)
    assert (p.correct.k, p.correct.n) == (3, 6)


def point(t: float, fa: int, wrong: int) -> OperatingPoint:
    return OperatingPoint(t, Rate(fa, 10), Rate(wrong, 20), Rate(0, 10), Rate(20 - wrong - fa, 20))


def test_choice_is_lowest_wrong_within_the_false_abstention_limit() -> None:
    points = [point(0.2, 0, 6), point(0.3, 1, 3), point(0.4, 2, 2), point(0.5, 5, 0)]
    assert choose_threshold(points, 0.2).threshold == 0.4
    assert choose_threshold(points, 0.1).threshold == 0.3
    assert choose_threshold(points, 0.5).threshold == 0.5
    # Nothing acceptable: the least false abstention.
    assert choose_threshold([point(0.6, 5, 0), point(0.7, 6, 0)], 0.1).threshold == 0.6


def test_ties_go_to_the_median_tied_threshold() -> None:
    points = [point(0.2, 1, 3), point(0.3, 1, 3), point(0.4, 1, 3), point(0.5, 4, 1)]
    assert choose_threshold(points, 0.2).threshold == 0.3
    assert choose_threshold(points[:2], 0.2).threshold == 0.2


def test_by_default_the_gate_may_add_no_false_abstention_over_the_floor() -> None:
    # The floor is 1/10; 0.5 would cut wrong answers but adds false abstentions.
    points = [point(0.2, 1, 4), point(0.3, 1, 3), point(0.4, 1, 4), point(0.5, 2, 1)]
    assert choose_threshold(points).threshold == 0.3


def test_table_marks_the_choice_and_the_plot_is_a_png(tmp_path: Path) -> None:
    points = [point(0.2, 0, 6), point(0.3, 1, 3)]
    table = sweep_table(points, 0.3)
    assert "| 0.300 ◀ chosen | 1/10 10%" in table
    out = tmp_path / "sweep.png"
    plot_operating_points(points, out, 0.3)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_replayed_search_takes_a_per_call_top_k() -> None:
    from docent.contracts import Principal
    from evals.runner import ReplaySearcher
    from retrieval.searcher import SearchResult
    from tests.render.builders import ranked

    hits = tuple(ranked("one", "two", "three"))
    base = SearchResult(hits=hits, cut=(), index_version=1, timings_ms={}, stages={})
    replay = ReplaySearcher(hits, base, top_k=2)
    asker = Principal("u", "employee")
    assert [h.rank for h in replay.search("q", asker).hits] == [1, 2]  # the constructor's
    found = replay.search("q", asker, top_k=1)
    assert [h.rank for h in found.hits] == [1] and len(found.cut) == 2
