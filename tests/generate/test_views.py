"""How a result reads in the terminal: the nearest unit of a closest passage's excerpt is
marked, as the web UI highlights it."""

from __future__ import annotations

from generate.views import marked


def test_the_nearest_unit_is_marked_once_and_only_when_the_excerpt_holds_more() -> None:
    excerpt = "Submit claims within 30 days. Attach a receipt over €25. Attach a receipt over €25."
    assert marked(excerpt, "Attach a receipt over €25.") == (
        "Submit claims within 30 days. »Attach a receipt over €25.« Attach a receipt over €25."
    )
    assert marked("Only one unit.", "Only one unit.") == "Only one unit."
    assert marked(excerpt, None) == excerpt
    assert marked(excerpt, "Not in it.") == excerpt
