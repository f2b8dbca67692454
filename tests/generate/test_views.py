"""How a result reads in the terminal: the nearest unit of a closest passage's excerpt is
marked, as the web UI highlights it."""

from __future__ import annotations

from generate.views import marked, tables_apart


def test_the_nearest_unit_is_marked_once_and_only_when_the_excerpt_holds_more() -> None:
    excerpt = "Submit claims within 30 days. Attach a receipt over €25. Attach a receipt over €25."
    assert marked(excerpt, "Attach a receipt over €25.") == (
        "Submit claims within 30 days. »Attach a receipt over €25.« Attach a receipt over €25."
    )
    assert marked("Only one unit.", "Only one unit.") == "Only one unit."
    assert marked(excerpt, None) == excerpt
    assert marked(excerpt, "Not in it.") == excerpt


def test_a_versions_table_is_cited_on_its_labels_line_with_the_table_below() -> None:
    """A user pass: in the terminal the marker came after the last row, and the next
    version's label followed it."""
    answer = (
        "Under the superseded version (effective 2023-01-01): | Plan | Price |\n"
        "| --- | --- |\n"
        "| Team | €49/month | [1]\n"
        "The current version (effective 2025-01-01): | Plan | Price |\n"
        "| --- | --- |\n"
        "| Team | €59/month | [2]"
    )
    assert tables_apart(answer).split("\n") == [
        "Under the superseded version (effective 2023-01-01): [1]",
        "  | Plan | Price |",
        "  | --- | --- |",
        "  | Team | €49/month |",
        "The current version (effective 2025-01-01): [2]",
        "  | Plan | Price |",
        "  | --- | --- |",
        "  | Team | €59/month |",
    ]
    # Prose with a pipe, or a table on its own lines, is left as it is.
    for text in ("Use A | B [1].", "| Plan | Price |\n| --- | --- |\n| Team | €59 | [1]"):
        assert tables_apart(text) == text


def test_a_listed_passage_says_its_version_when_versions_are_mixed() -> None:
    """A user pass read today's rule, listed unlabelled under a question about the 2022
    policy, as the 2022 rule: among old or pending passages, today's say so too."""
    from datetime import date

    from generate.views import version_note
    from tests.render.builders import make_chunk

    old = make_chunk("refunds-2022.md#0", status="superseded", effective_date=date(2022, 4, 1))
    now = make_chunk("refunds.md#0", effective_date=date(2025, 3, 1))
    assert version_note(old, mixed=True) == " (effective 2022-04-01, superseded)"
    assert version_note(now, mixed=True) == " (effective 2025-03-01, current)"
    assert version_note(now, mixed=False) == ""
