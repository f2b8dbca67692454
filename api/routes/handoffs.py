"""Handoffs ("ask a person") and content gaps."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from api.deps import AnyUserDep, AskerDep, DbDep, GapReaderDep, SettingsDep
from api.gaps import CLOSED, OPEN, gaps_for
from api.handoffs import (
    HandoffRequest,
    close_handoff,
    create_handoff,
    handoff_view,
    handoffs_for,
    post_webhook,
    webhook_text,
)
from api.recheck import trace_readable
from api.routes.ask import closest_sources
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
    resolution: str | None = Field(None, max_length=4000)


def _from_trace(
    row: TraceRecord, user: CurrentUser, db: Session, levels: tuple[str, ...]
) -> HandoffRequest:
    payload: Mapping[str, Any] = row.payload or {}
    # The asker's own trace, and still rechecked: one that names anything they may not read
    # (an answer stage that leaked, or a document raised above them since) gives the handoff
    # neither the answer stage's words nor the owner of a document: the default queue.
    trusted = trace_readable(
        db, user, {"payload": payload, "max_access_level": row.max_access_level}, levels
    )
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
        req = HandoffRequest(**{**req.__dict__, "question": f"{req.question}\n\nNote: {note}"})
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


@router.get("/api/handoffs", summary="Handoffs routed to me or my groups (all, for admins)")
def list_handoffs(
    user: AnyUserDep, db: DbDep, settings: SettingsDep, state: str | None = None
) -> dict[str, Any]:
    rows = handoffs_for(db, user, state)
    return {"handoffs": [handoff_view(db, user, h, settings.access_levels) for h in rows]}


@router.post("/api/handoffs/{handoff_id}/close", summary="Close a handoff routed to me")
def close(
    # Bounded: a database integer (found by the fuzzer: a larger one was a 500).
    handoff_id: Annotated[int, Path(ge=1, le=2**63 - 1)],
    payload: HandoffClose,
    user: AnyUserDep,
    db: DbDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    handoff = close_handoff(db, user, handoff_id, payload.resolution)
    db.flush()
    return handoff_view(db, user, handoff, settings.access_levels)


@router.get("/api/gaps", summary="Questions the documents do not cover, most asked first")
def gaps(user: GapReaderDep, db: DbDep, settings: SettingsDep, state: str = OPEN) -> dict[str, Any]:
    if state not in (OPEN, CLOSED):
        raise InvalidInput(f"state must be {OPEN!r} or {CLOSED!r}, got {state!r}")
    return {"gaps": gaps_for(db, user, settings.access_levels, state=state)}
