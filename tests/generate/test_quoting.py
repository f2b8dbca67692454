"""Citation markers and the ambiguous outcome built from quoted units."""

from generate.quoting import ambiguous, cite, differ_in_figures, under_heading
from generate.unit_scoring import Unit
from tests.render.builders import make_hit


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


def test_a_heading_named_before_a_bare_list_item_drops_its_letter() -> None:
    """A user pass: "A. How Does This Actually Work?" before a 2020 DMCA item made "… (effective
    2020-02-10): A." a sentence of its own; the checks dropped it, and the version's label with
    it, so the item read as today's rule."""
    item = "GitHub Asks User to Make Changes. We give the user approximately 24 hours."
    listed = make_hit(
        "dmca-2020.md#6",
        f"- {item}\n- Copyright Owner Revises or Retracts the Notice.",
        kind="list",
        heading_path=("DMCA Takedown Policy", "A. How Does This Actually Work?"),
    )
    unit = Unit(listed, item, "", 0)
    assert under_heading(item, unit) == f"How Does This Actually Work?: {item}"
    plain = make_hit("x.md#1", f"- {item}", kind="list", heading_path=("Policy", "Forks"))
    assert under_heading(item, Unit(plain, item, "", 0)) == f"Forks: {item}"
    abbreviated = make_hit(
        "l.md#1", f"- {item}", kind="list", heading_path=("Lab", "E. coli tests")
    )
    assert under_heading(item, Unit(abbreviated, item, "", 0)) == f"E. coli tests: {item}"
