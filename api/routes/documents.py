"""Documents for the docs team: upload (one or many files with metadata), list, show a
document's chunks, retire. Editors see only the documents their clearance reaches."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Request, UploadFile
from sqlalchemy import select
from sqlalchemy.orm import Session

from api.deps import DbDep, EditorDep, ServicesDep, SettingsDep
from api.jobs import start
from api.ports import IngestorPort, ingestor_of
from api.uploads import (
    Accepted,
    Rejected,
    check_metadata,
    describe_rejections,
    new_upload_dir,
    refuse_where,
    save_upload,
    with_audience,
)
from api.users import CurrentUser
from api.visibility import can_read, can_read_chunk, documents_by_source, readable_sources
from docent.db.models import Document, document_summary
from docent.db.session import session_scope
from docent.errors import InvalidInput, NotFound
from docent.views import chunk_json
from docent.wiring import Services
from ingest.grant import NAME_TAKEN, OwnAudience, replacement_refusal, unseen_version_refusal
from ingest.metadata import version_names

router = APIRouter(tags=["documents"])


def document_view(
    db: Session, user: CurrentUser, doc: Document, levels: tuple[str, ...]
) -> dict[str, Any]:
    """A document as the API (and ``docent docs``) shows it, for this viewer: the documents it
    names (its successor, its predecessors) are shown only if the viewer may read them: a
    successor above them leaves the status ``superseded`` with no name."""
    named = [doc.superseded_by or "", *(doc.supersedes or ())]
    return document_summary(doc, set(readable_sources(db, user, [n for n in named if n], levels)))


def visible_documents(
    db: Session, user: CurrentUser, levels: tuple[str, ...], *, retired: bool
) -> list[Document]:
    query = select(Document).order_by(Document.source)
    if not retired:
        query = query.where(Document.retired.is_(False))
    return [
        d
        for d in db.execute(query).scalars()
        if can_read(user, d.access_level, d.groups or (), levels)
    ]


def visible_document(
    db: Session, user: CurrentUser, doc_id: str, levels: tuple[str, ...]
) -> Document:
    doc = db.execute(select(Document).where(Document.doc_id == doc_id)).scalar_one_or_none()
    if doc is None or not can_read(user, doc.access_level, doc.groups or (), levels):
        raise NotFound(f"no document {doc_id!r}")
    return doc


def refuse_hidden_names(
    services: Services, user: CurrentUser, results: list[Accepted | Rejected]
) -> list[Accepted | Rejected]:
    """An upload's source is its file name, and ingesting a known source replaces that
    document: refuse a name that belongs to a document the uploader may not read (red-team
    finding: an employee editor could overwrite, and lower the level of, a confidential one)."""
    names = [r.filename for r in results if isinstance(r, Accepted)]
    levels = services.settings.access_levels
    with session_scope(services.sessions) as db:
        docs = documents_by_source(db, names)
        hidden = {
            source
            for source, doc in docs.items()
            if not can_read(user, doc.access_level, doc.groups or (), levels)
        }
    return refuse_where(results, lambda r: NAME_TAKEN if r.filename in hidden else None)


def refuse_wider_replacements(
    services: Services, results: list[Accepted | Rejected], overrides: dict[str, str | None]
) -> list[Accepted | Rejected]:
    """A file replacing a live document keeps at least its audience, now rather than when
    the job runs (``ingest.grant.replacement_refusal``; the job checks again)."""
    names = [r.filename for r in results if isinstance(r, Accepted)]
    with session_scope(services.sessions) as db:
        live = {
            source: OwnAudience(doc.access_level, tuple(doc.groups or ()))
            for source, doc in documents_by_source(db, names).items()
            if not doc.retired
        }
    levels = services.settings.access_levels

    def reason_of(r: Accepted) -> str | None:
        if r.filename not in live:
            return None
        new = OwnAudience(r.access_level, r.groups)
        return replacement_refusal(r.filename, live[r.filename], new, overrides, levels)

    return refuse_where(results, reason_of)


def refuse_unseen_predecessors(
    services: Services, user: CurrentUser, *, supersedes: str | None, superseded_by: str | None
) -> None:
    """``supersedes`` / ``superseded_by`` re-mark another document in place, so an upload may
    only name one the uploader can read. A hidden and a missing name get the same answer,
    in the words a file's own field gets (``ingest.grant.unseen_version_refusal``).
    ``supersedes`` may name several documents, as a file's own field may ("a.md, b.md")."""
    successor = (superseded_by or "").strip()
    wanted = [("supersedes", name) for name in version_names(supersedes)]
    wanted += [("superseded_by", successor)] if successor else []
    if not wanted:
        return
    levels = services.settings.access_levels
    with session_scope(services.sessions) as db:
        docs = documents_by_source(db, [name for _, name in wanted])
        for field, name in wanted:
            doc = docs.get(name)
            if doc is None or not can_read(user, doc.access_level, doc.groups or (), levels):
                raise InvalidInput(f"{field} names no document you may read: {name!r}")


def refuse_unseen_versions(
    services: Services, user: CurrentUser, results: list[Accepted | Rejected]
) -> list[Accepted | Rejected]:
    """A file whose own ``supersedes`` / ``superseded_by`` name a document that is neither in
    this upload nor one the uploader may read is refused now, in the words the job would
    use (``ingest/task_metadata.py`` checks again when it runs)."""
    batch = {r.filename for r in results if isinstance(r, Accepted)}
    wanted = {name for r in results if isinstance(r, Accepted) for _, name in r.versions}
    levels = services.settings.access_levels
    with session_scope(services.sessions) as db:
        docs = documents_by_source(db, wanted - batch)
        readable = {
            source
            for source, doc in docs.items()
            if not doc.retired and can_read(user, doc.access_level, doc.groups or (), levels)
        }
    may_name = batch | readable
    return refuse_where(
        results, lambda r: unseen_version_refusal(r.versions, may_name.__contains__)
    )


@router.get("/api/documents", summary="Documents with version, status and access level")
def documents(
    user: EditorDep, db: DbDep, settings: SettingsDep, retired: bool = False
) -> dict[str, Any]:
    levels = settings.access_levels
    rows = visible_documents(db, user, levels, retired=retired)
    return {"documents": [document_view(db, user, d, levels) for d in rows]}


@router.post("/api/documents", status_code=202, summary="Upload files; they become an ingest job")
def upload(
    request: Request,
    user: EditorDep,
    services: ServicesDep,
    files: Annotated[list[UploadFile], File(description="One or more documents")],
    access_level: Annotated[str | None, Form(max_length=50)] = None,
    effective_date: Annotated[str | None, Form(max_length=20)] = None,
    owner: Annotated[str | None, Form(max_length=200)] = None,
    supersedes: Annotated[str | None, Form(max_length=1000)] = None,
    superseded_by: Annotated[str | None, Form(max_length=1000)] = None,
    groups: Annotated[str | None, Form(max_length=1000)] = None,
    doc_type: Annotated[str | None, Form(max_length=100)] = None,
    title: Annotated[str | None, Form(max_length=1000)] = None,
) -> dict[str, Any]:
    settings = services.settings
    # An empty field is "not given": the document's own metadata decides, then the default.
    meta = check_metadata(
        settings,
        user.clearance,
        access_level=access_level,
        effective_date=effective_date,
        groups=groups,
    )
    refuse_unseen_predecessors(services, user, supersedes=supersedes, superseded_by=superseded_by)
    ingestor = ingestor_of(services)
    folder = new_upload_dir(settings)
    taken: set[str] = set()
    results: list[Accepted | Rejected] = [
        save_upload(f.file, f.filename, folder, settings, taken) for f in files
    ]
    results = refuse_hidden_names(services, user, results)
    overrides = upload_overrides(
        meta,
        owner=owner,
        supersedes=supersedes,
        superseded_by=superseded_by,
        doc_type=doc_type,
        title=title,
    )
    results = with_audience(results, settings, overrides, user.principal)
    results = refuse_wider_replacements(services, results, overrides)
    results = refuse_unseen_versions(services, user, results)
    accepted = [r for r in results if isinstance(r, Accepted)]
    rejected = [r for r in results if isinstance(r, Rejected)]
    rejected_view = [{"filename": r.filename, "error": r.error} for r in rejected]
    if not accepted:
        shutil.rmtree(folder, ignore_errors=True)
        raise InvalidInput(
            f"no file was accepted: {describe_rejections(rejected) or 'no files sent'}",
            detail=rejected_view,
        )
    job_id = submit_upload(ingestor, user, folder, accepted, overrides)
    start(request.app.state.job_runner, ingestor.run, job_id)
    return {
        "job_id": job_id,
        "accepted": [accepted_view(a) for a in accepted],
        "rejected": rejected_view,
    }


def submit_upload(
    ingestor: IngestorPort,
    user: CurrentUser,
    folder: Path,
    accepted: list[Accepted],
    overrides: dict[str, str | None],
) -> str:
    """The accepted files as one ingest job; the upload folder removed if it is refused."""
    try:
        return ingestor.submit(
            [a.path for a in accepted],
            root=folder,
            manifest=None,
            overrides=overrides,
            created_by=user.username,
            uploader=user.principal,
            levels={a.filename: a.access_level for a in accepted if a.access_level},
            groups={a.filename: a.groups for a in accepted if a.groups},
        )
    except Exception:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def upload_overrides(
    meta: dict[str, str | None],
    *,
    owner: str | None,
    supersedes: str | None,
    superseded_by: str | None,
    doc_type: str | None,
    title: str | None,
) -> dict[str, str | None]:
    """The upload's form fields over every file's own metadata: a blank field is left out."""
    overrides: dict[str, str | None] = {
        **meta,
        "owner": (owner or "").strip() or None,
        "superseded_by": (superseded_by or "").strip() or None,
        "doc_type": (doc_type or "").strip() or None,
        "title": (title or "").strip() or None,
    }
    if supersedes and supersedes.strip():
        overrides["supersedes"] = supersedes.strip()
    return {k: v for k, v in overrides.items() if v is not None}


def accepted_view(accepted: Accepted) -> dict[str, Any]:
    """One accepted file as the upload's answer lists it."""
    return {
        "filename": accepted.filename,
        "source": accepted.filename,
        "bytes": accepted.bytes,
        "access_level": accepted.access_level,
        "groups": list(accepted.groups),
        "level_from": accepted.level_from,
    }


@router.get("/api/documents/{doc_id}", summary="One document and its chunks")
def document(doc_id: str, user: EditorDep, db: DbDep, services: ServicesDep) -> dict[str, Any]:
    levels = services.settings.access_levels
    doc = visible_document(db, user, doc_id, levels)
    chunks = [] if doc.retired else services.index.chunks_of(doc.source)
    return {
        "document": document_view(db, user, doc, levels),
        "chunks": [chunk_json(c) for c in chunks if can_read_chunk(user, c, levels)],
    }


@router.post(
    "/api/documents/{doc_id}/retire", summary="Retire a document: its chunks leave the index"
)
def retire(doc_id: str, user: EditorDep, db: DbDep, services: ServicesDep) -> dict[str, Any]:
    doc = visible_document(db, user, doc_id, services.settings.access_levels)
    if doc.retired:
        raise NotFound(f"no indexed document {doc_id!r}")
    source = doc.source
    db.commit()  # the registry writes in its own transaction
    version = ingestor_of(services).retire(source)
    return {"doc_id": doc_id, "source": source, "retired": True, "index_version": version}
