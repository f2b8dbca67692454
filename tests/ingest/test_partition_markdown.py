"""Markdown quirks of real handbooks that partitioning must survive."""

from __future__ import annotations

from pathlib import Path

from ingest.partition import blank_line_before_blocks, partition_file


def test_a_markdown_table_right_under_a_text_line_is_still_one_table(tmp_path: Path) -> None:
    doc = tmp_path / "schedules.md"
    doc.write_text(
        "# Schedules\n\n## Types\n\nFor example:\n| Type | Core hours |\n|---|---|\n"
        "| Flexitour | 9-3 |\n| Gliding | 10-2 |\n\n```\nFor example:\n| not | a table |\n```\n"
    )
    parsed = partition_file(doc, "schedules.md")
    tables = [e for e in parsed.elements if e.kind == "table"]
    assert len(tables) == 1
    assert "Gliding" in tables[0].text
    assert blank_line_before_blocks("a\n| x |\n") == "a\n\n| x |"
    assert blank_line_before_blocks("```\na\n| x |\n```") == "```\na\n| x |\n```"


def test_a_list_right_under_a_text_line_is_a_list_of_items(tmp_path: Path) -> None:
    # As GitHub's Terms of Service write their account requirements: no blank line between
    # the lead-in and the first item, so the items ran together into one paragraph.
    doc = tmp_path / "terms.md"
    doc.write_text(
        "# Terms\n\n## Account Requirements\n\n"
        "We have a few simple rules for Personal Accounts. We do permit machine accounts:\n"
        "* A machine account is used exclusively for performing automated tasks.\n"
        "* You must be age 13 or older. We must comply with United States law.\n"
        "  An indented line goes on with the item above.\n"
        "- Your login may only be used by one person.\n"
    )
    parsed = partition_file(doc, "terms.md")
    texts = [e.text for e in parsed.elements]
    lead = "We have a few simple rules for Personal Accounts. We do permit machine accounts:"
    assert lead in texts
    items = [e.text for e in parsed.elements if e.kind == "list_item"]
    assert [t.split(".")[0] for t in items] == [
        "A machine account is used exclusively for performing automated tasks",
        "You must be age 13 or older",
        "Your login may only be used by one person",
    ]
    assert "An indented line goes on with the item above" in items[1]
    assert not any("* " in t for t in texts)


def test_only_what_starts_a_list_gets_a_blank_line_above_it() -> None:
    lead = "Rules:"
    for starts in ("* a", "- a", "+ a", "1. a", "1) a", "   * a"):
        assert blank_line_before_blocks(f"{lead}\n{starts}") == f"{lead}\n\n{starts}"
    for goes_on in ("2. a", "    * a", "* * *", "- - -", "*emphasis*", "-1 degrees", "---"):
        assert blank_line_before_blocks(f"{lead}\n{goes_on}") == f"{lead}\n{goes_on}"
    tight = "* a\n* b\n  more of b\n* c"
    assert blank_line_before_blocks(tight) == tight
    # Below an item's indented paragraph (GitHub's Community Code of Conduct).
    under = "* a\n\n    More of a.\n  * b"
    assert blank_line_before_blocks(under) == "* a\n\n    More of a.\n\n  * b"
    assert blank_line_before_blocks("```\nRules:\n* a\n```") == "```\nRules:\n* a\n```"


def test_markdown_inside_an_html_block_marked_markdown_1_is_parsed(tmp_path: Path) -> None:
    # The 18F handbook's accordions: a heading and a list inside <div markdown=1>.
    doc = tmp_path / "playbook.md"
    doc.write_text(
        "# Playbook\n\n## Steps\n\n"
        '<div class="usa-accordion" markdown=1>\n'
        '<div id="a1" class="usa-accordion__content" markdown="1">\n\n'
        "#### Conference fees\n\n"
        "Under the speaking exclusion you may accept a waived fee.\n\n"
        "- Until you are approved, the organizers cannot list you.\n"
        "- Ensure your computer is fully charged.\n\n"
        "</div>\n</div>\n"
    )
    parsed = partition_file(doc, "playbook.md")
    texts = [e.text for e in parsed.elements]
    assert "Conference fees" in [e.text for e in parsed.elements if e.kind == "title"]
    items = [e.text for e in parsed.elements if e.kind == "list_item"]
    assert items == [
        "Until you are approved, the organizers cannot list you.",
        "Ensure your computer is fully charged.",
    ]
    assert not any(t.startswith(("#", "- ")) or " - " in t for t in texts)


def test_an_item_below_another_items_paragraph_is_its_own_item(tmp_path: Path) -> None:
    doc = tmp_path / "conduct.md"
    doc.write_text(
        "# Conduct\n\n* Contribute in a positive way.\n"
        "  * **Improve the discussion.** Help us make this a great place.\n\n"
        "    The topics discussed here matter to us.\n"
        "  * **Be clear and stay on topic.** Share ideas.\n"
    )
    items = [e.text for e in partition_file(doc, "conduct.md").elements if e.kind == "list_item"]
    assert any(t.startswith("Be clear and stay on topic.") for t in items)
    assert not any("* " in t for t in items)


def test_nested_items_keep_their_nesting_in_markdown_and_html(tmp_path: Path) -> None:
    # The 18F Tock page's billing codes: each code's item holds the activities it covers.
    md = tmp_path / "tock.md"
    md.write_text(
        "# Tock\n\n## Codes\n\n- Hiring - #1241: includes:\n    - Interviews,\n"
        "        - Note taking\n- Other - #99\n"
    )
    html = tmp_path / "tock.html"
    html.write_text(
        "<h1>Tock</h1><h2>Codes</h2><ul><li>Hiring - #1241: includes:<ul><li>Interviews,"
        "<ul><li>Note taking</li></ul></li></ul></li><li>Other - #99</li></ul>"
    )
    for doc in (md, html):
        elements = partition_file(doc, doc.name).elements
        items = [(e.depth, e.text) for e in elements if e.kind == "list_item"]
        assert items == [
            (0, "Hiring - #1241: includes:"),
            (1, "Interviews,"),
            (2, "Note taking"),
            (0, "Other - #99"),
        ], doc.name
