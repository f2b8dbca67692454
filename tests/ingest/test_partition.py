"""partition_file: every format, offline, headings and whole tables, and a clear error for
every bad input."""

from __future__ import annotations

from pathlib import Path

import pytest
import unstructured.nlp.tokenize as unstructured_tokenize

from ingest.elements import Element, ParsedDocument
from ingest.errors import (
    BadMetadata,
    CorruptFile,
    EmptyDocument,
    EncryptedFile,
    IngestFileError,
    TooLarge,
    UnsupportedFile,
)
from ingest.partition import SUPPORTED_EXTENSIONS, partition_file
from ingest.tables import rows_from_html
from tests.ingest.partition_support import build_docx, build_pdf, write

BAD = Path(__file__).resolve().parents[1] / "fixtures" / "bad"


def titles(doc: ParsedDocument) -> list[tuple[int, str]]:
    return [(e.depth, e.text) for e in doc.elements if e.kind == "title"]


def tables(doc: ParsedDocument) -> list[list[list[str]]]:
    return [rows_from_html(e.html or "") for e in doc.elements if e.kind == "table"]


def all_text(doc: ParsedDocument) -> str:
    return "\n".join(e.text for e in doc.elements)


# --- offline -----------------------------------------------------------------------------


def test_unstructured_uses_a_blank_spacy_pipeline_and_never_downloads() -> None:
    nlp = unstructured_tokenize._get_nlp()
    assert nlp.pipe_names == ["sentencizer"]
    assert nlp.meta["name"] != "core_web_sm"
    with pytest.raises(RuntimeError, match="offline"):
        unstructured_tokenize._install_spacy_model()


# --- Markdown ----------------------------------------------------------------------------

MARKDOWN = """---
title: Leave Policy
owner: People Ops
effective_date: 2025-02-01
groups: [hr, managers]
access_level: confidential
keywords: ignored
---

Intro before any heading.

## Annual leave

Everyone gets 25 days. See [the calendar]({% page "/calendar/" %}) for dates.

{% alert "Heads up!" %}
Book two weeks ahead.
{% endalert %}

{% comment %}
internal drafting note that must vanish
{% endcomment %}

Ask in {% slack_channel "people-ops" %} or email {{ site.data.contact }}.

- first item
- second item

### Carry-over

| Days left | Carried over |
|---|---|
| 1-5 | All |
| 6+ | 5 \\| capped |

## Sick leave

Tell your manager.
"""


def test_markdown_front_matter_headings_lists_and_tables(tmp_path: Path) -> None:
    doc = partition_file(write(tmp_path, "leave.md", MARKDOWN), "leave.md")
    assert doc.properties == {
        "title": "Leave Policy",
        "owner": "People Ops",
        "effective_date": "2025-02-01",
        "groups": "hr, managers",
        "access_level": "confidential",
    }
    assert titles(doc) == [(1, "Annual leave"), (2, "Carry-over"), (1, "Sick leave")]
    text = all_text(doc)
    assert "title:" not in text and "keywords" not in text  # front matter stripped
    assert doc.elements[0] == Element("text", "Intro before any heading.")
    assert [e.text for e in doc.elements if e.kind == "list_item"] == ["first item", "second item"]
    assert tables(doc) == [[["Days left", "Carried over"], ["1-5", "All"], ["6+", "5 | capped"]]]


def test_markdown_template_tags_are_removed_cleanly(tmp_path: Path) -> None:
    doc = partition_file(write(tmp_path, "leave.md", MARKDOWN), "leave.md")
    text = all_text(doc)
    assert "{%" not in text and "%}" not in text and "{{" not in text
    assert "drafting note" not in text
    assert "See the calendar for dates." in text
    assert "Heads up!" in text and "Book two weeks ahead." in text
    assert "Ask in #people-ops or email." in text


def test_markdown_without_front_matter_or_headings(tmp_path: Path) -> None:
    doc = partition_file(write(tmp_path, "note.md", "Just one paragraph.\n"), "note.md")
    assert doc.elements == (Element("text", "Just one paragraph."),)
    assert doc.properties == {}


def test_markdown_bad_front_matter_is_bad_metadata(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.md", "---\ntitle: [unclosed\n---\n\nSECRET-BODY-TEXT\n")
    with pytest.raises(BadMetadata) as info:
        partition_file(path, "bad.md")
    assert info.value.field == "front_matter"
    assert str(info.value).startswith("bad.md: front matter is not valid YAML")
    assert "SECRET-BODY-TEXT" not in str(info.value)


def test_markdown_front_matter_that_is_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "list.md", "---\n- a\n- b\n---\n\nBody.\n")
    with pytest.raises(BadMetadata, match="list.md: front matter is not a mapping"):
        partition_file(path, "list.md")


def test_redirect_stub_says_where_the_page_went(tmp_path: Path) -> None:
    path = write(tmp_path, "old.md", "---\ntitle: Billing\nredirect_to: /tock/#billing\n---\n")
    doc = partition_file(path, "old.md")
    assert doc.elements == (Element("text", "This page has moved to /tock/#billing."),)
    assert doc.properties == {"title": "Billing"}


def test_front_matter_only_is_empty(tmp_path: Path) -> None:
    path = write(tmp_path, "stub.md", "---\ntitle: Nothing here\n---\n\n")
    with pytest.raises(EmptyDocument, match="stub.md: the file has front matter but no body"):
        partition_file(path, "stub.md")


# --- HTML --------------------------------------------------------------------------------

HTML = """<!doctype html><html><head><title>support</title>
<meta name="owner" content="Customer Support"><meta name="access-level" content="public">
</head><body>
<h1>Support Policy</h1><p>We answer every ticket.</p>
<h2>Response targets</h2>
<table><thead><tr><th>Priority</th><th>First response</th></tr></thead>
<tbody><tr><td>P1</td><td>1 hour<br>24/7</td></tr>
<tr><td>P2</td><td>4 hours</td></tr></tbody></table>
<h3>Escalation</h3><ul><li>Call the duty manager.</li><li>Open an incident.</li></ul>
</body></html>"""


def test_html_headings_table_whole_and_properties(tmp_path: Path) -> None:
    doc = partition_file(write(tmp_path, "support.html", HTML), "support.html")
    assert titles(doc) == [(0, "Support Policy"), (1, "Response targets"), (2, "Escalation")]
    assert tables(doc) == [
        [["Priority", "First response"], ["P1", "1 hour 24/7"], ["P2", "4 hours"]]
    ]
    # <title> that is only the file's slug gives way to the document's H1.
    assert doc.properties == {
        "title": "Support Policy",
        "owner": "Customer Support",
        "access_level": "public",
    }


# --- DOCX --------------------------------------------------------------------------------


def test_docx_title_headings_table_and_properties(tmp_path: Path) -> None:
    doc = partition_file(build_docx(tmp_path / "kit.docx", with_custom_properties=True), "kit.docx")
    # Word's Title paragraph is the root; Heading 1 sits below it.
    assert titles(doc) == [(0, "Equipment Policy"), (1, "Standard kit"), (2, "Returns")]
    (table,) = tables(doc)
    assert table[0] == ["Role", "Laptop", "Monitor"]
    assert len(table) == 6 and table[-1] == ["Finance", "14-inch, 16 GB", "One 24-inch"]
    assert [e.kind for e in doc.elements].count("list_item") == 2
    assert doc.properties == {
        "title": "Equipment Policy",
        "access_level": "confidential",
        "owner": "People Ops",
    }


# --- PDF ---------------------------------------------------------------------------------


def test_pdf_headings_from_font_size_lists_and_whole_tables(tmp_path: Path) -> None:
    doc = partition_file(build_pdf(tmp_path / "office.pdf"), "office.pdf")
    assert doc.properties == {"title": "Office Handbook"}
    assert titles(doc) == [
        (0, "Office Handbook"),
        (1, "Opening hours"),
        (2, "Parking"),
        (1, "Rules"),
        (1, "Room capacities"),
        (1, "Lockers"),
    ]
    kinds = [e.kind for e in doc.elements]
    # Reading order: each table sits under its heading, between the paragraphs around it.
    assert kinds == [
        "title", "text", "title", "text", "title", "text", "title", "list_item", "list_item",
        "title", "table", "title", "table", "text",
    ]  # fmt: skip
    rooms, lockers = tables(doc)
    # The unruled table runs onto page 2: one table, its repeated header dropped.
    assert rooms[0] == ["Room", "Seats", "Screen"]
    assert len(rooms) == 31 and rooms[1] == ["Room 1", "4", "No"]
    assert rooms[-1] == ["Room 30", "33", "Yes"]
    assert lockers == [["Floor", "Lockers"], ["1", "40"], ["2", "25"]]
    text = all_text(doc)
    assert "needs a request to Facilities two days ahead" in text  # wrapped lines joined
    assert "Close the windows when you leave the last meeting room of the day." in text
    assert "Room 1" not in " ".join(e.text for e in doc.elements if e.kind != "table")
    assert not any(e.text.strip() in {"1", "2"} for e in doc.elements)  # page numbers dropped
    assert "(cid:" not in text


# --- plain text --------------------------------------------------------------------------


def test_txt_short_unpunctuated_lines_are_headings(tmp_path: Path) -> None:
    text = (
        "Dublin Office Guide\n\nAddress and access\n\nThe office is on the third floor.\n\n"
        "Kitchen\n\nCoffee is free. Lunch is on Thursdays.\n\n- Clean your mug\n- Label food\n"
    )
    doc = partition_file(write(tmp_path, "guide.txt", text), "guide.txt")
    assert titles(doc) == [(0, "Dublin Office Guide"), (1, "Address and access"), (1, "Kitchen")]
    assert [e.kind for e in doc.elements][-2:] == ["list_item", "list_item"]
    assert doc.properties == {"title": "Dublin Office Guide"}


# --- the sample corpus -------------------------------------------------------------------

SAMPLE_TABLES = {  # file -> (table count, rows in the first table including its header)
    "expenses.md": (1, 41),
    "pricing.md": (1, None),
    "holidays.html": (2, None),
    "security.html": (1, None),
    "support.html": (1, None),
    "it-equipment.docx": (1, None),
    "whistleblowing.docx": (1, None),
    "salary-bands.docx": (1, None),
    "severance.pdf": (1, None),
    "performance-reviews.pdf": (1, None),
    "health-and-safety.pdf": (1, None),
}


@pytest.fixture(scope="module")
def sample_docs() -> dict[str, ParsedDocument]:
    root = Path(__file__).resolve().parents[2] / "examples" / "policies"
    files = [p for p in sorted(root.iterdir()) if p.suffix in SUPPORTED_EXTENSIONS]
    return {p.name: partition_file(p, p.name) for p in files if p.name != "README.md"}


def test_sample_corpus_every_format_partitions(sample_docs: dict[str, ParsedDocument]) -> None:
    suffixes = {Path(name).suffix for name in sample_docs}
    assert {".md", ".html", ".docx", ".pdf", ".txt"} <= suffixes
    for name, doc in sample_docs.items():
        assert doc.elements, name
        assert doc.properties.get("title"), name
        first_heading = next(e for e in doc.elements if e.kind == "title")
        # Every sample document opens with its title as the top heading.
        assert (first_heading.depth, first_heading.text) == (0, doc.properties["title"]), name
        assert "{%" not in all_text(doc), name


def test_sample_corpus_tables_are_whole(sample_docs: dict[str, ParsedDocument]) -> None:
    for name, (count, rows) in SAMPLE_TABLES.items():
        found = tables(sample_docs[name])
        assert len(found) == count, name
        for table in found:
            assert len(table) >= 3 and len({len(r) for r in table}) == 1, name
        if rows is not None:
            assert len(found[0]) == rows, name


def test_sample_pdf_and_docx_headings(sample_docs: dict[str, ParsedDocument]) -> None:
    assert titles(sample_docs["severance.pdf"]) == [
        (0, "Severance Guidelines"),
        (1, "Scope"),
        (1, "Standard package"),
        (1, "Enhanced package"),
        (1, "Conditions"),
    ]
    assert titles(sample_docs["salary-bands.docx"])[:2] == [
        (0, "Salary Bands 2026"),
        (1, "How bands work"),
    ]


# --- bad inputs --------------------------------------------------------------------------

BAD_CASES = [
    ("empty.md", EmptyDocument, "the file is empty (0 bytes)"),
    ("whitespace.md", EmptyDocument, "only whitespace"),
    ("corrupt.pdf", CorruptFile, "not a readable PDF"),
    ("corrupt.docx", CorruptFile, "not a Word .docx file"),
    ("encrypted.pdf", EncryptedFile, "encrypted and needs a password"),
    ("blank.pdf", EmptyDocument, "no text could be extracted"),
    ("image.png", UnsupportedFile, "'.png' files are not supported"),
    ("notes.xyz", UnsupportedFile, "'.xyz' files are not supported"),
]


@pytest.mark.parametrize(("name", "error", "reason"), BAD_CASES)
def test_bad_fixture_gives_its_clear_error(name: str, error: type, reason: str) -> None:
    source = f"uploads/{name}"
    with pytest.raises(error) as info:
        partition_file(BAD / name, source)
    assert isinstance(info.value, IngestFileError)
    assert info.value.source == source
    assert reason in info.value.reason
    assert str(info.value) == f"{source}: {info.value.reason}"


def test_every_bad_fixture_is_covered() -> None:
    files = {p.name for p in BAD.iterdir() if p.is_file() and p.suffix != ".csv"}
    assert files == {name for name, _, _ in BAD_CASES}


def test_binary_bytes_in_a_text_format_are_corrupt(tmp_path: Path) -> None:
    path = tmp_path / "garbage.md"
    path.write_bytes(bytes(range(256)) * 4)
    with pytest.raises(CorruptFile, match="garbage.md: the file holds binary data"):
        partition_file(path, "garbage.md")


def test_old_word_and_encrypted_word_files(tmp_path: Path) -> None:
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504
    (tmp_path / "old.docx").write_bytes(ole + b"WordDocument")
    with pytest.raises(CorruptFile, match=r"old binary Word \(.doc\)"):
        partition_file(tmp_path / "old.docx", "old.docx")
    (tmp_path / "locked.docx").write_bytes(ole + "EncryptedPackage".encode("utf-16-le"))
    with pytest.raises(EncryptedFile, match="locked.docx: the Word document is password"):
        partition_file(tmp_path / "locked.docx", "locked.docx")


def test_damaged_docx_package(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "broken.docx"
    with zipfile.ZipFile(path, "w") as package:
        package.writestr("hello.txt", "not a word document")
    with pytest.raises(CorruptFile, match="broken.docx"):
        partition_file(path, "broken.docx")


def test_missing_file_and_size_limit(tmp_path: Path) -> None:
    with pytest.raises(IngestFileError, match="gone.md: the file cannot be read"):
        partition_file(tmp_path / "gone.md", "gone.md")
    path = write(tmp_path, "big.md", "word " * 100)
    with pytest.raises(TooLarge, match="big.md: the file is 500 bytes, over the 100-byte limit"):
        partition_file(path, "big.md", max_bytes=100)


def test_errors_never_quote_document_text(tmp_path: Path) -> None:
    canary = "CANARY-Juniper-38-roles"
    pdf = tmp_path / "secret.pdf"
    pdf.write_bytes(b"%PDF-1.7\n" + canary.encode() * 50)
    docx = tmp_path / "secret.docx"
    docx.write_bytes(canary.encode() * 50)
    for path in (pdf, docx):
        with pytest.raises(IngestFileError) as info:
            partition_file(path, path.name)
        assert canary not in str(info.value)
