"""The registry's write: ``ContentChanged`` is a named value, not an exception, and any
exception from below it (a bug, an index fault) is a fault, never a silent rewrite."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import InterfaceError, OperationalError

from docent.contracts import Chunk, DocumentMeta, Embedder
from docent.wiring import Services
from ingest.batching import VectorMemo, distinct_texts
from ingest.chunking import chunk_by_heading
from ingest.disk import DiskRoom
from ingest.elements import Element
from ingest.faults import DB_DOWN
from ingest.jobs import JOB_DONE
from ingest.metadata import doc_id_for, resolve_metadata
from ingest.registry import ContentChanged, Embedded, Registry, WriteResult
from tests.conftest import PG_ADMIN_URL
from tests.ingest.pipeline_support import make_services, snapshot, write_doc

pytestmark = pytest.mark.integration


def embed_chunks(embedder: Embedder, chunks: Sequence[Chunk]) -> Embedded:
    """A document's vectors, embedded the way ingest does (each distinct text once)."""
    memo = VectorMemo(embedder)
    memo.embed(distinct_texts(chunks))
    return memo.embedded(chunks)


def document(text: str, level: str = "employee") -> tuple[DocumentMeta, list[Chunk]]:
    source = "leave.md"
    meta = resolve_metadata(
        source,
        doc_id_for(source),
        {"access_level": level},
        None,
        {},
        levels=("public", "employee", "confidential", "restricted"),
        default_level="employee",
        today=dt.date(2026, 1, 1),
    )
    elements = (Element("title", "Leave", 0), Element("text", text))
    chunks = chunk_by_heading(elements, source=source, doc_id=meta.doc_id, budget_tokens=256)
    return meta, chunks


def test_content_that_changed_under_a_metadata_write_is_a_value_and_nothing_is_written(
    services: Services,
) -> None:
    registry = services.ingestor.registry
    meta, chunks = document("Staff get 20 days of annual leave.")
    first = registry.write(meta, chunks, embed_chunks(services.embedder, chunks))
    assert isinstance(first, WriteResult) and first.change == "content"
    before = [c.text for c in services.index.chunks_of("leave.md")]

    meta2, chunks2 = document("Staff get 25 days of annual leave.", level="public")
    result = registry.write(meta2, chunks2, None)  # the caller thought only metadata changed
    assert result == ContentChanged("leave.md")
    assert [c.text for c in services.index.chunks_of("leave.md")] == before
    row = registry.get("leave.md")
    assert row is not None and row.access_level == "employee"
    assert row.version == 1

    again = registry.write(meta2, chunks2, embed_chunks(services.embedder, chunks2))
    assert isinstance(again, WriteResult) and again.change == "content"


class _KeyErrorIndex:
    """An index whose writes fail with a bare ``KeyError`` (a bug in an adapter)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def chunks_of(self, source: str) -> list[Chunk]:
        return list(self._real.chunks_of(source))

    def upsert(self, *args: Any) -> None:
        raise KeyError("chunk")

    def set_payload(self, *args: Any) -> None:
        raise KeyError("doc_id")


def test_a_key_error_below_the_write_is_a_fault_not_a_content_change(
    services: Services,
) -> None:
    """``except LookupError`` used to read any KeyError here as "content changed" and embed
    and write again; now it propagates and the write changes nothing."""
    meta, chunks = document("Staff get 20 days of annual leave.")
    services.ingestor.registry.write(meta, chunks, embed_chunks(services.embedder, chunks))
    room = DiskRoom(services.settings.data_dir, services.settings.min_free_disk_mb)
    broken = Registry(services.sessions, lambda: _KeyErrorIndex(services.index), room)  # type: ignore[arg-type, return-value]
    relabelled, _ = document("Staff get 20 days of annual leave.", level="public")
    with pytest.raises(KeyError):  # a metadata-only write
        broken.write(relabelled, chunks, None)
    changed, new_chunks = document("Staff get 30 days of annual leave.")
    with pytest.raises(KeyError):  # a content write
        broken.write(changed, new_chunks, embed_chunks(services.embedder, new_chunks))
    row = services.ingestor.registry.get("leave.md")
    assert row is not None and (row.access_level, row.version) == ("employee", 1)
    texts = [c.text for c in services.index.chunks_of("leave.md")]
    assert texts and all("20 days" in t for t in texts if "days" in t)


def _consistent(services: Services) -> dict[str, int]:
    """Every document the registry names has exactly its recorded chunks in the index, and the
    index holds no chunk of a document the registry does not name (nothing half-written)."""
    rows = {d.source: d for d in services.ingestor.registry.live()}
    points = snapshot(services).values()
    indexed: dict[str, set[str]] = {}
    for payload in points:
        indexed.setdefault(payload["source"], set()).add(payload["chunk_id"])
    assert set(indexed) == set(rows), set(indexed) ^ set(rows)
    for source, row in rows.items():
        assert indexed[source] == set(row.chunk_ids), source
    assert len(list(points)) == sum(len(v) for v in indexed.values())
    return {s: len(v) for s, v in indexed.items()}


def test_postgresql_connections_dropped_mid_job(
    settings: Any, pg_url: str, bundled_embedder: Any, tmp_path: Path
) -> None:
    """An administrator terminates every connection of the job's database again and again
    while it runs: files fail with a fixed reason (or the run stops), no document is ever
    half-written, and running the job again completes it."""
    corpus = tmp_path / "c"
    for n in range(4):
        write_doc(corpus / f"rules-{n}.md", f"Rules {n}", 25, seed=n)
    services = make_services(settings, pg_url, bundled_embedder)
    database = pg_url.rsplit("/", 1)[1]
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    stop = threading.Event()
    killed: list[int] = []

    def terminate() -> None:
        while not stop.wait(0.4):
            with admin.connect() as conn:
                pids = conn.execute(
                    text(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                        "WHERE datname = :db AND pid <> pg_backend_pid()"
                    ),
                    {"db": database},
                ).all()
            killed.extend(1 for (ok,) in pids if ok)

    try:
        ingestor = services.ingestor
        job_id = ingestor.submit([corpus])
        killer = threading.Thread(target=terminate)
        killer.start()
        try:
            ingestor.run(job_id)
        except (OperationalError, InterfaceError):
            pass  # the run itself may be cut off; the job's rows say what is left to do
        finally:
            stop.set()
            killer.join()
        assert killed, "no connection was terminated"
        status = ingestor.job_status(job_id)
        for f in status["files"]:
            assert f["state"] in ("indexed", "failed", "running", "pending"), f
            if f["state"] == "failed":
                assert f["error"] == DB_DOWN, f
        _consistent(services)

        # The database is back: recover as an operator does. A run the outage cut off is
        # resumed first (it does the files left pending or running and ends the job failed if
        # any file failed), then a failed job is retried. Choosing one or the other by the
        # state seen here raced: a run cut off after a file had already failed is "running",
        # and resuming it never reruns the failed file, so the job ended failed.
        if status["state"] not in JOB_DONE:
            ingestor.run(job_id)
        if ingestor.job_status(job_id)["state"] == "failed":
            ingestor.retry(job_id)
        status = ingestor.job_status(job_id)
        assert status["state"] == "succeeded", status["files"]
        counts = _consistent(services)
        assert set(counts) == {f"rules-{n}.md" for n in range(4)}
    finally:
        stop.set()
        admin.dispose()
        services.close()
