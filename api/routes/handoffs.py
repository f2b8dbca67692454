"""Handoffs ("ask a person") and content gaps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from api.deps import AnyUserDep, AskerDep, DbDep, GapReaderDep, SettingsDep
from api.gaps import CLOSED, OPEN, gap_view, gaps_for
from api.handoff_replies import (
    mark_read,
    notify_asker,
    reply_to_handoff,
    turn_into_gap,
    unread_replies,
)
from api.handoffs import (
    NOTE_MARK,
    HandoffRequest,
    create_handoff,
    handoff_view,
    handoffs_for,
    post_webhook,
    webhook_text,
)
from api.routes.ask import closest_sources
from api.trace_access import stored_trace, trace_readable
from api.users import CurrentUser
from docent.db.models import TraceRecord
from docent.errors import InvalidInput, NotFound

router = APIRouter(tags=["handoffs"])


class HandoffCreate(BaseModel):
    trace_id: str | None = Field(None, max_length=64, description="The non-answer's trace id.")
    question: str | None = Field(None, max_length=2000, description="Used when no trace is given.")
    outcome: str = Field("insufficient_evidence", max_length=40)
    note: str | None = Field(None, max_length=2000, description="Anything the asker adds.")


class HandoffClose(BaseModel):
    resolution: str | None = Field(None, max_length=4000, description="The reply to the asker.")
    answer_source: str | None = Field(
        None,
        max_length=1000,
        description="The document that answers it: one you and the asker may both read.",
    )


# Bounded: a database integer (found by the fuzzer: a larger one was a 500).
HandoffId = Annotated[int, Path(ge=1, le=2**63 - 1)]


def _from_trace(
    row: TraceRecord, user: CurrentUser, db: Session, levels: tuple[str, ...]
) -> HandoffRequest:
    payload: Mapping[str, Any] = row.payload or {}
    # The asker's own trace, and still rechecked: one that names anything they may not read
    # (an answer stage that leaked, or a document raised above them since) gives the handoff
    # neither the answer stage's words nor the owner of a document: the default queue.
    trusted = trace_readable(db, user, stored_trace(row), levels)
    hint = payload.get("handoff")
    owner = hint.get("owner") if isinstance(hint, Mapping) and trusted else None
    outcome = payload.get("outcome")
    outcome = outcome if isinstance(outcome, Mapping) and trusted else {}
    missing = outcome.get("missing") or outcome.get("clarifying_question")
    return HandoffRequest(
        question=row.question,
        outcome=row.outcome,
        missing=str(missing) if missing else None,
        suggested_owner=str(owner) if owner else None,
        closest_sources=tuple(closest_sources(payload)),  # filtered by create_handoff
        trace_id=row.id,
    )


@router.post("/api/handoffs", status_code=201, summary="Hand a question to a person (asker)")
def create(
    payload: HandoffCreate, request: Request, user: AskerDep, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    if payload.trace_id:
        row = db.get(TraceRecord, payload.trace_id)
        # Only the asker's own trace: someone else's is as missing as a made-up id.
        if row is None or row.user_id != user.username:
            raise NotFound(f"no trace {payload.trace_id!r}")
        req = _from_trace(row, user, db, settings.access_levels)
    else:
        if not payload.question or not payload.question.strip():
            raise InvalidInput("give the trace_id of the answer, or the question")
        req = HandoffRequest(
            question=payload.question.strip(),
            outcome=payload.outcome,
            missing=None,
            suggested_owner=None,
            closest_sources=(),
        )
    if payload.note and payload.note.strip():
        note = payload.note.strip()
        req = HandoffRequest(**{**req.__dict__, "question": f"{req.question}{NOTE_MARK}{note}"})
    handoff = create_handoff(
        db,
        user,
        req,
        default_queue=settings.default_handoff_queue,
        levels=settings.access_levels,
    )
    request.app.state.metrics.handoffs.inc()
    if settings.handoff_webhook_url:
        base = str(request.base_url)
        handoff.webhook_status = post_webhook(
            request.app.state.http, settings.handoff_webhook_url, webhook_text(handoff, base)
        )
    db.flush()
    return handoff_view(db, user, handoff, settings.access_levels)


@router.get("/api/handoffs", summary="Handoffs routed to me or my groups, and my own")
def list_handoffs(
    user: AnyUserDep,
    db: DbDep,
    settings: SettingsDep,
    state: str | None = None,
    box: Annotated[
        Literal["all", "queue", "asked"],
        Query(
            description="queue: routed to me or my groups (all, for admins), oldest first; "
            "asked: my own questions; all: both. The last two newest first."
        ),
    ] = "all",
) -> dict[str, Any]:
    rows = handoffs_for(db, user, state, box)
    return {
        "handoffs": [handoff_view(db, user, h, settings.access_levels) for h in rows],
        "unread_replies": unread_replies(db, user.username),
    }


@router.post("/api/handoffs/{handoff_id}/close", summary="Reply to a handoff routed to me")
def close(
    handoff_id: HandoffId,
    payload: HandoffClose,
    request: Request,
    user: AnyUserDep,
    db: DbDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    levels = settings.access_levels
    handoff = reply_to_handoff(
        db, user, handoff_id, payload.resolution, payload.answer_source, levels
    )
    notify_asker(
        db,
        handoff,
        mailer=request.app.state.mailer,
        recipient_domain=settings.smtp_recipient_domain,
        http=request.app.state.http,
        webhook_url=settings.handoff_webhook_url,
        base_url=str(request.base_url),
        levels=levels,
    )
    return handoff_view(db, user, handoff, levels)


@router.post("/api/handoffs/{handoff_id}/gap", summary="Record a handoff as a content gap")
def make_gap(
    handoff_id: HandoffId, user: AnyUserDep, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    levels = settings.access_levels
    gap, handoff = turn_into_gap(db, user, handoff_id, levels)
    return {
        "gap": gap_view(db, user, gap, levels),
        "handoff": handoff_view(db, user, handoff, levels),
    }


@router.post("/api/handoffs/{handoff_id}/read", summary="Mark the reply to my handoff read")
def read_reply(
    handoff_id: HandoffId, user: AnyUserDep, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    handoff = mark_read(db, user, handoff_id)
    return handoff_view(db, user, handoff, settings.access_levels)


@router.get("/api/gaps", summary="Questions the documents do not cover, most asked first")
def gaps(user: GapReaderDep, db: DbDep, settings: SettingsDep, state: str = OPEN) -> dict[str, Any]:
    if state not in (OPEN, CLOSED):
        raise InvalidInput(f"state must be {OPEN!r} or {CLOSED!r}, got {state!r}")
    return {"gaps": gaps_for(db, user, settings.access_levels, state=state)}
