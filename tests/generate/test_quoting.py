"""Citation markers and the ambiguous outcome built from quoted units."""

from generate.quoting import ambiguous, cite, differ_in_figures


def test_the_marker_goes_before_the_final_full_stop() -> None:
    assert (
        cite("Refunds within 30 days.", "refunds.md#0") == "Refunds within 30 days [refunds.md#0]."
    )
    assert cite("| Lisbon | €64 |", "t.md#4") == "| Lisbon | €64 | [t.md#4]"


def test_items_differ_when_their_figures_do() -> None:
    assert differ_in_figures(["Tier 1: €220 a night.", "Tier 2: €160 a night."])
    assert not differ_in_figures(["Tier 1: €220 a night.", "Tier 1 cities cost €220."])


def test_the_clarifying_question_names_short_distinct_labels_only() -> None:
    named = ambiguous(["a", "b"], ["Tier 1", "Tier 2"])
    assert named.readings == ("a", "b")
    assert named.clarifying_question == "Which one do you mean: Tier 1 or Tier 2?"
    assert ambiguous(["a", "b"], ["Same", "Same"]).clarifying_question == (
        "Which of these do you mean?"
    )
