"""Leave one corpus out: what the transfer report fits, chooses and counts, over rows shaped
as ``evals/transfer_record.py`` writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from evals.cases import Case
from evals.transfer import (
    choose_bar,
    figures,
    fit_gate,
    fold,
    load_rows,
    main,
    reliability,
    shown,
    wrong_rate,
)
from evals.transfer_record import first_screen, holds
from generate.answer_gate import FITTED_SIGNALS, SIGNALS, AnswerGate


def row(
    corpus: str,
    n: int,
    right: bool,
    lead: float,
    *,
    split: str = "dev",
    stratum: str = "answerable",
    excerpt: bool = False,
) -> dict[str, Any]:
    signals = dict.fromkeys(SIGNALS, 0.0)
    signals.update(lead=lead, margin=lead / 2, block=0.9 - lead)  # block misleads
    must = stratum == "answerable"
    return {
        "corpus": corpus,
        "qid": f"{corpus}-{n}",
        "stratum": stratum,
        "phrasing": "doc",
        "split": split,
        "must_answer": must,
        "draft_outcome": "answered",
        "draft_column": "correct" if right else "wrong",
        "signals": signals,
        "gated": True,
        "first_screen": {"excerpt": excerpt, "passages": excerpt} if must else None,
    }


def corpus_rows(corpus: str, split: str = "dev") -> list[dict[str, Any]]:
    rng = np.random.default_rng(len(corpus))
    rows = []
    for n in range(40):
        right = n % 2 == 0
        lead = (0.6 if right else 0.1) + float(rng.normal(0, 0.05))
        stratum = "answerable" if right else "out_of_corpus"
        rows.append(row(corpus, n, right, lead, split=split, stratum=stratum, excerpt=True))
    return rows


def test_the_fit_weighs_only_the_relative_signals_and_finds_the_one_that_separates() -> None:
    gate = fit_gate(corpus_rows("a") + corpus_rows("b"))
    assert gate.lead > 0 and gate.block == 0.0 and gate.score == 0.0
    assert set(FITTED_SIGNALS) <= set(SIGNALS)
    with pytest.raises(ValueError, match="nothing to fit"):
        fit_gate([r for r in corpus_rows("a") if r["draft_column"] == "correct"])


def test_the_bar_is_the_lowest_keeping_every_corpus_at_or_under_the_target() -> None:
    rows = corpus_rows("a") + corpus_rows("b")
    gate = fit_gate(rows)
    bar = choose_bar(rows, gate, 0.0, spare=0)
    assert wrong_rate(shown(rows, gate, bar)) == 0.0
    lower = round(bar - 0.05, 2)
    if lower > 0:
        assert any(
            wrong_rate(shown([r for r in rows if r["corpus"] == c], gate, lower)) > 0
            for c in ("a", "b")
        )


def test_the_bar_keeps_room_for_one_more_wrong_answer_so_it_rests_on_no_single_row() -> None:
    # P(right) is sigmoid(lead): 98 right drafts at 0.99, wrong ones at 0.77 and 0.82.
    lead_only = dict.fromkeys(SIGNALS, 0.0) | {"lead": 1.0}
    gate = AnswerGate(intercept=0.0, **lead_only)
    rows = [row("a", n, True, 4.595) for n in range(98)]
    rows += [row("a", 98, False, 1.208), row("a", 99, False, 1.516)]
    assert choose_bar(rows, gate, 0.01, spare=0) == 0.80  # 1 wrong of 100: at the target
    assert choose_bar(rows, gate, 0.01) == 0.85  # room for one more: the 0.82 draft held
    right = rows[:98] + [row("a", n, True, 4.595) for n in (100, 101)]
    assert choose_bar(right, gate, 0.01) == 0.05  # none wrong of 100: any bar has room
    with pytest.raises(ValueError, match="99 dev rows"):  # 1 of 99 is over at every bar
        choose_bar(right[:99], gate, 0.01)


def test_a_held_draft_is_an_abstention_and_its_excerpt_can_still_point_at_the_answer() -> None:
    rows = [row("a", 1, True, 0.0, excerpt=True), row("a", 2, False, 0.0, stratum="permission")]
    cases = shown(rows, AnswerGate(threshold=1.0), 1.0)  # nothing clears this bar
    assert [c.answered for c in cases] == [False, False]
    assert [c.column for c in cases] == ["abstained", "correct"]
    assert cases[0].first_screen and not cases[1].wrong
    opened = shown(rows, AnswerGate(threshold=0.0), 0.0)
    assert opened[1].wrong and wrong_rate(opened) == 0.5


def test_a_fold_never_fits_on_the_corpus_it_reports() -> None:
    rows = corpus_rows("a") + corpus_rows("b") + corpus_rows("c", split="test")
    # The held-out corpus's rows all flipped: a fit that saw them would differ.
    flipped = [{**r, "draft_column": "wrong"} for r in corpus_rows("c")]
    gate, cases = fold(rows + flipped, "c", "test", FITTED_SIGNALS, 0.01, spare=0)
    assert gate == fold(rows, "c", "test", FITTED_SIGNALS, 0.01, spare=0)[0]
    assert {c.row["corpus"] for c in cases} == {"c"} and len(cases) == 40


def test_figures_and_calibration_count_what_they_say() -> None:
    rows = corpus_rows("a")
    cases = shown(rows, fit_gate(rows), 0.5)
    out = figures(cases)
    assert out["wrong-and-confident (all cases)"].startswith(f"{sum(c.wrong for c in cases)}/40")
    assert out["first screen (must-answer)"].startswith("20/20")
    table, ece = reliability(cases)
    assert sum(n for _, n, _, _ in table) == 40 and 0.0 <= ece <= 1.0


def test_the_command_reports_each_fold_and_saves_the_default_fit(tmp_path: Path) -> None:
    paths = []
    for name in ("a", "b", "c"):
        path = tmp_path / f"{name}.jsonl"
        rows = corpus_rows(name) + corpus_rows(name, split="test")
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        paths.append(path)
    assert len(load_rows(paths)) == 240
    out, saved = tmp_path / "report.md", tmp_path / "gate.json"
    argv = [*map(str, paths), "--split", "test", "--spare", "0", "--out", str(out)]
    argv += ["--save", str(saved)]
    assert main(argv) == 0
    report = out.read_text(encoding="utf-8")
    assert report.count("## Held out:") == 3 and "Worst fold" in report
    assert AnswerGate(**json.loads(saved.read_text(encoding="utf-8"))).lead > 0


def test_first_screen_reads_the_excerpts_and_the_passages_shown() -> None:
    case = Case(qid="q", q="q", stratum="answerable", user_access="employee", expect=("25 days",))
    held = {
        "closest": [{"id": "h#1", "excerpt": "Staff get 25  Days a year."}],
        "retrieved": [{"id": "h#1", "text": "Staff get 25 days a year. Ask HR."}],
    }
    assert first_screen(case, held) == {"excerpt": True, "passages": True}
    assert not holds((), "anything") and holds(("a", "b"), "B then A")
    miss = {"closest": [{"id": "h#1", "excerpt": "Ask HR."}], "retrieved": held["retrieved"]}
    assert first_screen(case, miss) == {"excerpt": False, "passages": True}
