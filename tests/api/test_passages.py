"""The passage view's blocks: prose with the quote highlighted, lists as their items,
tables as cells with the cited row marked; and the passage a superseded one links to."""

from api.passages import passage_blocks, successor_passage
from docent.contracts import Chunk

TEXT = (
    "Daily rates by city:\n"
    "| City | Daily per diem |\n|---|---|\n| Lisbon | €64 |\n| Porto | €56 |\n"
    "Rates include meals."
)


def test_a_table_is_cells_and_the_quoted_row_is_marked() -> None:
    blocks = passage_blocks(TEXT, "| City | Daily per diem |\n|---|---|\n| Lisbon | €64 |")
    prose, table, tail = blocks
    assert prose == {"parts": [{"text": "Daily rates by city:\n", "mark": False}]}
    assert table == {
        "header": ["City", "Daily per diem"],
        "rows": [
            {"cells": ["Lisbon", "€64"], "mark": True},
            {"cells": ["Porto", "€56"], "mark": False},
        ],
    }
    assert tail == {"parts": [{"text": "Rates include meals.", "mark": False}]}


def test_a_prose_quote_is_highlighted_and_no_quote_marks_nothing() -> None:
    (prose, table, tail) = passage_blocks(TEXT, "Rates include meals.")
    assert tail == {"parts": [{"text": "Rates include meals.", "mark": True}]}
    assert not any(row["mark"] for row in table["rows"])
    assert all(not row["mark"] for row in passage_blocks(TEXT, None)[1]["rows"])


def test_list_items_quoted_apart_are_each_marked() -> None:
    text = "- First class airfare\n- Winery tours\n- Economy class airfare\n"
    blocks = passage_blocks(text, "First class airfare\nEconomy class airfare")
    assert blocks == [
        {
            "items": [
                {"depth": 0, "parts": [{"text": "First class airfare", "mark": True}]},
                {"depth": 0, "parts": [{"text": "Winery tours", "mark": False}]},
                {"depth": 0, "parts": [{"text": "Economy class airfare", "mark": True}]},
            ]
        }
    ]
    # A quote that is one run of the text marks each item it runs over.
    one = passage_blocks(text, "Winery tours\n- Economy class airfare")
    assert [[p["mark"] for p in item["parts"]] for item in one[0]["items"]] == [
        [False],
        [True],
        [True],
    ]


def test_a_list_is_its_items_nested_and_with_their_later_paragraphs() -> None:
    """A browser pass: list items read as raw "- " lines in the passage view."""
    text = (
        "Not refunded:\n- Services already delivered.\n  - Including training days.\n"
        "    Booked days count as delivered.\n- Marketplace add-ons.\nAsk Finance."
    )
    prose, items, tail = passage_blocks(text, "Marketplace add-ons.")
    assert prose == {"parts": [{"text": "Not refunded:", "mark": False}]}
    assert items == {
        "items": [
            {"depth": 0, "parts": [{"text": "Services already delivered.", "mark": False}]},
            {
                "depth": 1,
                "parts": [
                    {
                        "text": "Including training days.\nBooked days count as delivered.",
                        "mark": False,
                    }
                ],
            },
            {"depth": 0, "parts": [{"text": "Marketplace add-ons.", "mark": True}]},
        ]
    }
    assert tail == {"parts": [{"text": "Ask Finance.", "mark": False}]}


def _chunk(cid: str, *path: str) -> Chunk:
    source = cid.split("#")[0]
    return Chunk(cid, source, source, path, "text", "…", "…", ("…",), cid)


def test_a_superseded_passage_links_the_successor_section_of_its_name() -> None:
    old = _chunk("refunds-2022.md#1", "Refunds Policy 2022", "Approval")
    today = [
        _chunk("refunds.md#0", "Refunds Policy", "Eligibility"),
        _chunk("refunds.md#2", "Refunds Policy", "Approval"),
    ]
    assert successor_passage(old, today) == today[1]
    # No section of that name: the successor's first passage; no passage: nothing.
    gone = _chunk("refunds-2022.md#3", "Refunds Policy 2022", "Appeals")
    assert successor_passage(gone, today) == today[0]
    assert successor_passage(old, []) is None


def test_an_outer_items_later_paragraph_after_a_nested_item_stays_its_own() -> None:
    """A review: chunking writes an item's later paragraph at its text column; after a
    nested item it belongs to the outer item, not under the nested one."""
    text = (
        "- Services already delivered.\n  - Including training days.\n"
        "  Ask Finance before refunding any service.\n- Add-ons.\n-\n"
    )
    (items, dash) = passage_blocks(text, None)
    assert [(i["depth"], i["parts"][0]["text"], i.get("more", False)) for i in items["items"]] == [
        (0, "Services already delivered.", False),
        (1, "Including training days.", False),
        (0, "Ask Finance before refunding any service.", True),
        (0, "Add-ons.", False),
    ]
    assert dash == {"parts": [{"text": "-\n", "mark": False}]}  # a bare dash is no item


def test_a_subsection_links_under_its_parent_section_before_a_same_named_one() -> None:
    old = _chunk("refunds-2022.md#2", "Refunds Policy 2022", "Approval", "Exceptions")
    today = [
        _chunk("refunds.md#0", "Refunds Policy", "Intro"),
        _chunk("refunds.md#1", "Refunds Policy", "Approval"),
        _chunk("refunds.md#2", "Refunds Policy", "Eligibility", "Exceptions"),
    ]
    assert successor_passage(old, today) == today[1]
