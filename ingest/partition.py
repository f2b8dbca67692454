"""Files → ``ParsedDocument``: Markdown, HTML, DOCX and text through ``unstructured``, PDF
through ``ingest.pdf`` (pdfplumber), all offline.

unstructured is made safe to run offline when this module is imported (see
../shared/NOTES.md): telemetry and its usage notice are switched off, and its spaCy loader
returns a blank English pipeline with a sentencizer instead of downloading
``en_core_web_sm``. Without the real model its "narrative text" test finds no verbs, so
NarrativeText, UncategorizedText and Text all count as body text here; heading depth comes
from the markup (``<hN>``, ``#``, Word heading styles), never from guessing.
"""

from __future__ import annotations

# ruff: noqa: E402  (unstructured reads these flags at import, so they are set first)
import os
import re
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

for _flag in ("DO_NOT_TRACK", "UNSTRUCTURED_DISABLE_NOTICE"):
    if not os.environ.get(_flag, "").strip():
        os.environ[_flag] = "1"

import lxml.etree
import lxml.html
import spacy
import unstructured.nlp.tokenize as _unstructured_tokenize
from spacy.language import Language

from ingest.elements import Element, ElementKind, ParsedDocument
from ingest.errors import (
    CorruptFile,
    EmptyDocument,
    EncryptedFile,
    IngestFileError,
    TooLarge,
    UnreadableFile,
    UnsupportedFile,
)
from ingest.front_matter import known_properties, split_front_matter
from ingest.loose_items import loose_items_in_html
from ingest.markdown_source import LooseItemText, markdown_as_commonmark
from ingest.pdf import partition_pdf
from ingest.properties import docx_properties, html_properties
from ingest.tables import rows_from_html, rows_to_html
from ingest.template_tags import clean_element_text, strip_template_tags


def _blank_english() -> Language:
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    return nlp


def _refuse_download() -> None:
    raise RuntimeError("docent runs offline: unstructured may not download a spaCy model")


_unstructured_tokenize._load_spacy_model = _blank_english
_unstructured_tokenize._install_spacy_model = _refuse_download
_unstructured_tokenize._get_nlp.cache_clear()

SUPPORTED_EXTENSIONS: tuple[str, ...] = (
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".docx",
    ".pdf",
    ".txt",
)
_TEXT_CATEGORIES_DROPPED = {
    "Header", "Page-header", "Footer", "Page-footer", "PageBreak", "PageNumber",
    "Image", "Figure", "Picture",
}  # fmt: skip
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _read_text(path: Path, source: str) -> str:
    data = path.read_bytes()
    if b"\x00" in data[:65536] or len(
        _CONTROL.findall(data[:65536].decode("latin-1"))
    ) > 0.02 * min(len(data), 65536):
        raise CorruptFile(source, "the file holds binary data, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Older exports are often Windows-1252; anything that is not even that is not text.
        try:
            return data.decode("cp1252")
        except UnicodeDecodeError as exc:
            raise CorruptFile(source, "the text is neither UTF-8 nor Windows-1252") from exc


def _from_unstructured(
    raw: Iterable[Any],
    heading_depth: Callable[[Any], int | None],
    *,
    first_paragraphs_are_items: bool = False,
) -> list[Element]:
    """unstructured elements → ours. ``heading_depth`` says whether a Title element is a
    real heading (its depth) or a guess to be read as body text (None)."""
    out: list[Element] = []
    for el in raw:
        category = str(el.category)
        if category in _TEXT_CATEGORIES_DROPPED:
            continue
        if category == "Table":
            rows = _clean_rows(el.metadata.text_as_html or "")
            if rows:
                text = " ".join(" ".join(r) for r in rows)
                out.append(Element("table", text, html=rows_to_html(rows)))
            continue
        text = clean_element_text(str(el.text or ""))
        if not text:
            continue
        if category == "Title":
            depth = heading_depth(el)
            if depth is not None:
                out.append(Element("title", " ".join(text.split()), depth=depth))
                continue
        if category in ("ListItem", "List-item", "BulletedText"):
            out.append(Element("list_item", text, depth=_list_depth(el)))
            continue
        out.append(Element("text", text))
    return _item_paragraphs(out, first_paragraphs_are_items=first_paragraphs_are_items)


def _item_paragraphs(elements: list[Element], *, first_paragraphs_are_items: bool) -> list[Element]:
    """A list item written as paragraphs (``<li><p>…</p><ul>…``) comes out of unstructured
    as body text around its sub-items. The paragraph right above a nested item belongs to
    the item one level up. Markdown's and HTML's first paragraphs are items already
    (``ingest/loose_items.py``), so there it is a later paragraph of that item ("New
    employee onboarding … Those include:" under "18F Hiring / Onboarding - #1241: …"), kept
    as text at the item's text column (``depth``) so the sub-items below it still read
    under the item (``docent.list_items``). From another format it may be the item's first
    paragraph, so it is kept as that item."""
    out = list(elements)
    for n, (el, below) in enumerate(zip(elements, elements[1:], strict=False)):
        if el.kind == "text" and below.kind == "list_item" and below.depth > 0:
            kind: ElementKind = "text" if first_paragraphs_are_items else "list_item"
            depth = below.depth if first_paragraphs_are_items else below.depth - 1
            out[n] = Element(kind, el.text, depth=depth)
    return out


def _clean_rows(table_html: str) -> list[list[str]]:
    rows = [[clean_element_text(c) for c in row] for row in rows_from_html(table_html)]
    return [r for r in rows if any(r)]


def _cleaned(el: Element) -> Element:
    """Template tags and link shells out of an element from the PDF reader."""
    if el.kind == "table":
        rows = _clean_rows(el.html or "")
        text = " ".join(" ".join(r) for r in rows)
        return Element("table", text, html=rows_to_html(rows)) if rows else Element("text", "")
    return Element(el.kind, clean_element_text(el.text), depth=el.depth)


def _list_depth(el: Any) -> int:
    # Markdown and HTML report an item's nesting from 1 (a top-level item), Word the
    # numbering level from 0. Either way 0 is "top level" here.
    depth = int(el.metadata.category_depth or 0)
    if getattr(el.metadata, "detection_origin", None) == "docx":
        return depth
    return max(depth - 1, 0)


def _markup_depth(el: Any) -> int | None:
    depth = el.metadata.category_depth
    return int(depth) if depth is not None else None


# unstructured's defaults, and Markdown inside HTML blocks marked ``markdown="1"`` (Kramdown's
# and Jekyll's convention: the 18F handbook's accordions hold whole sections that way, which
# were read as one paragraph of raw "#### " and "- " text).
MARKDOWN_EXTENSIONS = ("tables", "fenced_code", "md_in_html")


def _partition_markdown(path: Path, source: str) -> tuple[list[Element], dict[str, str]]:
    from unstructured.partition.md import partition_md

    front, body = split_front_matter(_read_text(path, source), source)
    body = markdown_as_commonmark(strip_template_tags(body))
    if not body.strip():
        # A redirect stub (front matter naming where the page went, no body) is a real page
        # of a published handbook: what it says is where the content lives now.
        target = front.get("redirect_to")
        if isinstance(target, str) and target.strip():
            moved = Element("text", f"This page has moved to {target.strip()}.")
            return [moved], known_properties(front)
        if front:
            raise EmptyDocument(source, "the file has front matter but no body text")
        return [], known_properties(front)
    raw = partition_md(text=body, extensions=[*MARKDOWN_EXTENSIONS, LooseItemText()])
    elements = _from_unstructured(raw, _markup_depth, first_paragraphs_are_items=True)
    return elements, known_properties(front)


def _partition_html(path: Path, source: str) -> tuple[list[Element], dict[str, str]]:
    from unstructured.partition.html import partition_html

    text = strip_template_tags(_read_text(path, source))
    if not text.strip():
        return [], {}
    raw = partition_html(text=loose_items_in_html(text))
    elements = _from_unstructured(raw, _markup_depth, first_paragraphs_are_items=True)
    return elements, html_properties(text)


def _partition_text(path: Path, source: str) -> tuple[list[Element], dict[str, str]]:
    from unstructured.partition.text import partition_text

    text = strip_template_tags(_read_text(path, source))
    if not text.strip():
        return [], {}
    raw = list(partition_text(text=text))

    # Plain text has no markup, and without a language model unstructured calls nearly
    # every paragraph a Title. A heading here is a short line with no closing punctuation
    # that has body text after it; the first one opening the file is the document title.
    def depth(el: Any) -> int | None:
        words = str(el.text).split()
        if not words or len(words) > 10 or re.search(r"[.,;:!?]$", str(el.text).strip()):
            return None
        if el is raw[-1]:
            return None
        return 0 if el is raw[0] else 1

    return _from_unstructured(raw, depth), {}


def _partition_docx(path: Path, source: str) -> tuple[list[Element], dict[str, str]]:
    from unstructured.partition.docx import partition_docx

    with path.open("rb") as fh:
        magic = fh.read(8)
    if magic == _OLE_MAGIC:
        if "EncryptedPackage".encode("utf-16-le") in path.read_bytes():
            raise EncryptedFile(source, "the Word document is password-protected")
        raise CorruptFile(source, "an old binary Word (.doc) file, not a .docx package")
    if not zipfile.is_zipfile(path):
        raise CorruptFile(source, "not a Word .docx file (the bytes are not a ZIP package)")
    try:
        raw = list(partition_docx(filename=str(path)))
        properties = docx_properties(path)
    except (zipfile.BadZipFile, KeyError, lxml.etree.XMLSyntaxError, ValueError) as exc:
        raise CorruptFile(source, f"the .docx package is damaged ({type(exc).__name__})") from exc
    has_title_style = any(getattr(e.metadata, "style_name", None) == "Title" for e in raw)

    # Word calls both "Title" and "Heading 1" depth 0; the Title paragraph is the document's
    # title, so below it "Heading N" sits at depth N. Guessed titles (Normal style) are text.
    def depth(el: Any) -> int | None:
        style = str(getattr(el.metadata, "style_name", "") or "")
        if style == "Title":
            return 0
        match = re.fullmatch(r"Heading\s*(\d+)", style)
        if not match:
            return None
        return int(match.group(1)) - (0 if has_title_style else 1)

    return _from_unstructured(raw, depth), properties


_PARTITIONERS: dict[str, Callable[[Path, str], tuple[list[Element], dict[str, str]]]] = {
    ".md": _partition_markdown,
    ".markdown": _partition_markdown,
    ".html": _partition_html,
    ".htm": _partition_html,
    ".txt": _partition_text,
    ".docx": _partition_docx,
}


def _title_fallback(properties: dict[str, str], elements: list[Element], path: Path) -> None:
    """No title, or one that is only the file's slug (pandoc's HTML <title>): use the
    opening top-level heading when there is one."""
    title = properties.get("title")
    if title and title.strip().lower() != path.stem.lower():
        return
    first = next((e for e in elements if e.kind == "title"), None)
    if first is not None and first.depth == 0:
        properties["title"] = first.text


def partition_file(path: Path, source: str, *, max_bytes: int | None = None) -> ParsedDocument:
    """Read one file into elements and properties, or raise an ``IngestFileError`` naming
    ``source`` and the reason."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        kind = f"'{suffix}' files are" if suffix else "files without an extension are"
        raise UnsupportedFile(
            source, f"{kind} not supported (supported: {', '.join(SUPPORTED_EXTENSIONS)})"
        )
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise UnreadableFile(source, "the file cannot be read (missing or no permission)") from exc
    if size == 0:
        raise EmptyDocument(source, "the file is empty (0 bytes)")
    if max_bytes is not None and size > max_bytes:
        raise TooLarge(source, f"the file is {size:,} bytes, over the {max_bytes:,}-byte limit")

    if suffix in (".md", ".markdown", ".html", ".htm", ".txt") and not path.read_bytes().strip():
        raise EmptyDocument(source, "the file contains only whitespace")
    if suffix == ".pdf":
        parsed = partition_pdf(path, source)
        elements = [_cleaned(e) for e in parsed.elements]
        elements = [e for e in elements if e.text]
        properties = dict(parsed.properties)
    else:
        try:
            elements, properties = _PARTITIONERS[suffix](path, source)
        except IngestFileError:
            raise
        except Exception as exc:  # noqa: BLE001 - a parser failing on these bytes is a bad file
            raise CorruptFile(
                source, f"the file could not be parsed ({type(exc).__name__})"
            ) from exc
    if not elements:
        raise EmptyDocument(source, "no text could be extracted from the file")
    _title_fallback(properties, elements, path)
    return ParsedDocument(elements=tuple(elements), properties=properties)
