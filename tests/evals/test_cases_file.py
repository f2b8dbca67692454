"""The sample eval cases agree with the sample corpus they are written over.

Checks `evals/cases/sample.jsonl` against `examples/policies/`: every gold heading path
exists in its document, every expected substring is in the gold section's text, stale
figures come from superseded documents, forbidden strings exist only above the asker's
level, and the manifest, README table and built DOCX/PDF files agree with their sources.

Section text is read from the files themselves (Markdown, HTML) or, for DOCX and PDF, from
the Markdown sources `examples/build_formats.py` renders them from; the built files are
also checked to contain the same expected substrings.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import sys
from collections import Counter
from datetime import date
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from docent.access import DEFAULT_LEVELS, visible
from docent.contracts import Principal
from evals.cases import load_cases, normalise

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "examples" / "policies"
SOURCES = ROOT / "examples" / "sources"
CASES_FILE = ROOT / "evals" / "cases" / "sample.jsonl"

# The corpus's pending document is dated 2027-06-01; statuses are stated as of this day so the
# test does not change its mind when the wall clock passes that date.
CORPUS_AS_OF = date(2026, 11, 29)

REQUIRED_KEYS = {"qid", "q", "expect", "gold", "stratum", "user_access"}
MINIMUM_PER_STRATUM = {
    "answerable": 150,
    "superseded": 15,
    "past_version": 15,
    "out_of_corpus": 15,
    "permission": 15,
    "permission_allowed": 15,
    "ambiguous": 15,
}
MUST_ANSWER = {"answerable", "superseded", "past_version", "permission_allowed"}
MUST_ABSTAIN_NO_GOLD = {"out_of_corpus", "permission"}

Section = tuple[tuple[str, ...], str]  # (heading path, text directly under it)


# ---------------------------------------------------------------- reading the corpus


def markdown_sections(text: str) -> list[Section]:
    """Heading paths and body text of a Markdown document (front matter dropped)."""
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    sections: list[Section] = []
    path: list[str] = []
    body: list[str] = []
    for line in text.splitlines():
        heading = re.match(r"^(#{1,6}) (.+?)\s*$", line)
        if heading:
            if path:
                sections.append((tuple(path), "\n".join(body)))
            level = len(heading.group(1))
            path = path[: level - 1] + [heading.group(2)]
            body = []
        else:
            body.append(line)
    if path:
        sections.append((tuple(path), "\n".join(body)))
    return sections


class _HtmlSections(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sections: list[Section] = []
        self.path: list[str] = []
        self.body: list[str] = []
        self.heading_level = 0
        self.heading_text: list[str] = []
        self.in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if re.fullmatch(r"h[1-6]", tag):
            self.heading_level = int(tag[1])
            self.heading_text = []
        elif tag == "title":
            self.in_title = True
        elif tag in {"td", "th", "li", "p", "tr"}:
            self.body.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        elif self.heading_level and tag == f"h{self.heading_level}":
            self.flush()
            level = self.heading_level
            self.path = self.path[: level - 1] + [" ".join("".join(self.heading_text).split())]
            self.heading_level = 0

    def handle_data(self, data: str) -> None:
        if self.in_title:
            return
        (self.heading_text if self.heading_level else self.body).append(data)

    def flush(self) -> None:
        if self.path:
            self.sections.append((tuple(self.path), "".join(self.body)))
        self.body = []


def text_sections(text: str) -> list[Section]:
    """A plain-text document: its first line is the title; a one-line paragraph without a
    full stop is a section heading under it."""
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]
    title, sections = blocks[0], []
    path, body = (title,), []
    for block in blocks[1:]:
        if "\n" not in block and not block.endswith((".", ":", ";")):
            sections.append((path, "\n".join(body)))
            path, body = (title, block), []
        else:
            body.append(block)
    sections.append((path, "\n".join(body)))
    return sections


def html_sections(text: str) -> list[Section]:
    parser = _HtmlSections()
    parser.feed(text)
    parser.flush()
    return parser.sections


@cache
def sections_of(source: str) -> tuple[Section, ...]:
    suffix = Path(source).suffix
    if suffix == ".md":
        return tuple(markdown_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix == ".html":
        return tuple(html_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix == ".txt":
        return tuple(text_sections((POLICIES / source).read_text(encoding="utf-8")))
    if suffix in {".docx", ".pdf"}:
        text = (SOURCES / f"{Path(source).stem}.md").read_text(encoding="utf-8")
        return tuple(markdown_sections(text))
    raise AssertionError(f"{source}: no heading structure to check a gold path against")


def section_text(source: str, path: tuple[str, ...]) -> str | None:
    """Text of a section and all its subsections, or None when the path does not exist."""
    found = [text for p, text in sections_of(source) if p[: len(path)] == path]
    return "\n".join(found) if found else None


def whole_text(source: str) -> str:
    return "\n".join(text for _, text in sections_of(source))


def raw_text(path: Path) -> str:
    """All text of a corpus file as a reader would extract it (for leak checks)."""
    if path.suffix == ".docx":
        import docx

        document = docx.Document(str(path))
        cells = [c.text for t in document.tables for r in t.rows for c in r.cells]
        return "\n".join([p.text for p in document.paragraphs] + cells)
    if path.suffix == ".pdf":
        import pdfplumber

        with pdfplumber.open(path) as pdf:
            return "\n".join(page.extract_text() or "" for page in pdf.pages)
    return path.read_text(encoding="utf-8")


@cache
def manifest() -> dict[str, dict[str, str]]:
    with (POLICIES / "MANIFEST.csv").open(encoding="utf-8", newline="") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def status_of(row: dict[str, str]) -> str:
    if row["superseded_by"]:
        return "superseded"
    if date.fromisoformat(row["effective_date"]) > CORPUS_AS_OF:
        return "pending"
    return "current"


def can_read(case: dict[str, Any], source: str) -> bool:
    row = manifest()[source]
    principal = Principal("eval", case["user_access"], frozenset(case.get("groups", [])))
    groups = [g for g in row["groups"].split(";") if g]
    return visible(principal, row["access_level"], groups, DEFAULT_LEVELS)


def folded(text: str) -> str:
    return normalise(text)


# ---------------------------------------------------------------- the cases


def load_raw() -> list[dict[str, Any]]:
    lines = CASES_FILE.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


CASES = load_raw()
GOLD_REFS = sorted({(c["qid"], g) for c in CASES for g in c["gold"]})


def split_gold(ref: str) -> tuple[str, tuple[str, ...]]:
    source, _, heading = ref.partition("#")
    return source, tuple(part.strip() for part in heading.split(" > "))


def test_every_line_is_a_case_object_with_the_required_keys() -> None:
    for number, line in enumerate(CASES_FILE.read_text(encoding="utf-8").splitlines(), 1):
        case = json.loads(line)
        assert isinstance(case, dict), f"line {number}"
        assert REQUIRED_KEYS <= case.keys(), f"line {number}: missing {REQUIRED_KEYS - case.keys()}"
        assert isinstance(case["expect"], list) and isinstance(case["gold"], list)


def test_the_project_loader_reads_every_case() -> None:
    loaded = load_cases(CASES_FILE, DEFAULT_LEVELS)
    assert len(loaded) == len(CASES)


def test_qids_are_unique_and_strata_meet_their_minimums() -> None:
    qids = Counter(c["qid"] for c in CASES)
    assert [q for q, n in qids.items() if n > 1] == []
    strata = Counter(c["stratum"] for c in CASES)
    assert set(strata) <= set(MINIMUM_PER_STRATUM)
    for stratum, minimum in MINIMUM_PER_STRATUM.items():
        assert strata[stratum] >= minimum, stratum
    assert len(CASES) >= 250


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["qid"])
def test_case_shape_fits_its_stratum(case: dict[str, Any]) -> None:
    assert case["user_access"] in DEFAULT_LEVELS
    assert case["q"].strip()
    if case["stratum"] in MUST_ANSWER:
        assert case["expect"] and case["gold"]
    if case["stratum"] in MUST_ABSTAIN_NO_GOLD:
        assert case["expect"] == [] and case["gold"] == []
    if case["stratum"] == "permission":
        assert case["forbidden"]
    if case["stratum"] == "ambiguous":
        assert case["expect"] == [] and case["gold"] and len(case["readings"]) >= 2
    if case["stratum"] == "superseded":
        assert case["stale"]


@pytest.mark.parametrize("case", [c for c in CASES if c["gold"]], ids=lambda c: c["qid"])
def test_gold_documents_exist_are_current_and_readable_by_the_asker(case: dict[str, Any]) -> None:
    # A past-version question is answered from the version it names, which is superseded.
    wanted = "superseded" if case["stratum"] == "past_version" else "current"
    for ref in case["gold"]:
        source, _ = split_gold(ref)
        assert (POLICIES / source).is_file(), f"{ref}: no such document"
        assert status_of(manifest()[source]) == wanted, f"{ref}: gold must be {wanted}"
        assert can_read(case, source), f"{ref}: above {case['user_access']}"


@pytest.mark.parametrize("qid_ref", GOLD_REFS, ids=lambda x: f"{x[0]}:{x[1]}")
def test_gold_heading_path_exists_and_starts_at_the_title(qid_ref: tuple[str, str]) -> None:
    source, path = split_gold(qid_ref[1])
    assert section_text(source, path) is not None, f"no section {path} in {source}"
    assert path[0] == manifest()[source]["title"]


@pytest.mark.parametrize("case", [c for c in CASES if c["gold"]], ids=lambda c: c["qid"])
def test_expected_substrings_and_readings_are_in_a_gold_section(case: dict[str, Any]) -> None:
    texts = [section_text(*split_gold(ref)) or "" for ref in case["gold"]]
    for wanted in case["expect"] + case.get("readings", []):
        assert any(folded(wanted) in folded(t) for t in texts), f"{wanted!r} not in gold"


@pytest.mark.parametrize(
    "case", [c for c in CASES if c["stratum"] == "superseded"], ids=lambda c: c["qid"]
)
def test_stale_figures_come_from_superseded_documents(case: dict[str, Any]) -> None:
    superseded = [s for s, row in manifest().items() if status_of(row) == "superseded"]
    gold = " ".join(section_text(*split_gold(ref)) or "" for ref in case["gold"])
    for stale in case["stale"]:
        assert any(folded(stale) in folded(whole_text(s)) for s in superseded), stale
        assert folded(stale) not in folded(gold), f"{stale!r} is in the current answer"


@pytest.mark.parametrize("case", [c for c in CASES if c.get("forbidden")], ids=lambda c: c["qid"])
def test_forbidden_strings_exist_only_above_the_askers_reach(case: dict[str, Any]) -> None:
    for forbidden in case["forbidden"]:
        holders = [s for s in manifest() if folded(forbidden) in folded(raw_text(POLICIES / s))]
        assert holders, f"{forbidden!r} is in no document: the leak check could not fail"
        readable = [s for s in holders if can_read(case, s)]
        assert readable == [], f"{forbidden!r} is readable by the asker in {readable}"


def test_docx_and_pdf_gold_substrings_survive_into_the_built_files() -> None:
    for case in CASES:
        for ref in case["gold"]:
            source, _ = split_gold(ref)
            if Path(source).suffix in {".docx", ".pdf"}:
                text = folded(raw_text(POLICIES / source))
                for wanted in case["expect"]:
                    assert folded(wanted) in text, f"{case['qid']}: {wanted!r} not in {source}"


# ---------------------------------------------------------------- the corpus itself


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
