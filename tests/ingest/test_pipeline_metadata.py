"""Supersession re-marking (both arrival orders), bad metadata, and bad files: each a clear
per-file error that leaves the index exactly as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from docent.errors import InvalidInput
from docent.wiring import Services
from tests.ingest.pipeline_support import (
    BAD,
    BOTH_DBS,
    copy_sample,
    ingest,
    snapshot,
    version,
)

pytestmark = pytest.mark.integration

OLD = """---
title: Leave policy 2023
effective_date: 2023-01-01
---

# Leave policy 2023

## Annual leave

Staff get 20 days of annual leave each year.
"""

NEW = """---
title: Leave policy
effective_date: 2025-01-01
supersedes: old.md
---

# Leave policy

## Annual leave

Staff get 25 days of annual leave each year.
"""


def _statuses(services: Services, source: str) -> set[tuple[str, str | None]]:
    return {(c.status, c.superseded_by) for c in services.index.chunks_of(source)}


def _leave_corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "old.md").write_text(OLD)
    (corpus / "new.md").write_text(NEW)
    return corpus


@BOTH_DBS
def test_a_successor_arriving_later_remarks_its_predecessor_in_place(
    services: Services, tmp_path: Path
) -> None:
    corpus = _leave_corpus(tmp_path)
    ingest(services, [corpus / "old.md"], root=corpus)
    assert _statuses(services, "old.md") == {("current", None)}
    old_points = {pid for pid, p in snapshot(services).items() if p["source"] == "old.md"}
    v_before = version(services)

    status = ingest(services, [corpus / "new.md"], root=corpus)

    assert status["state"] == "succeeded"
    assert _statuses(services, "old.md") == {("superseded", "new.md")}
    assert _statuses(services, "new.md") == {("current", None)}
    after = snapshot(services)
    assert {pid for pid, p in after.items() if p["source"] == "old.md"} == old_points
    # The new document and the re-mark are one change, one version.
    assert version(services) == v_before + 1
    assert {p["index_version"] for p in after.values() if p["source"] == "old.md"} == {v_before + 1}
    old_row = services.ingestor.registry.get("old.md")
    assert old_row is not None and (old_row.status, old_row.superseded_by) == (
        "superseded",
        "new.md",
    )
    # Re-ingesting the predecessor, unchanged, keeps it superseded and changes nothing.
    again = ingest(services, [corpus / "old.md"], root=corpus)
    assert again["skipped"] == 1 and version(services) == v_before + 1
    assert _statuses(services, "old.md") == {("superseded", "new.md")}


def test_a_predecessor_arriving_after_its_successor_is_written_superseded(
    services: Services, tmp_path: Path
) -> None:
    corpus = _leave_corpus(tmp_path)
    ingest(services, [corpus / "new.md"], root=corpus)
    ingest(services, [corpus / "old.md"], root=corpus)
    assert _statuses(services, "old.md") == {("superseded", "new.md")}
    assert _statuses(services, "new.md") == {("current", None)}


def test_manifest_superseded_by_in_one_batch_and_as_a_later_remark(
    services: Services, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["pricing.md", "pricing-2023.md"])
    manifest = corpus / "MANIFEST.csv"
    # First without the manifest's superseded_by: both current (a blank cell is "not set
    # here", so the folder's own manifest is written without it, then as it was).
    written = manifest.read_text()
    manifest.write_text(written.replace(",pricing.md,", ",,"))
    ingest(services, [corpus], root=corpus, manifest=manifest)
    manifest.write_text(written)
    assert _statuses(services, "pricing-2023.md") == {("current", None)}
    points = {pid for pid, p in snapshot(services).items() if p["source"] == "pricing-2023.md"}

    ingest(services, [corpus], manifest=manifest)
    assert _statuses(services, "pricing-2023.md") == {("superseded", "pricing.md")}
    assert _statuses(services, "pricing.md") == {("current", None)}
    assert {pid for pid, p in snapshot(services).items() if p["source"] == "pricing-2023.md"} == (
        points
    )


def test_bad_manifest_rows_fail_their_files_and_the_good_row_goes_in(
    services: Services, tmp_path: Path
) -> None:
    status = ingest(services, [BAD / "meta"], manifest=BAD / "bad-manifest.csv")

    errors = {e["source"]: e["reason"] for e in status["errors"]}
    assert set(errors) == {"meta/unknown-level.md", "meta/bad-date.md", "meta/missing-successor.md"}
    assert "top-secret" in errors["meta/unknown-level.md"]
    assert "31/31/2024" in errors["meta/bad-date.md"]
    assert "meta/does-not-exist.md" in errors["meta/missing-successor.md"]
    assert status["state"] == "failed" and status["documents"] == 1
    assert {p["source"] for p in snapshot(services).values()} == {"meta/fine.md"}
    assert [d["source"] for d in services.ingestor.documents()] == ["meta/fine.md"]


BAD_FILES = {
    # file: words its reason must contain (all of)
    "empty.md": ("empty",),
    "whitespace.md": ("only whitespace",),
    "corrupt.pdf": ("not a readable pdf",),
    "corrupt.docx": ("not a word .docx file",),
    "encrypted.pdf": ("encrypted", "password"),
    "blank.pdf": ("no text",),
    "image.png": ("unsupported file type .png",),
    "notes.xyz": ("unsupported file type .xyz",),
}


@BOTH_DBS
def test_bad_files_each_fail_clearly_and_leave_the_index_unchanged(
    services: Services, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["refunds.md", "support.html"])
    ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")
    before, v_before, count = snapshot(services), version(services), services.index.count()
    # A bad file that takes the name of an indexed document must not touch it either.
    (corpus / "refunds.md").write_bytes((BAD / "empty.md").read_bytes())

    status = ingest(services, [BAD / name for name in BAD_FILES] + [corpus / "refunds.md"])

    errors = {e["source"]: e["reason"] for e in status["errors"]}
    assert set(errors) == set(BAD_FILES) | {"refunds.md"}
    for name, words in BAD_FILES.items():
        assert all(w in errors[name].lower() for w in words), (name, errors[name])
    assert status["documents"] == 0 and status["state"] == "failed"
    assert services.index.count() == count
    assert snapshot(services) == before
    assert version(services) == v_before


def test_sample_documents_get_their_derived_status_and_access(
    services: Services, tmp_path: Path
) -> None:
    names = ["pricing.md", "pricing-2023.md", "travel-2027.md", "litigation-hold.md"]
    names.append("salary-bands.docx")
    corpus = copy_sample(tmp_path / "c", names)
    status = ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")

    assert status["errors"] == [] and status["state"] == "succeeded"
    docs = {d["source"]: d for d in services.ingestor.documents()}
    assert set(docs) == set(names)
    assert (docs["pricing-2023.md"]["status"], docs["pricing-2023.md"]["superseded_by"]) == (
        "superseded",
        "pricing.md",
    )
    assert docs["travel-2027.md"]["status"] == "pending"
    assert docs["pricing.md"]["status"] == "current"
    assert docs["salary-bands.docx"]["access_level"] == "confidential"
    assert docs["litigation-hold.md"]["groups"] == ["legal"]
    for chunk in services.index.chunks_of("litigation-hold.md"):
        assert (chunk.access_level, chunk.groups) == ("confidential", ("legal",))
    for chunk in services.index.chunks_of("travel-2027.md"):
        assert chunk.status == "pending"
    assert services.index.count() == sum(d["chunk_count"] for d in docs.values())


def test_a_folder_with_its_own_manifest_is_read_with_it_without_the_flag(
    services: Services, tmp_path: Path
) -> None:
    """Forgetting --manifest must not index a confidential document at the default level."""
    corpus = copy_sample(tmp_path / "c", ["salary-bands.docx", "pricing.md"])
    status = ingest(services, [corpus])

    assert status["errors"] == [] and status["state"] == "succeeded"
    docs = {d["source"]: d for d in services.ingestor.documents()}
    assert docs["salary-bands.docx"]["access_level"] == "confidential"
    assert {c.access_level for c in services.index.chunks_of("salary-bands.docx")} == {
        "confidential"
    }


def _levels(services: Services) -> dict[str, str]:
    return {d["source"]: d["access_level"] for d in services.ingestor.documents()}


def test_two_folders_in_one_job_each_read_with_their_own_manifest(
    services: Services, tmp_path: Path
) -> None:
    """Naming two folders (no --manifest) must not index either's confidential documents at
    the default level: each file takes its row from the manifest of the folder holding it."""
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx"])
    sales = copy_sample(tmp_path / "sales", ["pricing.md", "severance.pdf"])
    status = ingest(services, [hr, sales])

    assert status["errors"] == [] and status["state"] == "succeeded"
    assert _levels(services) == {
        "salary-bands.docx": "confidential",
        "pricing.md": "public",
        "severance.pdf": "confidential",
    }
    assert {c.access_level for c in services.index.chunks_of("severance.pdf")} == {"confidential"}


def test_one_file_named_alone_is_read_with_its_folders_manifest(
    services: Services, tmp_path: Path
) -> None:
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx"])
    status = ingest(services, [hr / "salary-bands.docx"])

    assert status["errors"] == [] and _levels(services) == {"salary-bands.docx": "confidential"}


def test_a_named_manifest_leaves_the_files_it_does_not_list_to_their_folders_manifest(
    services: Services, tmp_path: Path
) -> None:
    """``--manifest`` naming another folder's manifest: its rows win for the files it lists
    (pricing.md's row there says confidential), and a file it does not list keeps its own
    folder's row (salary-bands.docx stays confidential, not the default employee)."""
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx", "pricing.md"])
    other = tmp_path / "other"
    other.mkdir()
    (other / "MANIFEST.csv").write_text("path,access_level\npricing.md,confidential\n")
    status = ingest(services, [hr], manifest=other / "MANIFEST.csv")

    assert status["errors"] == [] and status["state"] == "succeeded"
    assert _levels(services) == {"salary-bands.docx": "confidential", "pricing.md": "confidential"}


def test_a_named_manifest_row_without_a_level_keeps_the_folders_level(
    services: Services, tmp_path: Path
) -> None:
    """Rows merge field by field: a manifest of owners leaves the folder's level in force
    (a review found a whole-row win lowering salary bands to the default level)."""
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx"])
    owners = tmp_path / "owners"
    owners.mkdir()
    (owners / "MANIFEST.csv").write_text("path,owner,access_level\nsalary-bands.docx,Alice,\n")
    status = ingest(services, [hr], manifest=owners / "MANIFEST.csv")

    assert status["errors"] == []
    [doc] = services.ingestor.documents()
    assert (doc["access_level"], doc["owner"]) == ("confidential", "Alice")


def test_a_manifest_above_the_folder_named_is_not_read(services: Services, tmp_path: Path) -> None:
    """Only the folders from the one named down: a MANIFEST.csv in a shared folder above
    it (anyone may write /tmp) neither sets a level nor fails the job."""
    (tmp_path / "MANIFEST.csv").write_text("path,access_level\nhr/salary-bands.docx,public\n")
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx"])
    status = ingest(services, [hr / "salary-bands.docx"])

    assert status["errors"] == [] and _levels(services) == {"salary-bands.docx": "confidential"}
    (tmp_path / "MANIFEST.csv").write_text("no,path,column\n")
    assert ingest(services, [hr / "salary-bands.docx"])["errors"] == []


def test_a_malformed_folder_manifest_fails_the_submit_and_records_nothing(
    services: Services, tmp_path: Path
) -> None:
    hr = copy_sample(tmp_path / "hr", ["salary-bands.docx"])
    sales = copy_sample(tmp_path / "sales", ["pricing.md"])
    (sales / "MANIFEST.csv").write_text("name,access_level\npricing.md,public\n")
    before = snapshot(services)

    with pytest.raises(InvalidInput, match="no 'path' column"):
        services.ingestor.submit([hr, sales])
    assert snapshot(services) == before and services.ingestor.documents() == []


def test_a_pending_document_becomes_current_on_its_effective_date(
    services: Services, tmp_path: Path
) -> None:
    from datetime import date

    corpus = copy_sample(tmp_path / "c", ["travel-2027.md", "pricing.md"])
    ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")
    before = version(services)

    assert services.ingestor.promote_due(date(2027, 5, 31)) == []
    assert version(services) == before
    assert services.ingestor.promote_due(date(2027, 6, 1)) == ["travel-2027.md"]
    assert version(services) == before + 1
    assert {c.status for c in services.index.chunks_of("travel-2027.md")} == {"current"}
    assert {d["source"]: d["status"] for d in services.ingestor.documents()}[
        "travel-2027.md"
    ] == "current"
    assert services.ingestor.promote_due(date(2027, 6, 2)) == []
