"""Askers' feedback: "this answered it" / "it did not", on their own answer or on one closest
passage of their own non-answer (``docent.db.feedback`` stores it; ``docent eval
cases-from-feedback`` turns it into eval cases)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from api.deps import AskerDep, DbDep, EditorDep, ServicesDep, SettingsDep
from api.doc_feedback import feedback_by_document
from api.gaps import forget_answered_ask
from api.passages import fetch_chunks
from api.users import CurrentUser
from api.visibility import can_read_chunk, readable_sources
from docent.db.feedback import (
    ANSWERED,
    CHUNK_ID_CHARS,
    COMMENT_CHARS,
    offered_passages,
    record_feedback,
    was_answered,
)
from docent.db.models import TraceRecord
from docent.errors import InvalidInput, NotFound
from docent.wiring import Services

router = APIRouter(tags=["feedback"])


class FeedbackCreate(BaseModel):
    trace_id: str = Field(..., min_length=1, max_length=64, description="The ask's trace id.")
    verdict: Literal["answered", "not_answered"] = Field(
        ..., description="Whether the answer (or the passage) answered the question."
    )
    chunk_id: str | None = Field(
        None,
        min_length=1,
        max_length=CHUNK_ID_CHARS,
        description="On a non-answer: the closest passage that held the answer.",
    )
    comment: str | None = Field(None, max_length=COMMENT_CHARS, description="Anything to add.")


def _check_passage(
    services: Services, db: Session, user: CurrentUser, row: TraceRecord, chunk_id: str
) -> None:
    """The passage must be one the non-answer offered and one the asker may read now (its
    chunk and its document, the recheck's rule); any other is as missing as a made-up id, so
    a refusal never tells a hidden passage from an unknown one."""
    missing = NotFound(f"no passage {chunk_id!r} among that answer's closest passages")
    if chunk_id not in offered_passages(row.payload or {}):
        raise missing
    levels = services.settings.access_levels
    chunk = fetch_chunks(services.index, [chunk_id]).get(chunk_id)
    if chunk is None or not can_read_chunk(user, chunk, levels):
        raise missing
    if not readable_sources(db, user, [chunk.source], levels):
        raise missing


@router.post("/api/feedback", summary="Say whether my answer (or a closest passage) answered it")
def give_feedback(
    payload: FeedbackCreate, user: AskerDep, db: DbDep, services: ServicesDep
) -> dict[str, Any]:
    row = db.get(TraceRecord, payload.trace_id)
    # Only the asker's own trace: someone else's is as missing as a made-up id.
    if row is None or row.user_id != user.username:
        raise NotFound(f"no trace {payload.trace_id!r}")
    if payload.chunk_id is not None:
        _check_passage(services, db, user, row, payload.chunk_id)
    elif payload.verdict == ANSWERED and not was_answered(row.payload or {}):
        raise InvalidInput("a non-answer is answered by one of its passages: give its chunk_id")
    verdict = record_feedback(
        db,
        trace_id=row.id,
        user_id=user.username,
        verdict=payload.verdict,
        chunk_id=payload.chunk_id,
        comment=(payload.comment or "").strip() or None,
    )
    if payload.chunk_id is not None and payload.verdict == ANSWERED:
        forget_answered_ask(db, row.id)  # its closest passage held the answer: no gap
    return verdict.to_dict()


@router.get("/api/feedback/documents", summary="Askers' verdicts per document (docs team)")
def feedback_per_document(user: EditorDep, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    return {"documents": feedback_by_document(db, user, settings.access_levels)}
