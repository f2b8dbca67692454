"""The pipeline end to end over the bundled model, Qdrant local mode, and SQLite and
PostgreSQL: what gets written, re-ingest idempotency, exact replacement of a changed file,
metadata re-marks in place, retirement, and jobs (cancel, retry, reindex)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docent.errors import Conflict, NotFound
from docent.wiring import Services
from ingest.pipeline import FileResult
from tests.ingest.pipeline_support import (
    BOTH_DBS,
    copy_sample,
    ingest,
    snapshot,
    vectors,
    version,
    write_doc,
)

pytestmark = pytest.mark.integration


def _by_source(snap: dict[str, dict[str, Any]], source: str) -> dict[str, dict[str, Any]]:
    return {pid: p for pid, p in snap.items() if p["source"] == source}


def _run(services: Services, job_id: str) -> list[FileResult]:
    results: list[FileResult] = []
    services.ingestor.run(job_id, on_file=results.append)
    return results


@BOTH_DBS
def test_ingest_writes_chunks_vectors_registry_and_version(
    services: Services, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["pricing.md", "refunds.md", "holidays.html"])
    status = ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")

    assert status["state"] == "succeeded" and status["errors"] == []
    assert status["documents"] == 3 and status["index_version"] == 3 == version(services)
    snap = snapshot(services)
    assert len(snap) == status["chunks"] == services.index.count()
    docs = {d["source"]: d for d in services.ingestor.documents()}
    assert set(docs) == {"pricing.md", "refunds.md", "holidays.html"}
    for source, doc in docs.items():
        points = _by_source(snap, source)
        assert doc["chunk_count"] == len(points) > 0
        assert len({p["index_version"] for p in points.values()}) == 1  # one write per doc
    assert docs["pricing.md"]["access_level"] == "public"
    assert docs["pricing.md"]["owner"] == "Revenue"
    assert {p["access_level"] for p in _by_source(snap, "holidays.html").values()} == {"employee"}
    # Each write carries the version that made it; the three writes made versions 1..3.
    assert sorted({p["index_version"] for p in snap.values()}) == [1, 2, 3]
    # Every chunk has one sentence vector per unit (sentence, table row, list item).
    chunks = services.index.chunks_of("pricing.md")
    stored = services.index.get([c.chunk_id for c in chunks], vectors=("sentences",))
    for chunk in chunks:
        assert stored[chunk.chunk_id].vectors["sentences"].shape == (
            max(1, len(chunk.sentences)),
            384,
        )
    assert any(c.kind == "table" for c in chunks)


@BOTH_DBS
def test_reingest_of_unchanged_files_changes_nothing(services: Services, tmp_path: Path) -> None:
    corpus = copy_sample(tmp_path / "c", ["pricing.md", "refunds.md"])
    ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")
    before, v_before = snapshot(services), version(services)

    job_id = services.ingestor.submit([corpus], manifest=corpus / "MANIFEST.csv")
    results = _run(services, job_id)
    status = services.ingestor.job_status(job_id)

    assert [r.change for r in results] == ["unchanged", "unchanged"]
    assert status["state"] == "succeeded"
    assert (status["documents"], status["skipped"]) == (2, 2)
    assert version(services) == v_before
    assert snapshot(services) == before  # same point ids, same payloads


def test_a_changed_file_replaces_exactly_its_chunks(services: Services, tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    write_doc(corpus / "a.md", "Alpha policy", 5, seed=1)
    write_doc(corpus / "b.md", "Beta policy", 3, seed=2)
    ingest(services, [corpus])
    before, v_before = snapshot(services), version(services)
    old_a = _by_source(before, "a.md")

    write_doc(corpus / "a.md", "Alpha policy", 2, seed=9)  # fewer sections, new text
    job_id = services.ingestor.submit([corpus])
    results = {r.source: r for r in _run(services, job_id)}
    after = snapshot(services)

    assert results["a.md"].change == "content" and results["b.md"].change == "unchanged"
    assert version(services) == v_before + 1
    new_a = _by_source(after, "a.md")
    expected_ids = {c.chunk_id for c in services.index.chunks_of("a.md")}
    assert {p["chunk_id"] for p in new_a.values()} == expected_ids
    assert len(new_a) < len(old_a)  # the chunks of the removed sections are gone
    assert all("Rule 9." in p["text"] or "Alpha" in p["text"] for p in new_a.values())
    assert {p["index_version"] for p in new_a.values()} == {v_before + 1}
    assert _by_source(after, "b.md") == _by_source(before, "b.md")  # untouched
    row = services.ingestor.registry.get("a.md")
    assert row is not None and row.chunk_ids == sorted(expected_ids, key=_chunk_no)
    assert row.version == 2


def _chunk_no(chunk_id: str) -> int:
    return int(chunk_id.rsplit("#", 1)[1])


@BOTH_DBS
def test_a_metadata_only_change_remarks_the_chunks_in_place(
    services: Services, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["refunds.md", "support.html"])
    manifest = corpus / "MANIFEST.csv"
    ingest(services, [corpus], manifest=manifest)
    before, vecs_before, v_before = (
        snapshot(services),
        vectors(services, "refunds.md"),
        version(services),
    )

    manifest.write_text(manifest.read_text().replace(",public,Finance,", ",employee,Billing,"))
    job_id = services.ingestor.submit([corpus], manifest=manifest)
    results = {r.source: r for r in _run(services, job_id)}
    after = snapshot(services)

    assert results["refunds.md"].change == "metadata"
    assert results["support.html"].change == "unchanged"
    assert version(services) == v_before + 1
    refunds = _by_source(after, "refunds.md")
    assert set(refunds) == set(_by_source(before, "refunds.md"))  # same points
    assert {(p["access_level"], p["owner"], p["index_version"]) for p in refunds.values()} == {
        ("employee", "Billing", v_before + 1)
    }
    assert vectors(services, "refunds.md") == vecs_before  # not re-embedded
    assert _by_source(after, "support.html") == _by_source(before, "support.html")
    # A CLI/API override beats the manifest, and is again a re-mark in place.
    job_id = services.ingestor.submit(
        [corpus / "refunds.md"], manifest=manifest, overrides={"access_level": "confidential"}
    )
    assert [r.change for r in _run(services, job_id)] == ["metadata"]
    assert {p["access_level"] for p in _by_source(snapshot(services), "refunds.md").values()} == {
        "confidential"
    }


def test_retire_removes_a_documents_chunks_and_reingest_restores_it(
    services: Services, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    write_doc(corpus / "a.md", "Alpha", 2, seed=1)
    write_doc(corpus / "b.md", "Beta", 2, seed=2)
    ingest(services, [corpus])
    before, v_before = snapshot(services), version(services)

    assert services.ingestor.retire("a.md") == v_before + 1
    after = snapshot(services)
    assert _by_source(after, "a.md") == {}
    assert _by_source(after, "b.md") == _by_source(before, "b.md")
    assert [d["source"] for d in services.ingestor.documents()] == ["b.md"]
    with pytest.raises(NotFound):
        services.ingestor.retire("a.md")
    with pytest.raises(NotFound):
        services.ingestor.document("a.md")

    status = ingest(services, [corpus])
    assert status["skipped"] == 1  # b.md
    assert set(_by_source(snapshot(services), "a.md")) == set(_by_source(before, "a.md"))


def test_jobs_cancel_retry_and_an_unsupported_file_among_good_ones(
    services: Services, tmp_path: Path
) -> None:
    corpus = tmp_path / "c"
    good = write_doc(corpus / "good.md", "Good", 2)
    odd = corpus / "notes.xyz"
    odd.write_text("not a document type we read")
    ingestor = services.ingestor

    cancelled = ingestor.submit([good])
    ingestor.cancel(cancelled)
    ingestor.run(cancelled)
    assert ingestor.job_status(cancelled)["state"] == "cancelled"
    assert services.index.count() == 0
    with pytest.raises(Conflict):
        ingestor.cancel(cancelled)

    job_id = ingestor.submit([good, odd])
    moved = good.rename(corpus / "away.md")  # the file vanishes between submit and run
    ingestor.run(job_id)
    status = ingestor.job_status(job_id)
    assert status["state"] == "failed"
    assert {e["source"]: e["reason"] for e in status["errors"]} == {
        "good.md": "no such file",
        "notes.xyz": status["errors"][1]["reason"],
    }
    assert "unsupported file type .xyz" in status["errors"][1]["reason"]

    moved.rename(good)
    odd.unlink()
    odd.write_text("still not a type we read")
    ingestor.retry(job_id)
    status = ingestor.job_status(job_id)
    files = {f["source"]: f for f in status["files"]}
    assert files["good.md"]["state"] == "indexed" and files["good.md"]["attempts"] == 2
    # A file's own fault stays failed: a retry does not take it (the moved file, back, does).
    assert files["notes.xyz"]["state"] == "failed" and files["notes.xyz"]["attempts"] == 0
    assert status["state"] == "failed" and status["documents"] == 1
    assert services.index.count() == files["good.md"]["chunks"] > 0


def test_reindex_all_rewrites_every_document_keeping_its_metadata(
    services: Services, tmp_path: Path
) -> None:
    corpus = copy_sample(tmp_path / "c", ["pricing.md", "pricing-2023.md"])
    ingest(services, [corpus], manifest=corpus / "MANIFEST.csv")
    before, v_before = snapshot(services), version(services)

    job_id = services.ingestor.reindex_all(created_by="ops")
    results = _run(services, job_id)
    after = snapshot(services)

    assert {r.change for r in results} == {"content"}
    assert version(services) == v_before + 2
    assert set(after) == set(before)
    strip = {"index_version"}
    assert {k: {f: v for f, v in p.items() if f not in strip} for k, p in after.items()} == {
        k: {f: v for f, v in p.items() if f not in strip} for k, p in before.items()
    }
    assert services.ingestor.job_status(job_id)["kind"] == "reindex"
