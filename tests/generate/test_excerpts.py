"""The excerpt under a passage a non-answer offers: a short passage whole, a longer one's
nearest units with the unit that follows the nearest, within their budgets."""

from __future__ import annotations

from generate.excerpts import (
    EXCERPT_BUDGET,
    EXCERPT_CHARS,
    EXCERPT_UNITS,
    WHOLE_PASSAGE_CHARS,
    excerpt,
)
from tests.render.builders import make_hit

PORTAL = "Leave requests go through the HR portal."
CARRY = "Up to five unused days carry over to the next year."
BANK = "Public holidays are not counted as leave."
APPEAL = (
    "If an individual user believes that they have been flagged in error, then that user "
    "has the opportunity to appeal the flag by providing verification information."
)
SUPPORT = "Please contact Support for assistance."
FILLER = (
    "Trade controls laws restrict which products may be exported to which destinations, "
    "and the list of those destinations changes from time to time without notice."
)
# A passage too long to show whole: the appeal rule between two long paragraphs.
TRADE = (f"{FILLER} {FILLER}", APPEAL, SUPPORT, f"{FILLER} {FILLER} Again.", BANK)


def test_a_short_passage_is_shown_whole_in_its_own_order_with_the_nearest_unit_marked() -> None:
    text = f"{PORTAL} {CARRY} {BANK}"
    hit = make_hit("handbook.md#7", text, sentences=(PORTAL, CARRY, BANK))
    shown = excerpt(hit, [CARRY, BANK])
    assert shown is not None
    assert shown.text == text  # every unit, the document's order, no gap marks
    assert shown.nearest == CARRY and shown.nearest in shown.text


def test_a_long_passage_shows_its_nearest_unit_with_the_one_after_it() -> None:
    """The nearest sentence names the subject, the next one states the rule: it is shown
    right after the nearest (joined by a space: adjacent in the passage), then the next
    nearest after a gap mark."""
    hit = make_hit("trade.md#7", " ".join(TRADE), sentences=TRADE)
    assert len(hit.chunk.text) > WHOLE_PASSAGE_CHARS
    shown = excerpt(hit, [APPEAL, BANK])
    assert shown is not None
    assert shown.nearest == APPEAL
    assert shown.text == f"{APPEAL} {SUPPORT} … {BANK}"
    assert len(shown.text) <= WHOLE_PASSAGE_CHARS


def test_the_following_unit_is_not_repeated_nor_added_past_the_budget() -> None:
    hit = make_hit("trade.md#7", " ".join(TRADE), sentences=TRADE)
    # Already among the nearest: shown once, in its place.
    shown = excerpt(hit, [APPEAL, SUPPORT])
    assert shown is not None and shown.text == f"{APPEAL} … {SUPPORT}"
    # The nearest and a long runner-up leave no room within WHOLE_PASSAGE_CHARS for the long
    # paragraph that follows the nearest.
    before = (BANK, f"{FILLER} {FILLER}", APPEAL, f"{FILLER} {FILLER} Again.")
    hit = make_hit("trade.md#8", " ".join(before), sentences=before)
    runner_up = f"{FILLER} {BANK} {PORTAL} {CARRY} {BANK}"
    shown = excerpt(hit, [APPEAL, runner_up])
    assert shown is not None and shown.text == f"{APPEAL} … {runner_up}"
    assert len(APPEAL) + len(runner_up) + len(before[3]) > WHOLE_PASSAGE_CHARS
    # A cut nearest unit is not followed: the sentence after it would not read on from it.
    long_first = "Requests " + "for leave of more than three weeks " * 12 + "need approval."
    cut_first = (long_first, SUPPORT, f"{FILLER} {FILLER} {FILLER}", BANK)
    shown = excerpt(make_hit("trade.md#9", " ".join(cut_first), sentences=cut_first), [long_first])
    assert shown is not None and shown.text.endswith(" …") and SUPPORT not in shown.text


def test_an_excerpt_shows_up_to_three_units_within_its_budget_never_doubling_an_ellipsis() -> None:
    long_unit = "Requests " + "for leave of more than three weeks " * 30 + "need approval."
    hit = make_hit("handbook.md#9", long_unit, sentences=(long_unit,))
    middle = (
        f"{CARRY} A manager may approve more in writing, before the end of March, when a "
        "team's workload kept someone from taking their days."
    )
    shown = excerpt(hit, [long_unit, middle, BANK, PORTAL])
    assert shown is not None
    first, second = shown.text.split(" … ")[:2]
    # The long unit is cut at a word; its own ellipsis is not doubled by the join.
    assert len(first) <= EXCERPT_CHARS and long_unit.startswith(first)
    assert shown.nearest == first
    assert "… …" not in shown.text and second == middle
    # A third unit would pass the budget: two are shown.
    assert len(first) + len(middle) <= EXCERPT_BUDGET < len(first) + len(middle) + len(BANK)
    assert shown.text == f"{first} … {middle}"
    short = excerpt(hit, [CARRY, BANK, PORTAL, "Never shown: a fourth unit."])
    assert short is not None and short.text == f"{CARRY} … {BANK} … {PORTAL}"
    assert EXCERPT_UNITS == 3


def test_a_table_is_never_shown_whole_its_rows_read_under_their_headers() -> None:
    table = "| City | Daily per diem |\n| --- | --- |\n| Athens | €58 |\n| Sofia | €44 |"
    hit = make_hit("expenses.md#4", table, kind="table", sentences=("| Athens | €58 |",))
    shown = excerpt(hit, ["City: Athens; Daily per diem: €58"])
    assert shown is not None and shown.text == "City: Athens; Daily per diem: €58"
    assert "|" not in shown.text


def test_without_the_answerer_s_units_the_reranker_s_order_is_read() -> None:
    hit = make_hit(
        "trade.md#7", " ".join(TRADE), sentences=TRADE, unit_scores=(0.1, 0.2, 0.3, 0.0, 0.9)
    )
    shown = excerpt(hit)
    assert shown is not None and shown.nearest == BANK
    assert shown.text.startswith(BANK)


def test_a_long_closest_sentence_is_cut_at_a_word_and_nothing_means_no_excerpt() -> None:
    long = "Refunds " + "are reviewed by the finance team every week " * 12 + "in order."
    shown = excerpt(make_hit("r.md#1", long, best_sentence=long))
    assert shown is not None and shown.text.endswith(" …")
    assert len(shown.text) <= EXCERPT_CHARS + 2 and long.startswith(shown.text[:-2])
    assert excerpt(make_hit("r.md#2", "Short.", best_sentence=None)) is None


def test_a_nested_item_is_shown_under_the_item_it_belongs_to() -> None:
    parent = "18F Hiring / Onboarding - #1241: Time spent on hiring and onboarding."
    steps = [f"Step {n}: {FILLER}" for n in range(5)]
    text = "\n".join([f"- {parent}", *(f"  - {s}" for s in steps), "- Other - #99"])
    hit = make_hit("tock.md#3", text, kind="list", sentences=(parent, *steps, "Other - #99"))
    assert len(text) > WHOLE_PASSAGE_CHARS
    shown = excerpt(hit, [steps[2], steps[0]])
    assert shown is not None
    assert shown.text.startswith(f"{parent} … {steps[2]}")
    assert shown.nearest == steps[2]
    # A unit of the parent's own text is not shown twice.
    again = excerpt(hit, [steps[2], parent])
    assert again is not None and again.text.count(parent) == 1
    # A top-level item has no parent to show.
    top = excerpt(hit, ["Other - #99"])
    assert top is not None and top.text.startswith("Other - #99")
