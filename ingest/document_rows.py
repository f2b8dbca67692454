"""A document's ``documents`` row apart from the transactions that change it: the hashes
that tell what changed, reading the row back as ``DocumentMeta``, and writing it (its plain
values: ``docent.db.models.document_summary``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, Literal

from sqlalchemy.orm import Session

from docent.contracts import Chunk, DocumentMeta
from docent.db.models import Document, utcnow

Change = Literal["unchanged", "metadata", "content"]


def meta_hash(meta: DocumentMeta) -> str:
    """A stable hash of everything we know about a document besides its chunks."""
    fields = asdict(meta)
    fields["effective_date"] = meta.effective_date.isoformat() if meta.effective_date else None
    fields["supersedes"] = sorted(meta.supersedes)
    fields["groups"] = sorted(meta.groups)
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def chunks_hash(chunks: Sequence[Chunk]) -> str:
    """A stable hash of what gets embedded and shown: a document whose chunks hash the same
    needs no new vectors, whatever its bytes or settings were."""
    digest = hashlib.sha256()
    for chunk in chunks:
        record = [
            chunk.chunk_id,
            list(chunk.heading_path),
            chunk.kind,
            chunk.text,
            chunk.embed_text,
            list(chunk.sentences),
        ]
        digest.update(json.dumps(record).encode())
        digest.update(b"\x00")
    return digest.hexdigest()


def meta_from_row(row: Document) -> DocumentMeta:
    return DocumentMeta(
        source=row.source,
        doc_id=row.doc_id,
        title=row.title,
        effective_date=row.effective_date,
        superseded_by=row.superseded_by,
        supersedes=tuple(row.supersedes or ()),
        access_level=row.access_level,
        groups=tuple(row.groups or ()),
        owner=row.owner,
        doc_type=row.doc_type,
        status=row.status,  # type: ignore[arg-type]
    )


def classify_change(
    row: Document | None, meta: DocumentMeta, chunks: Sequence[Chunk], force: bool
) -> Change:
    if row is None or row.retired or force or row.content_hash != chunks_hash(chunks):
        return "content"
    if row.meta_hash != meta_hash(meta):
        return "metadata"
    return "unchanged"


def record(
    session: Session,
    row: Document | None,
    meta: DocumentMeta,
    chunks: Sequence[Chunk],
    content_hash: str,
) -> None:
    fields: dict[str, Any] = {
        "doc_id": meta.doc_id,
        "title": meta.title,
        "content_hash": content_hash,
        "meta_hash": meta_hash(meta),
        "effective_date": meta.effective_date,
        "superseded_by": meta.superseded_by,
        "supersedes": list(meta.supersedes),
        "status": meta.status,
        "access_level": meta.access_level,
        "groups": list(meta.groups),
        "owner": meta.owner,
        "doc_type": meta.doc_type,
        "chunk_count": len(chunks),
        "chunk_ids": [c.chunk_id for c in chunks],
        "retired": False,
        "updated_at": utcnow(),
    }
    if row is None:
        session.add(Document(source=meta.source, version=1, **fields))
    else:
        for key, value in fields.items():
            setattr(row, key, value)
        row.version += 1
    session.flush()
