"""A nested list item read under the items above it: what ingest embeds and the answerer
counts as the item's context."""

from __future__ import annotations

from docent.contracts import Chunk
from docent.list_items import item_leads, item_parents

TOCK = """- Hiring - #1241: includes:
  - Interviews,
    - Note   taking
  - Resume review
- Other - #99
  - Staffing

A paragraph ends the list.

  - an item whose parent is not here"""


def test_each_nested_item_maps_to_its_parents_outermost_first() -> None:
    assert item_parents(TOCK) == {
        "Interviews,": ("Hiring - #1241: includes:",),
        "Note taking": ("Hiring - #1241: includes:", "Interviews,"),
        "Resume review": ("Hiring - #1241: includes:",),
        "Staffing": ("Other - #99",),
    }
    assert item_parents("Just a paragraph.\n\n- a\n- b") == {}


def chunk(text: str, sentences: tuple[str, ...], kind: str = "list") -> Chunk:
    return Chunk(
        chunk_id="tock.md#1",
        doc_id="tock",
        source="tock.md",
        heading_path=("Tock", "Codes"),
        kind=kind,  # type: ignore[arg-type]
        text=text,
        embed_text=text,
        sentences=sentences,
        content_hash="x",
    )


def test_the_unit_embed_texts_read_a_nested_item_under_its_parents() -> None:
    units = ("Hiring - #1241: includes:", "Interviews,", "Note taking", "Other - #99")
    text = "- Hiring - #1241: includes:\n  - Interviews,\n    - Note taking\n- Other - #99"
    assert chunk(text, units).unit_embed_texts == (
        "Tock > Codes\nHiring - #1241: includes:",
        "Tock > Codes\nHiring - #1241: includes:\nInterviews,",
        "Tock > Codes\nHiring - #1241: includes:\nInterviews,\nNote taking",
        "Tock > Codes\nOther - #99",
    )
    # A table's cells are never items, whatever they start with.
    table = chunk("| a |\n|---|\n| - x |", ("a: - x",), kind="table")
    assert table.unit_embed_texts == ("Tock > Codes\na: - x",)


def test_an_items_later_paragraph_is_read_with_it() -> None:
    text = (
        "- Hiring - #1241: includes:\n  - Interviews\n"
        "  Onboarding is billed here too. Those include:\n  - Laptops\n- Other"
    )
    assert item_parents(text) == {
        "Interviews": ("Hiring - #1241: includes:",),
        "Laptops": ("Hiring - #1241: includes: Onboarding is billed here too. Those include:",),
    }


def test_an_items_later_paragraph_maps_to_the_items_first_line() -> None:
    text = (
        "- Hiring - #1241: includes:\n  - Interviews\n"
        "  Onboarding is billed  here too. Those include:\n  - Laptops\n"
        "    a wrapped line of Laptops\n- Other - #99\n\nA paragraph.\n  indented, no item open"
    )
    assert item_leads(text) == {
        "Onboarding is billed here too. Those include:": "Hiring - #1241: includes:",
        "a wrapped line of Laptops": "Laptops",
    }
