"""The Markdown rewrites that make Python-Markdown read lists, quotes and "#" lines as
CommonMark (and GitHub) does, and what partitioning then makes of real handbook lists."""

from __future__ import annotations

from pathlib import Path

from ingest.elements import Element
from ingest.loose_items import loose_items_in_html
from ingest.markdown_source import (
    blank_line_before_blocks,
    escape_hash_words,
    markdown_as_commonmark,
    nest_lists_four_spaces,
)
from tests.ingest.partition_support import parsed

# The 18F Tock page as written: items two spaces in, a loose item of paragraphs and
# sub-lists, a line that starts with a Tock code.
TOCK = """# Tock

## Codes

- **Out of Office - #670:** Any time you are out. Including:

  - Federal holidays,
  - Vacations

  If you will be out longer, please bill to
  #1810. (See below.)

- **Administrative - #1814:** Time spent on:

  - Administrative tasks, including:
    - Submitting timecards,
    - OLU refresh courses
  - Organizational meetings

- **18F Hiring / Onboarding - #1241:** Time spent on hiring. Hiring activity includes:

  - Interviews,
  - Note taking

  New employee onboarding activities should also be billed here. Those include:

  - Getting set up with laptops and accounts,
  - Attending onboarding classes

- **18F Intake - #1811:** Capture calls with partners.

  This includes proposal writing.

## Other
"""


def items(elements: tuple[Element, ...]) -> list[tuple[int, str]]:
    return [(e.depth, e.text) for e in elements if e.kind == "list_item"]


def test_lists_two_spaces_in_are_nested_four_spaces_in() -> None:
    assert nest_lists_four_spaces("- a\n  - b\n    - c\n  - d\n- e") == (
        "- a\n    - b\n        - c\n    - d\n- e"
    )
    # An item's paragraph at its text column goes with it; a margin line ends the list.
    assert nest_lists_four_spaces("1. a\n\n   more of a\n\nafter") == (
        "1. a\n\n    more of a\n\nafter"
    )
    # Already four spaces in: as written (a wrapped line is a lazy continuation).
    four = "* a\n    * b\n    wrapped b\n* c"
    assert nest_lists_four_spaces(four) == "* a\n    * b\n        wrapped b\n* c"
    # Not a list: a thematic break, emphasis, an indented code block outside any list.
    for text in ("* * *", "*emphasis* here", "    - code line", "text\n- no blank above"):
        assert nest_lists_four_spaces(text) == text


def test_fenced_code_in_an_item_moves_to_the_margin_and_is_not_read_as_items() -> None:
    got = nest_lists_four_spaces("1. Run this:\n   ```sh\n   - not an item\n   ```\n2. Next")
    assert got == "1. Run this:\n\n```sh\n- not an item\n```\n\n2. Next"
    outside = "```\n  - kept\n```"
    assert nest_lists_four_spaces(outside) == outside + "\n"


def test_a_line_starting_with_a_hash_word_is_not_a_heading() -> None:
    assert escape_hash_words("bill to\n#1810. (See below.)") == "bill to\n\\#1810. (See below.)"
    assert escape_hash_words("- #tts-handbook\n  1. #sf") == "- \\#tts-handbook\n  1. \\#sf"
    for heading in ("# Title", "## Sub", "#", "```\n#!/bin/sh\n```", "- # Not a word"):
        assert escape_hash_words(heading) == heading


def test_a_slack_channel_reads_as_its_name_in_items_and_table_cells(tmp_path: Path) -> None:
    text = (
        "# Channels\n\n"
        '- {% slack_channel "tts-handbook" %}\n- Ask in {% slack_channel "sf" %} first.\n\n'
        '| Guild | Channel |\n|---|---|\n| Data | {% slack_channel "c-data" %} |\n'
    )
    elements = parsed(tmp_path, "channels.md", text)
    assert [e.text for e in elements if e.kind == "list_item"] == [
        "#tts-handbook",
        "Ask in #sf first.",
    ]
    (table,) = [e for e in elements if e.kind == "table"]
    assert "#c-data" in table.text and "\\" not in table.text
    assert [e.text for e in elements if e.kind == "title"] == ["Channels"]


def test_a_quote_right_under_a_step_is_a_quote() -> None:
    assert blank_line_before_blocks("1. Investigate.\n   > Example: Acme") == (
        "1. Investigate.\n\n   > Example: Acme"
    )
    quote = "> one\n> two"
    assert blank_line_before_blocks(quote) == quote


def test_the_tock_page_keeps_its_nesting_and_its_loose_items(tmp_path: Path) -> None:
    elements = parsed(tmp_path, "tock.md", TOCK)
    assert items(elements) == [
        (0, "Out of Office - #670: Any time you are out. Including:"),
        (1, "Federal holidays,"),
        (1, "Vacations"),
        (0, "Administrative - #1814: Time spent on:"),
        (1, "Administrative tasks, including:"),
        (2, "Submitting timecards,"),
        (2, "OLU refresh courses"),
        (1, "Organizational meetings"),
        (0, "18F Hiring / Onboarding - #1241: Time spent on hiring. Hiring activity includes:"),
        (1, "Interviews,"),
        (1, "Note taking"),
        (1, "Getting set up with laptops and accounts,"),
        (1, "Attending onboarding classes"),
        (0, "18F Intake - #1811: Capture calls with partners."),
    ]
    # The item's later paragraph above its second sub-list stays at the item's text column.
    later = "New employee onboarding activities should also be billed here. Those include:"
    assert Element("text", later, depth=1) in elements
    texts = [e.text for e in elements]
    assert "If you will be out longer, please bill to #1810. (See below.)" in texts
    assert "This includes proposal writing." in texts
    assert [e.text for e in elements if e.kind == "title"] == ["Tock", "Codes", "Other"]


def test_a_loose_html_item_is_an_item_too(tmp_path: Path) -> None:
    html = "<h1>Tock</h1><ul><li><p>Hiring - #1241: includes:</p><ul><li>Interviews</li></ul>"
    html += "<p>More of hiring.</p></li><li>Other - #99</li></ul>"
    elements = parsed(tmp_path, "tock.html", html)
    assert items(elements)[:2] == [(0, "Hiring - #1241: includes:"), (1, "Interviews")]
    assert "More of hiring." in [e.text for e in elements]


def test_a_step_written_as_two_paragraphs_is_an_item_in_html_and_markdown(tmp_path: Path) -> None:
    # GitHub's DMCA page: each numbered step is <li><p>Step.</p><p>Example: …</p></li>;
    # unstructured read the first step as body text while the one-paragraph steps were items.
    html = "<h1>DMCA</h1><ol><li><p><strong>Owner Investigates.</strong> An owner checks.</p>"
    html += "<p>Example: an employee finds code.</p></li><li><p>Owner Sends A Notice.</p></li>"
    html += "</ol>"
    md = "# DMCA\n\n1. **Owner Investigates.** An owner checks.\n\n"
    md += "    Example: an employee finds code.\n\n2. Owner Sends A Notice.\n"
    for name, text in (("dmca.html", html), ("dmca.md", md)):
        elements = parsed(tmp_path, name, text)
        assert items(elements) == [
            (0, "Owner Investigates. An owner checks."),
            (0, "Owner Sends A Notice."),
        ], name
        assert "Example: an employee finds code." in [e.text for e in elements], name


def test_an_html_page_without_loose_items_is_parsed_as_written() -> None:
    page = "<html><body><ul><li><p>One paragraph.</p></li><li>Plain</li></ul></body></html>"
    assert loose_items_in_html(page) is page
    assert loose_items_in_html("") == ""
    rewritten = loose_items_in_html("<ul><li><p>Lead.</p><p>More.</p></li></ul>")
    assert "<li>Lead.<p>More.</p></li>" in rewritten


def test_every_rewrite_leaves_plain_markdown_as_it_was() -> None:
    plain = "# Title\n\nA paragraph.\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    assert markdown_as_commonmark(plain) == plain
