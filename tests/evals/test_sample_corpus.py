"""The sample corpus agrees with itself: the manifest lists exactly its files, the README
table and document titles agree with the manifest, the committed DOCX/PDF files are the
build of their Markdown sources, and the README's leak canaries sit only in confidential
documents."""

from __future__ import annotations

import importlib.util
import re
import sys
from datetime import date
from pathlib import Path
from types import ModuleType

from docent.access import DEFAULT_LEVELS
from tests.evals.sample_corpus import (
    POLICIES,
    ROOT,
    folded,
    manifest,
    raw_text,
    sections_of,
    status_of,
)


def test_manifest_lists_exactly_the_corpus_files() -> None:
    on_disk = {p.name for p in POLICIES.iterdir() if p.name != "MANIFEST.csv"}
    assert set(manifest()) == on_disk
    for source, row in manifest().items():
        assert row["access_level"] in DEFAULT_LEVELS, source
        date.fromisoformat(row["effective_date"])
        if row["superseded_by"]:
            assert row["superseded_by"] in manifest(), source


def test_readme_table_agrees_with_the_manifest() -> None:
    rows = {}
    for line in (POLICIES.parent / "POLICIES.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] in manifest():
            rows[cells[0]] = cells
    assert set(rows) == set(manifest())
    for source, (_, fmt, level, status, _purpose) in rows.items():
        row = manifest()[source]
        assert fmt == Path(source).suffix[1:], source
        assert level == row["access_level"], source
        assert status == status_of(row), source


def test_every_titled_document_starts_at_its_manifest_title() -> None:
    for source, row in manifest().items():
        if Path(source).suffix == ".txt":
            first = (POLICIES / source).read_text(encoding="utf-8").splitlines()[0]
            assert first == row["title"], source
            continue
        sections = sections_of(source)
        roots = {path[0] for path, _ in sections}
        assert roots == {row["title"]}, f"{source}: roots {roots}"


def _build_formats() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_formats", ROOT / "examples" / "build_formats.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being built
    spec.loader.exec_module(module)
    return module


def test_committed_docx_and_pdf_files_are_the_build_of_their_sources(tmp_path: Path) -> None:
    built = _build_formats().build(tmp_path)
    assert len(built) == 6
    for path in built:
        committed = POLICIES / path.name
        assert committed.read_bytes() == path.read_bytes(), f"{path.name}: rerun build_formats.py"


def test_built_files_carry_title_metadata_and_real_structure() -> None:
    import docx
    import pdfplumber

    for source, row in manifest().items():
        if source.endswith(".docx"):
            document = docx.Document(str(POLICIES / source))
            assert document.core_properties.title == row["title"]
            styles = [p.style.name if p.style else "" for p in document.paragraphs]
            assert styles[0] == "Heading 1" and document.paragraphs[0].text == row["title"]
            assert "Heading 2" in styles and document.tables, source
        elif source.endswith(".pdf"):
            with pdfplumber.open(POLICIES / source) as pdf:
                assert pdf.metadata["Title"] == row["title"]
                tables = [t for page in pdf.pages for t in page.extract_tables()]
                sizes = {round(c["size"]) for page in pdf.pages for c in page.chars}
            assert tables and len(tables[0]) >= 3, source
            assert {20, 14} <= sizes, source


def test_readme_leak_canaries_exist_only_in_confidential_documents() -> None:
    readme = (POLICIES.parent / "POLICIES.md").read_text(encoding="utf-8")
    paragraph = readme.split("**Leak canaries.**", 1)[1].split("\n- ", 1)[0]
    canaries = re.findall(r"`([^`]+)`", paragraph)
    canaries = [c for c in canaries if not c.endswith(".py")]
    assert len(canaries) >= 6
    for canary in canaries:
        holders = {s for s in manifest() if folded(canary) in folded(raw_text(POLICIES / s))}
        assert holders, canary
        levels = {manifest()[s]["access_level"] for s in holders}
        assert levels == {"confidential"}, f"{canary!r} in {holders}"
