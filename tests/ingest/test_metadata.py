"""Metadata: manifest reading, precedence, validation, status and stamping chunks."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest

from docent.access import DEFAULT_LEVELS
from docent.contracts import Chunk, DocumentMeta
from ingest.errors import BadMetadata
from ingest.metadata import (
    ManifestRow,
    check_successors,
    derive_status,
    doc_id_for,
    read_manifest,
    resolve_metadata,
    with_metadata,
)
from ingest.partition import partition_file

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "examples" / "policies"
BAD = ROOT / "tests" / "fixtures" / "bad"
TODAY = date(2026, 6, 1)


def resolve(
    properties: dict[str, str] | None = None,
    row: ManifestRow | None = None,
    overrides: Mapping[str, str | None] | None = None,
    *,
    source: str = "docs/policy.md",
    default_level: str = "employee",
) -> DocumentMeta:
    return resolve_metadata(
        source,
        doc_id_for(source),
        properties or {},
        row,
        overrides or {},
        levels=DEFAULT_LEVELS,
        default_level=default_level,
        today=TODAY,
    )


def write(tmp_path: Path, text: str, name: str = "MANIFEST.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


# --- doc ids -----------------------------------------------------------------------------


def test_doc_id_is_stable_and_distinct() -> None:
    assert doc_id_for("a/b.md") == doc_id_for("a/b.md")
    assert doc_id_for("a/b.md") != doc_id_for("a/c.md")
    assert len(doc_id_for("a/b.md")) == 16 and int(doc_id_for("a/b.md"), 16) >= 0


# --- manifest ----------------------------------------------------------------------------


def test_sample_manifest_reads_every_row() -> None:
    rows = read_manifest(SAMPLE / "MANIFEST.csv")
    assert len(rows) == 27
    old = rows["pricing-2023.md"]
    assert (old.superseded_by, old.access_level, old.owner) == ("pricing.md", "public", "Revenue")
    assert rows["litigation-hold.md"].groups == "legal"
    assert rows["handbook.md"].superseded_by is None  # empty cell: not set
    for name in rows:
        assert (SAMPLE / name).is_file(), name


def test_manifest_keys_are_relative_paths_and_extra_columns_are_ignored(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "Path,Effective_Date,access_level,owner,groups,source_repo,commit\n"
        "./hr/leave.md,2024-01-01,confidential,People Ops,hr; managers,acme/hb,abc123\n"
        "hr\\sick.md,,,,,x,y\n",
    )
    rows = read_manifest(path)
    assert set(rows) == {"hr/leave.md", "hr/sick.md"}
    leave = rows["hr/leave.md"]
    assert leave.effective_date == "2024-01-01" and leave.groups == "hr; managers"
    assert leave.line == 2
    assert rows["hr/sick.md"].fields() == {}


@pytest.mark.parametrize(
    ("content", "field", "reason"),
    [
        ("file,owner\na.md,x\n", "manifest", "has no 'path' column"),
        ("path,owner\na.md,x\n,y\n", "path", "row 3 has no path"),
        ("path,owner\na.md,x\nb.md,y\n./a.md,z\n", "path", "row 4 repeats path 'a.md'"),
        ("path,owner\na.md,x,extra\n", "manifest", "row 2 has more cells than the header"),
    ],
)
def test_malformed_manifest_names_the_row(
    tmp_path: Path, content: str, field: str, reason: str
) -> None:
    with pytest.raises(BadMetadata) as info:
        read_manifest(write(tmp_path, content))
    assert info.value.field == field
    assert info.value.source == "MANIFEST.csv"
    assert reason in info.value.reason


def test_quoted_manifest_cells(tmp_path: Path) -> None:
    path = write(tmp_path, 'path,title,groups\na.md,"Pricing, 2023\n(old)","hr,legal"\n')
    row = read_manifest(path)["a.md"]
    assert row.title == "Pricing, 2023\n(old)"
    assert resolve(row=row).groups == ("hr", "legal")


def test_blank_lines_in_a_manifest_are_skipped(tmp_path: Path) -> None:
    rows = read_manifest(write(tmp_path, "path,owner\na.md,x\n,\n\nb.md,y\n"))
    assert set(rows) == {"a.md", "b.md"}


def test_bad_manifest_fixture_fails_per_file_not_whole() -> None:
    rows = read_manifest(BAD / "bad-manifest.csv")
    fine = resolve(row=rows["meta/fine.md"], source="meta/fine.md")
    assert fine.access_level == "employee" and fine.effective_date == date(2025, 1, 1)

    with pytest.raises(BadMetadata) as level:
        resolve(row=rows["meta/unknown-level.md"], source="meta/unknown-level.md")
    assert level.value.field == "access_level"
    assert str(level.value).startswith("meta/unknown-level.md: access level 'top-secret'")

    with pytest.raises(BadMetadata) as when:
        resolve(row=rows["meta/bad-date.md"], source="meta/bad-date.md")
    assert when.value.field == "effective_date"
    assert "'31/31/2024' is not a date" in str(when.value)

    missing = resolve(row=rows["meta/missing-successor.md"], source="meta/missing-successor.md")
    (problem,) = check_successors([fine, missing], known_sources={"pricing.md"})
    assert problem.source == "meta/missing-successor.md" and problem.field == "superseded_by"
    assert "'meta/does-not-exist.md', which is not in this batch or the index" in problem.reason


# --- precedence --------------------------------------------------------------------------


def test_precedence_defaults_properties_manifest_overrides() -> None:
    properties = {
        "title": "From properties",
        "owner": "Props owner",
        "doc_type": "guide",
        "effective_date": "2024-01-01",
        "access_level": "public",
    }
    row = ManifestRow(path="docs/policy.md", owner="Manifest owner", effective_date="2024-06-01")
    overrides: dict[str, str | None] = {"owner": "CLI owner", "title": None, "access_level": ""}
    meta = resolve(properties, row, overrides)
    assert meta.owner == "CLI owner"  # override beats manifest and properties
    assert meta.effective_date == date(2024, 6, 1)  # manifest beats properties
    assert meta.title == "From properties"  # None override: not set
    assert meta.access_level == "public"  # empty override: not set
    assert meta.doc_type == "guide"
    assert meta.groups == () and meta.superseded_by is None  # defaults
    assert meta.doc_id == doc_id_for("docs/policy.md")


def test_sample_manifest_wins_over_front_matter() -> None:
    rows = read_manifest(SAMPLE / "MANIFEST.csv")
    for name, field, expected in [
        ("onboarding.md", "owner", "People Ops"),
        ("data-retention.md", "effective_date", date(2024, 6, 1)),
    ]:
        doc = partition_file(SAMPLE / name, name)
        assert doc.properties[field] != str(expected)  # the front matter says otherwise
        meta = resolve(dict(doc.properties), rows[name], source=name)
        assert getattr(meta, field) == expected


def test_groups_and_supersedes_lists() -> None:
    meta = resolve({"groups": "legal, hr", "supersedes": "old/a.md; ./old/b.md"})
    assert meta.groups == ("legal", "hr")
    assert meta.supersedes == ("old/a.md", "old/b.md")
    assert resolve(overrides={"groups": "hr;hr; ,finance"}).groups == ("hr", "finance")


# --- access level: default deny ----------------------------------------------------------


def test_no_level_anywhere_gets_the_default_never_public() -> None:
    assert resolve().access_level == "employee"
    assert resolve(default_level="confidential").access_level == "confidential"
    # A blank cell or empty override must not fall through to the lowest level.
    blank = ManifestRow(path="docs/policy.md", access_level=None)
    assert resolve({}, blank, {"access_level": ""}).access_level == "employee"


@pytest.mark.parametrize(
    ("layer", "value"),
    [
        ("properties", "secret"),
        ("manifest", "Top-Secret"),
        ("overrides", "publik"),
        ("overrides", " "),
    ],
)
def test_unknown_access_level_is_an_error_in_any_layer(layer: str, value: str) -> None:
    properties = {"access_level": value} if layer == "properties" else {}
    row = ManifestRow(path="x", access_level=value) if layer == "manifest" else None
    overrides = {"access_level": value} if layer == "overrides" else {}
    if not value.strip():
        assert resolve(properties, row, overrides).access_level == "employee"
        return
    with pytest.raises(BadMetadata) as info:
        resolve(properties, row, overrides)
    assert info.value.field == "access_level"
    assert repr(value) in info.value.reason
    assert "public, employee, confidential, restricted" in info.value.reason


def test_level_names_are_case_insensitive() -> None:
    assert resolve({"access_level": "Confidential"}).access_level == "confidential"


def test_unconfigured_default_level_is_refused() -> None:
    with pytest.raises(BadMetadata, match="default level 'staff' is not configured"):
        resolve(default_level="staff")


# --- dates -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["31/31/2024", "2024-13-01", "next tuesday", "2024/01/05"])
def test_unparseable_dates_name_field_and_value(value: str) -> None:
    for layer in ({"effective_date": value}, None):
        row = None if layer else ManifestRow(path="x", effective_date=value)
        with pytest.raises(BadMetadata) as info:
            resolve(layer or {}, row)
        assert info.value.field == "effective_date"
        assert f"effective_date {value!r} is not a date" in info.value.reason


def test_iso_dates_and_datetimes_parse() -> None:
    assert resolve({"effective_date": "2025-03-01"}).effective_date == date(2025, 3, 1)
    assert resolve({"effective_date": "2025-03-01T09:30:00"}).effective_date == date(2025, 3, 1)


# --- successors and status ---------------------------------------------------------------


def test_a_document_cannot_supersede_itself() -> None:
    with pytest.raises(BadMetadata, match="superseded_by names the document itself"):
        resolve(overrides={"superseded_by": "./docs/policy.md"})
    with pytest.raises(BadMetadata, match="supersedes names the document itself"):
        resolve({"supersedes": "docs/policy.md"})


def test_check_successors_uses_batch_and_index() -> None:
    old = resolve({"superseded_by": "new.md"}, source="old.md")
    new = resolve({"supersedes": "older.md"}, source="new.md")
    assert check_successors([old, new], known_sources={"older.md"}) == []
    problems = check_successors([old], known_sources=set())
    assert [(p.source, p.field) for p in problems] == [("old.md", "superseded_by")]
    problems = check_successors([new], known_sources=set())
    assert [(p.source, p.field) for p in problems] == [("new.md", "supersedes")]


@pytest.mark.parametrize(
    ("effective", "superseded_by", "by_other", "expected"),
    [
        (None, None, False, "current"),
        (date(2026, 5, 31), None, False, "current"),
        (TODAY, None, False, "current"),
        (date(2026, 6, 2), None, False, "pending"),
        (date(2020, 1, 1), "new.md", False, "superseded"),
        (date(2020, 1, 1), None, True, "superseded"),
        (date(2027, 1, 1), "new.md", False, "superseded"),  # superseded beats pending
    ],
)
def test_derive_status(
    effective: date | None, superseded_by: str | None, by_other: bool, expected: str
) -> None:
    assert derive_status(effective, superseded_by, by_other, TODAY) == expected


def test_resolved_status() -> None:
    assert resolve({"effective_date": "2027-06-01"}).status == "pending"
    assert resolve({"superseded_by": "new.md"}).status == "superseded"
    assert resolve().status == "current"


# --- stamping chunks ---------------------------------------------------------------------


def test_with_metadata_stamps_new_chunks_and_leaves_inputs_alone() -> None:
    chunk = Chunk(
        chunk_id="p.md#0",
        doc_id="old",
        source="p.md",
        heading_path=("P",),
        kind="text",
        text="t",
        embed_text="P\nt",
        sentences=("t",),
        content_hash="h",
    )
    meta = DocumentMeta(
        source="p.md",
        doc_id="d",
        title="P",
        effective_date=date(2025, 1, 1),
        superseded_by="q.md",
        access_level="confidential",
        groups=("legal",),
        owner="Legal",
        doc_type="policy",
        status="superseded",
    )
    (stamped,) = with_metadata([chunk], meta, index_version=7)
    assert chunk.access_level == "employee" and chunk.index_version == 0  # untouched
    assert (stamped.doc_id, stamped.access_level, stamped.groups, stamped.status) == (
        "d",
        "confidential",
        ("legal",),
        "superseded",
    )
    assert (stamped.effective_date, stamped.superseded_by, stamped.owner) == (
        date(2025, 1, 1),
        "q.md",
        "Legal",
    )
    assert (stamped.doc_type, stamped.title, stamped.index_version) == ("policy", "P", 7)
    assert (stamped.text, stamped.content_hash, stamped.chunk_id) == ("t", "h", "p.md#0")
