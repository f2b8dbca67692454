"""Server-rendered pages of the web UI. They call the same functions as the JSON API, so
the same role and visibility checks apply; the pages' scripts call ``/api/*``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from api.deps import (
    AnyUserDep,
    AskerDep,
    DbDep,
    EditorDep,
    GapReaderDep,
    OperatorDep,
    ServicesDep,
    SettingsDep,
)
from api.doc_feedback import feedback_by_document
from api.gaps import CLOSED, gaps_for
from api.handoffs import handoff_view, handoffs_for
from api.jobs import list_jobs
from api.nav import nav_for
from api.routes.ask import passage_view
from api.routes.documents import document, document_view, visible_documents
from api.users import CurrentUser

router = APIRouter(include_in_schema=False)


def render(request: Request, user: CurrentUser, template: str, active: str, **ctx: Any) -> Response:
    settings = request.app.state.services.settings
    context = {
        "user": user,
        "csrf": user.csrf or "",
        "nav": nav_for(user),
        "active": active,
        "levels": list(settings.access_levels),
        **ctx,
    }
    response: Response = request.app.state.templates.TemplateResponse(request, template, context)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/")
def home(request: Request, user: AnyUserDep) -> Response:
    if not user.has_role("asker"):
        first = next((n["href"] for n in nav_for(user) if n["href"] != "/"), "/handoffs")
        return RedirectResponse(first, status_code=303)
    return render(request, user, "ask.html", "/")


@router.get("/passages/{chunk_id:path}")
def passage_page(
    request: Request,
    chunk_id: str,
    user: AskerDep,
    services: ServicesDep,
    quote: str | None = Query(None, max_length=2000),
) -> Response:
    passage = passage_view(services, user, chunk_id, quote)
    return render(request, user, "passage.html", "/", passage=passage, quote=quote)


@router.get("/handoffs")
def handoffs_page(
    request: Request, user: AnyUserDep, db: DbDep, settings: SettingsDep, state: str = "open"
) -> Response:
    chosen = state if state in ("open", "closed", "all") else "open"
    rows = handoffs_for(db, user, None if chosen == "all" else chosen)
    views = [handoff_view(db, user, h, settings.access_levels) for h in rows]
    return render(request, user, "handoffs.html", "/handoffs", handoffs=views, state=chosen)


@router.get("/gaps")
def gaps_page(request: Request, user: GapReaderDep, db: DbDep, settings: SettingsDep) -> Response:
    levels = settings.access_levels
    gaps = gaps_for(db, user, levels)
    closed = gaps_for(db, user, levels, limit=20, state=CLOSED)
    return render(
        request,
        user,
        "gaps.html",
        "/gaps",
        gaps=gaps,
        closed=closed,
        writes=user.has_role("editor"),
    )


@router.get("/feedback")
def feedback_page(request: Request, user: EditorDep, db: DbDep, settings: SettingsDep) -> Response:
    documents = feedback_by_document(db, user, settings.access_levels)
    return render(request, user, "feedback.html", "/feedback", documents=documents)


@router.get("/documents")
def documents_page(request: Request, user: EditorDep, db: DbDep, settings: SettingsDep) -> Response:
    levels = settings.access_levels
    docs = [
        document_view(db, user, d, levels)
        for d in visible_documents(db, user, levels, retired=False)
    ]
    return render(
        request,
        user,
        "documents.html",
        "/documents",
        documents=docs,
        max_upload_mb=settings.max_upload_mb,
        allowed=",".join(settings.allowed_extensions),
        default_level=settings.default_access_level,
    )


@router.get("/documents/{doc_id}")
def document_page(
    request: Request, doc_id: str, user: EditorDep, db: DbDep, services: ServicesDep
) -> Response:
    data = document(doc_id, user, db, services)
    return render(request, user, "document.html", "/documents", **data)


@router.get("/jobs")
def jobs_page(request: Request, user: OperatorDep, db: DbDep, settings: SettingsDep) -> Response:
    return render(
        request, user, "jobs.html", "/jobs", jobs=list_jobs(db, user, settings.access_levels)
    )
