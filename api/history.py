"""A person's own last questions, from their traces: what they asked, what Docent answered
(or that it handed the question back), and a handoff's reply beside it.

Only ever the caller's own traces (by user id, whatever the role: an admin's history is
theirs too). Each one is checked again as it is shown: a trace naming anything the caller
may not read now (a document raised above them since) keeps its question and outcome but
loses its answer, citations and ``missing`` text; the handoff beside it is ``handoff_view``'s,
with that function's rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.handoffs import handoff_view
from api.trace_access import trace_readable
from api.users import CurrentUser
from docent.db.models import Handoff, TraceRecord, as_utc
from docent.errors import NotFound

HISTORY_LIMIT = 50  # the asks a history page shows (the API takes up to HISTORY_MAX)
HISTORY_MAX = 200


def _outcome(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    outcome = payload.get("outcome")
    return outcome if isinstance(outcome, Mapping) else {}


def _citations(outcome: Mapping[str, Any]) -> list[dict[str, Any]]:
    return [
        {"id": c.get("id"), "source": c.get("source"), "heading_path": c.get("heading_path") or []}
        for c in outcome.get("citations") or ()
        if isinstance(c, Mapping)
    ]


def history_item(
    session: Session,
    user: CurrentUser,
    trace: TraceRecord,
    handoff: Handoff | None,
    levels: Sequence[str],
) -> dict[str, Any]:
    """One ask as ``GET /api/history`` and the History page show it (one serialiser)."""
    payload = trace.payload or {}
    readable = trace_readable(
        session,
        user,
        {"payload": payload, "max_access_level": trace.max_access_level},
        tuple(levels),
    )
    outcome = _outcome(payload) if readable else {}
    answered = trace.outcome == "answered"
    return {
        "trace_id": trace.id,
        "asked_at": as_utc(trace.created_at).isoformat(),
        "question": trace.question,
        "outcome": trace.outcome,
        # Traces from before the tier was stored: an answer was shown as one.
        "tier": payload.get("tier") or ("answer" if answered else None),
        "reason_code": payload.get("reason"),
        "answer": outcome.get("answer") if answered else None,
        "citations": _citations(outcome) if answered else [],
        "missing": outcome.get("missing") or outcome.get("clarifying_question"),
        "withheld": not readable,
        "handoff": handoff_view(session, user, handoff, levels) if handoff else None,
    }


def _handoffs_by_trace(
    session: Session, username: str, trace_ids: Sequence[str]
) -> dict[str, Handoff]:
    """The user's latest handoff of each of these traces."""
    if not trace_ids:
        return {}
    rows = session.execute(
        select(Handoff)
        .where(Handoff.asker == username, Handoff.trace_id.in_(list(trace_ids)))
        .order_by(Handoff.created_at, Handoff.id)
    ).scalars()
    return {str(h.trace_id): h for h in rows}  # the later one wins


def history_of(
    session: Session, user: CurrentUser, levels: Sequence[str], limit: int = HISTORY_LIMIT
) -> list[dict[str, Any]]:
    """The user's own last ``limit`` asks, newest first."""
    traces = list(
        session.execute(
            select(TraceRecord)
            .where(TraceRecord.user_id == user.username)
            .order_by(TraceRecord.created_at.desc(), TraceRecord.id.desc())
            .limit(limit)
        ).scalars()
    )
    handoffs = _handoffs_by_trace(session, user.username, [t.id for t in traces])
    return [history_item(session, user, t, handoffs.get(t.id), levels) for t in traces]


def history_entry(
    session: Session, user: CurrentUser, trace_id: str, levels: Sequence[str]
) -> dict[str, Any]:
    """One of the user's own asks; anyone else's is as missing as a made-up id."""
    trace = session.get(TraceRecord, trace_id)
    if trace is None or trace.user_id != user.username:
        raise NotFound(f"no question {trace_id!r} in your history")
    handoff = _handoffs_by_trace(session, user.username, [trace.id]).get(trace.id)
    return history_item(session, user, trace, handoff, levels)
