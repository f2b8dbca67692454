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
from api.handoff_replies import (
    asker_of,
    link_choices,
    mark_replies_read,
    readable_documents,
    unread_replies,
)
from api.handoffs import handoff_view, handoffs_for
from api.history import history_of
from api.jobs import list_jobs
from api.nav import nav_for
from api.routes.ask import passage_view
from api.routes.documents import document, document_view, visible_documents
from api.users import CurrentUser
from docent.db.models import Handoff
from docent.db.session import session_scope

router = APIRouter(include_in_schema=False)


def render(
    request: Request,
    user: CurrentUser,
    template: str,
    active: str,
    *,
    unread: int | None = None,
    **ctx: Any,
) -> Response:
    """``unread``: the nav badge's count when the page already knows it (it just marked
    replies read in its own, uncommitted, transaction); else read here."""
    services = request.app.state.services
    settings = services.settings
    if unread is None and user.has_role("asker"):
        with session_scope(services.sessions) as db:
            unread = unread_replies(db, user.username)
    context = {
        "user": user,
        "csrf": user.csrf or "",
        "nav": nav_for(user, {"/history": unread or 0}),
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


def answers_queue(user: CurrentUser, queue: list[Handoff]) -> bool:
    """Whether the page is for someone who answers handoffs (not only asks them)."""
    return bool(queue) or user.is_admin or user.has_role("editor") or bool(user.groups)


@router.get("/handoffs")
def handoffs_page(
    request: Request, user: AnyUserDep, db: DbDep, settings: SettingsDep, state: str = "open"
) -> Response:
    levels = settings.access_levels
    chosen = state if state in ("open", "closed", "all") else "open"
    queue = handoffs_for(db, user, None if chosen == "all" else chosen, "queue")
    owner = answers_queue(user, queue)
    readable = readable_documents(db, user, levels) if any(h.state == "open" for h in queue) else []
    queued = []
    for handoff in queue:
        view = handoff_view(db, user, handoff, levels)
        if view["can_close"] and not view["details_withheld"]:
            asker = asker_of(db, handoff)
            view["link_choices"] = link_choices(readable, asker, handoff.closest_sources, levels)
        queued.append(view)
    mine = handoffs_for(db, user, None, "asked")[:50]
    asked = [handoff_view(db, user, h, levels) for h in mine]
    # Shown here, so read: the badge goes once the asker has seen the reply.
    mark_replies_read(db, user.username, [h.id for h in mine])
    return render(
        request,
        user,
        "handoffs.html",
        "/handoffs",
        unread=unread_replies(db, user.username),
        queue=queued,
        asked=asked,
        owner=owner,
        state=chosen,
        mail=bool(settings.smtp_host),
    )


@router.get("/history")
def history_page(request: Request, user: AskerDep, db: DbDep, settings: SettingsDep) -> Response:
    asks = history_of(db, user, settings.access_levels)
    replied = [a["handoff"]["id"] for a in asks if a["handoff"] and a["handoff"]["reply_unread"]]
    mark_replies_read(db, user.username, replied)
    unread = unread_replies(db, user.username)
    return render(request, user, "history.html", "/history", unread=unread, asks=asks)


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
