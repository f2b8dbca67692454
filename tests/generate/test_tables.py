"""Pipe tables in blocks: parsing, the view for clients, and the superlative's row."""

from decimal import Decimal

from generate.question_types import expect
from generate.tables import (
    asked_value,
    cell_value,
    row_reading,
    superlative_column,
    superlative_row,
    table_rows,
    table_view,
)
from generate.text import content_words

CHARGERS = (
    "| Space | Charger | Power | Connector |\n| --- | --- | --- | --- |\n"
    "| B1 | Wallbox Pulsar | 7.4 kW | Type 2 |\n| B3 | ABB Terra AC | 22 kW | Type 2 |\n"
    "| B4 | ABB Terra DC | 50 kW | CCS |"
)


def test_table_rows_keep_the_rule_line_with_the_header() -> None:
    header, rows = table_rows(CHARGERS) or ("", [])
    assert header == "| Space | Charger | Power | Connector |\n| --- | --- | --- | --- |"
    assert rows[-1] == "| B4 | ABB Terra DC | 50 kW | CCS |"
    assert table_rows("no | table here") is None


def test_table_view_is_cells_without_the_rule_and_none_for_prose() -> None:
    view = table_view("| City | Daily per diem |\n|---|---|\n| Lisbon | €64 |")
    assert view == {"header": ["City", "Daily per diem"], "rows": [["Lisbon", "€64"]]}
    assert table_view("Refunds within 30 days.") is None
    assert table_view("Intro line\n| a | b |\n| 1 | 2 |") is None  # mixed: not a quote of a table


def test_row_reading_and_cell_values() -> None:
    assert row_reading("| City | Tier |\n|---|---|", "| Lisbon | |") == "City: Lisbon"
    assert cell_value("€1,200 per year") == 1200
    assert cell_value("7.4 kW") == Decimal("7.4")
    assert cell_value("Type 2") == 2 and cell_value("CCS") is None


def test_a_superlative_ranks_by_the_column_its_words_name() -> None:
    header, rows = table_rows(CHARGERS) or ("", [])
    fastest = expect("Which EV charger is the fastest?").superlative
    assert fastest is not None
    assert superlative_column(header, rows, fastest, "Which EV charger is the fastest?") == 2
    assert superlative_row(header, rows, fastest, "Which EV charger is the fastest?") == 2
    slowest = expect("Which charger is the slowest?").superlative
    assert slowest is not None
    assert superlative_row(header, rows, slowest, "Which charger is the slowest?") == 0


def test_a_tie_at_the_top_picks_no_row() -> None:
    table = "| Plan | Price |\n|---|---|\n| A | €10 |\n| B | €10 |\n| C | €5 |"
    header, rows = table_rows(table) or ("", [])
    dearest = expect("Which plan is the most expensive?").superlative
    assert dearest is not None
    assert superlative_row(header, rows, dearest, "Which plan is the most expensive?") is None


LAPTOPS = (
    "| Role | Laptop | Extras |\n"
    "|---|---|---|\n"
    "| Engineering and data | 16-inch laptop, 32 GB memory | Two 27-inch monitors |\n"
    "| Design | 16-inch laptop, 36 GB memory | One 32-inch colour-calibrated monitor |\n"
    "| Everyone else | 14-inch laptop, 16 GB memory | One 27-inch monitor |"
)


def test_a_cell_gives_the_number_of_the_thing_asked_about() -> None:
    memory, storage = frozenset(content_words("memory")), frozenset(content_words("storage"))
    assert asked_value("16-inch laptop, 32 GB memory", memory) == 32
    assert cell_value("16-inch laptop, 32 GB memory") == 16  # nothing asked: the first
    assert asked_value("14-inch laptop", memory) is None  # the word is absent
    # Label before value: the word after "32 GB," belongs to the next part, not to 32.
    assert asked_value("memory 32 GB, storage 512 GB", storage) is None


def test_a_superlative_over_descriptive_cells_ranks_by_the_asked_figure() -> None:
    header, rows = table_rows(LAPTOPS) or ("", [])
    question = "which team gets the laptop with the most memory?"
    most = expect(question).superlative
    assert most is not None
    assert superlative_row(header, rows, most, question) == 1  # Design, 36 GB
    # Without the asked word every laptop is "16-inch" first: no clear winner, no answer.
    question = "which team gets the biggest laptop?"
    biggest = expect(question).superlative
    assert biggest is not None
    assert superlative_row(header, rows, biggest, question) is None


def pick(table: str, question: str) -> int | None:
    """The row the question's superlative picks from ``table``."""
    header, rows = table_rows(table) or ("", [])
    superlative = expect(question).superlative
    assert superlative is not None
    return superlative_row(header, rows, superlative, question)


def test_a_row_without_the_asked_figure_is_not_ranked_on_another_one() -> None:
    kit = (
        "| Team | Kit |\n|---|---|\n"
        "| Data | 16-inch laptop, 32 GB memory |\n"
        "| Events | 64-inch display wall |"
    )
    # 32 GB, not the 64-inch wall.
    assert pick(kit, "which team gets the laptop with the most memory?") == 0


def test_a_label_with_a_number_is_a_category_not_a_measure() -> None:
    rates = (
        "| City | Tier | Daily per diem |\n|---|---|---|\n"
        "| Sofia | Tier 2 | €44 |\n| Geneva | Tier 1 | €98 |\n| Porto | Tier 2 | €56 |"
    )
    question = "which city gives you the smallest food allowance per day?"
    header, rows = table_rows(rates) or ("", [])
    smallest = expect(question).superlative
    assert smallest is not None
    # "Tier 1" is not the smallest figure: the per diem column is the only measure.
    assert superlative_column(header, rows, smallest, question) == 2
    assert pick(rates, question) == 0
