"""A document's own metadata fields, read without partitioning it: Markdown front matter,
HTML ``<meta>``/``<title>``, DOCX core and custom properties, PDF document info.

The partitioners use the same readers; the upload route uses ``read_properties`` to show
the level each file will get (and to refuse one it may not get) before the job runs, without
importing unstructured.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

import lxml.etree
import lxml.html

from ingest.errors import IngestFileError
from ingest.front_matter import known_properties, split_front_matter


def html_properties(text: str) -> dict[str, str]:
    try:
        root = lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError):
        return {}
    raw: dict[str, object] = {}
    for meta in root.iter("meta"):
        name, content = meta.get("name"), meta.get("content")
        if name and content:
            raw[name] = content
    title = root.findtext(".//title")
    if title and title.strip():
        raw["title"] = " ".join(title.split())
    return known_properties(raw)


def docx_properties(path: Path) -> dict[str, str]:
    raw: dict[str, object] = {}
    with zipfile.ZipFile(path) as package:
        names = set(package.namelist())
        if "docProps/core.xml" in names:
            core = lxml.etree.fromstring(package.read("docProps/core.xml"))
            for node in core:
                if isinstance(node.tag, str) and lxml.etree.QName(node).localname == "title":
                    raw["title"] = node.text or ""
        if "docProps/custom.xml" in names:
            custom = lxml.etree.fromstring(package.read("docProps/custom.xml"))
            for prop in custom:
                name = prop.get("name")
                if name:
                    raw[name] = "".join(prop.itertext())
    return known_properties(raw)


def _pdf_properties(path: Path) -> dict[str, str]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        raw = {
            str(k): v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
            for k, v in (pdf.metadata or {}).items()
        }
    return known_properties(raw)


def read_properties(path: Path, source: str) -> dict[str, str]:
    """The metadata fields the file names itself. A file whose metadata cannot be read at
    all raises ``IngestFileError`` (bad front matter: ``BadMetadata``); a file that merely
    cannot be parsed gives ``{}`` here and fails with its reason when it is ingested."""
    suffix = path.suffix.lower()
    try:
        if suffix in (".md", ".markdown"):
            text = path.read_bytes().decode("utf-8-sig", "replace")
            return known_properties(split_front_matter(text, source)[0])
        if suffix in (".html", ".htm"):
            return html_properties(path.read_bytes().decode("utf-8", "replace"))
        if suffix == ".docx":
            return docx_properties(path)
        if suffix == ".pdf":
            return _pdf_properties(path)
    except IngestFileError:
        raise
    except Exception:  # noqa: BLE001 - unreadable bytes: the ingest reports why, in its words
        return {}
    return {}
