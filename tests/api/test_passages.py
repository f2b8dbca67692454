"""The passage view's blocks: prose with the quote highlighted, tables as cells with the
cited row marked."""

from api.passages import passage_blocks

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
            "parts": [
                {"text": "- ", "mark": False},
                {"text": "First class airfare", "mark": True},
                {"text": "\n- Winery tours\n- ", "mark": False},
                {"text": "Economy class airfare", "mark": True},
                {"text": "\n", "mark": False},
            ]
        }
    ]
    # A quote that is one run of the text is one mark, as before.
    one = passage_blocks(text, "Winery tours\n- Economy class airfare")
    assert [p["text"] for p in one[0]["parts"] if p["mark"]] == [
        "Winery tours\n- Economy class airfare"
    ]
