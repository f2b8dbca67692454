"""Askers' verdicts on their own asks, over the ``feedback`` table: "this answered it" or "it
did not", on the answer as a whole or on one of the closest passages a non-answer offered.

One verdict per (trace, asker, passage): a second click replaces the first. Who may give one
and on which passage is the API's rule (``api/routes/feedback.py``); turning verdicts into
eval cases is the eval's (``evals/feedback_cases.py``). What lives here is shared by both:
the storage and what a stored trace says it showed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from docent.db.models import Feedback, TraceRecord, utcnow

ANSWERED = "answered"
NOT_ANSWERED = "not_answered"
VERDICTS = (ANSWERED, NOT_ANSWERED)
COMMENT_CHARS = 1000  # an optional note beside a click, not a message
CHUNK_ID_CHARS = 1100  # the column: a source (at most 1000) + "#" + a number
WHOLE_ANSWER = ""  # the stored chunk_id of a verdict on the answer itself (see models.Feedback)


@dataclass(frozen=True)
class Verdict:
    """One stored verdict; ``chunk_id`` None when it is on the answer as a whole."""

    trace_id: str
    user_id: str
    verdict: str
    chunk_id: str | None
    comment: str | None
    created_at: datetime

    def to_dict(self) -> dict[str, Any]:
        return {
            "trace_id": self.trace_id,
            "verdict": self.verdict,
            "chunk_id": self.chunk_id,
            "comment": self.comment,
            "created_at": self.created_at.isoformat(),
        }


@dataclass(frozen=True)
class JudgedAsk:
    """A verdict with the ask it judges: the trace's question and payload."""

    verdict: Verdict
    question: str
    payload: Mapping[str, Any]
    max_access_level: str | None = None  # the trace's: the highest level it shows


def _verdict_of(row: Feedback) -> Verdict:
    return Verdict(
        trace_id=row.trace_id,
        user_id=row.user_id,
        verdict=row.verdict,
        chunk_id=row.chunk_id or None,
        comment=row.comment,
        # SQLite gives the stored UTC time back without its zone.
        created_at=row.created_at.replace(tzinfo=row.created_at.tzinfo or UTC),
    )


def record_feedback(
    session: Session,
    *,
    trace_id: str,
    user_id: str,
    verdict: str,
    chunk_id: str | None = None,
    comment: str | None = None,
    now: datetime | None = None,
) -> Verdict:
    """Store a verdict, replacing the asker's earlier one on the same trace and passage (its
    time becomes this one's). One statement, an insert or an update on the unique key, so two
    quick clicks never fail on it."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    values = {
        "trace_id": trace_id,
        "user_id": user_id,
        "verdict": verdict,
        "chunk_id": chunk_id or WHOLE_ANSWER,
        "comment": comment,
        "created_at": now or utcnow(),
    }
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = insert(Feedback).values(values)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[Feedback.trace_id, Feedback.user_id, Feedback.chunk_id],
            set_={
                "verdict": statement.excluded.verdict,
                "comment": statement.excluded.comment,
                "created_at": statement.excluded.created_at,
            },
        )
    )
    row = session.execute(
        select(Feedback)
        .where(
            Feedback.trace_id == trace_id,
            Feedback.user_id == user_id,
            Feedback.chunk_id == values["chunk_id"],
        )
        # The session may hold the row as it was before the update.
        .execution_options(populate_existing=True)
    ).scalar_one()
    return _verdict_of(row)


def feedback_on(session: Session, trace_id: str) -> list[Verdict]:
    """Every verdict on one trace, oldest first."""
    rows = session.execute(
        select(Feedback).where(Feedback.trace_id == trace_id).order_by(Feedback.id)
    ).scalars()
    return [_verdict_of(row) for row in rows]


def judged_asks(session: Session, since: datetime | None = None) -> list[JudgedAsk]:
    """Every verdict (given at or after ``since``), with its trace, oldest first."""
    query = select(Feedback, TraceRecord).join(TraceRecord, Feedback.trace_id == TraceRecord.id)
    if since is not None:
        query = query.where(Feedback.created_at >= since)
    rows = session.execute(query.order_by(Feedback.created_at, Feedback.id)).all()
    return [
        JudgedAsk(
            _verdict_of(feedback), trace.question, dict(trace.payload or {}), trace.max_access_level
        )
        for feedback, trace in rows
    ]


# --- what a stored trace says it showed (generate/trace.py writes the payload) -------------


def was_answered(payload: Mapping[str, Any]) -> bool:
    outcome = payload.get("outcome")
    return isinstance(outcome, Mapping) and outcome.get("kind") == "answered"


def citations_of(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The answer's citations ({id, source, heading_path, quote, ...}); none on a non-answer."""
    outcome = payload.get("outcome")
    if not was_answered(payload) or not isinstance(outcome, Mapping):
        return []
    return [c for c in outcome.get("citations") or () if isinstance(c, Mapping)]


def offered_passages(payload: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The passages a non-answer offered, by chunk id: its retrieved hits (the ask body's
    ``retrieved``; its ``closest``, at most three of them, are chosen from these by the
    answerer's pointers, which the trace does not keep), or, when none cleared the relevance
    bar, the candidates below it it listed as weak matches (``generate.ask.closest_passages``
    draws on the same pool). None on an answer: it offers no closest passages."""
    if was_answered(payload):
        return {}
    hits: Sequence[Any] = payload.get("hits") or payload.get("cut") or ()
    return {str(hit["id"]): hit for hit in hits if isinstance(hit, Mapping) and hit.get("id")}
