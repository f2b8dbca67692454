"""Markdown quirks of real handbooks that partitioning must survive."""

from __future__ import annotations

from pathlib import Path

from ingest.elements import Element
from ingest.markdown_source import blank_line_before_blocks
from ingest.template_tags import clean_element_text, strip_template_tags
from tests.ingest.partition_support import parsed


def list_items(elements: tuple[Element, ...]) -> list[str]:
    return [e.text for e in elements if e.kind == "list_item"]


def test_a_markdown_table_right_under_a_text_line_is_still_one_table(tmp_path: Path) -> None:
    elements = parsed(
        tmp_path,
        "schedules.md",
        "# Schedules\n\n## Types\n\nFor example:\n| Type | Core hours |\n|---|---|\n"
        "| Flexitour | 9-3 |\n| Gliding | 10-2 |\n\n```\nFor example:\n| not | a table |\n```\n",
    )
    tables = [e for e in elements if e.kind == "table"]
    assert len(tables) == 1
    assert "Gliding" in tables[0].text
    assert blank_line_before_blocks("a\n| x |\n") == "a\n\n| x |"
    assert blank_line_before_blocks("```\na\n| x |\n```") == "```\na\n| x |\n```"


def test_a_list_right_under_a_text_line_is_a_list_of_items(tmp_path: Path) -> None:
    # As GitHub's Terms of Service write their account requirements: no blank line between
    # the lead-in and the first item, so the items ran together into one paragraph.
    elements = parsed(
        tmp_path,
        "terms.md",
        "# Terms\n\n## Account Requirements\n\n"
        "We have a few simple rules for Personal Accounts. We do permit machine accounts:\n"
        "* A machine account is used exclusively for performing automated tasks.\n"
        "* You must be age 13 or older. We must comply with United States law.\n"
        "  An indented line goes on with the item above.\n"
        "- Your login may only be used by one person.\n",
    )
    texts = [e.text for e in elements]
    lead = "We have a few simple rules for Personal Accounts. We do permit machine accounts:"
    assert lead in texts
    items = list_items(elements)
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
    elements = parsed(
        tmp_path,
        "playbook.md",
        "# Playbook\n\n## Steps\n\n"
        '<div class="usa-accordion" markdown=1>\n'
        '<div id="a1" class="usa-accordion__content" markdown="1">\n\n'
        "#### Conference fees\n\n"
        "Under the speaking exclusion you may accept a waived fee.\n\n"
        "- Until you are approved, the organizers cannot list you.\n"
        "- Ensure your computer is fully charged.\n\n"
        "</div>\n</div>\n",
    )
    texts = [e.text for e in elements]
    assert "Conference fees" in [e.text for e in elements if e.kind == "title"]
    assert list_items(elements) == [
        "Until you are approved, the organizers cannot list you.",
        "Ensure your computer is fully charged.",
    ]
    assert not any(t.startswith(("#", "- ")) or " - " in t for t in texts)


def test_an_item_below_another_items_paragraph_is_its_own_item(tmp_path: Path) -> None:
    elements = parsed(
        tmp_path,
        "conduct.md",
        "# Conduct\n\n* Contribute in a positive way.\n"
        "  * **Improve the discussion.** Help us make this a great place.\n\n"
        "    The topics discussed here matter to us.\n"
        "  * **Be clear and stay on topic.** Share ideas.\n",
    )
    items = list_items(elements)
    assert any(t.startswith("Be clear and stay on topic.") for t in items)
    assert not any("* " in t for t in items)


def test_nested_items_keep_their_nesting_in_markdown_and_html(tmp_path: Path) -> None:
    # The 18F Tock page's billing codes: each code's item holds the activities it covers.
    md = "# Tock\n\n## Codes\n\n- Hiring - #1241: includes:\n    - Interviews,\n"
    md += "        - Note taking\n- Other - #99\n"
    html = "<h1>Tock</h1><h2>Codes</h2><ul><li>Hiring - #1241: includes:<ul><li>Interviews,"
    html += "<ul><li>Note taking</li></ul></li></ul></li><li>Other - #99</li></ul>"
    for name, text in (("tock.md", md), ("tock.html", html)):
        elements = parsed(tmp_path, name, text)
        items = [(e.depth, e.text) for e in elements if e.kind == "list_item"]
        assert items == [
            (0, "Hiring - #1241: includes:"),
            (1, "Interviews,"),
            (2, "Note taking"),
            (0, "Other - #99"),
        ], name


def test_template_tag_helpers() -> None:
    assert strip_template_tags('x {% slack_channel "ux" %} y') == "x #ux y"
    assert strip_template_tags("a {% raw %}b{% endraw %} c") == "a b c"
    assert clean_element_text('[Credit hours]({% page "/x/" %}): No') == "Credit hours: No"
    # A reference link whose definition lives in a site-wide include: its label is the text.
    keep = "Keep [travel card policies][travel-guide-3] as you travel; see [this][]."
    assert clean_element_text(keep) == "Keep travel card policies as you travel; see this."
    assert clean_element_text("Scores [1] and [2] stay.") == "Scores [1] and [2] stay."
    split_tag = 'MUST be [acknowledged]({% page "/perf-\nmanagement/" %}) in HR Links.'
    assert clean_element_text(split_tag) == "MUST be acknowledged in HR Links."
