"""How the shared contracts read as JSON: one serialiser per contract, used by the CLI's
``--json`` and by the API alike (DESIGN "Interfaces"; tests/docent/test_views.py holds them
together). A chunk is named everywhere by ``id``, ``source``, ``heading_path`` and
``status``; its date is ``effective`` (ISO, or null).

The document's serialiser sits with its row (``docent.db.models.document_summary``), the
job's with its tables (``ingest.jobs.job_json``), the ask result's with the asker
(``generate.ask.ask_json``)."""

from __future__ import annotations

from datetime import date
from typing import Any

from docent.contracts import Chunk, Hit


def iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def passage_ref(chunk: Chunk) -> dict[str, Any]:
    """What names a passage wherever one is listed (an ask's ``retrieved`` and ``closest``,
    a trace's hits, a document's chunks)."""
    return {
        "id": chunk.chunk_id,
        "source": chunk.source,
        "heading_path": list(chunk.heading_path),
        "status": chunk.status,
        "effective": iso(chunk.effective_date),
    }


def chunk_json(chunk: Chunk) -> dict[str, Any]:
    """One chunk: a document's chunks (``GET /api/documents/{id}``, ``docent docs show
    --json``); the passage view (``GET /api/passages/{id}``) adds to it."""
    return {
        **passage_ref(chunk),
        "kind": chunk.kind,
        "access_level": chunk.access_level,
        "text": chunk.text,
    }


def hit_json(hit: Hit) -> dict[str, Any]:
    """One search hit: an ask's ``retrieved`` (DESIGN "Interfaces") and ``docent search
    --json``'s ``hits``."""
    chunk = hit.chunk
    return {
        "id": chunk.chunk_id,
        "source": chunk.source,
        "heading_path": list(chunk.heading_path),
        "rank": hit.rank,
        "score": hit.score,
        "status": chunk.status,
        "text": chunk.text,
    }
