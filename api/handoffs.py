"""Handoffs (a non-answer passed to a person), over the ``handoffs`` table; content gaps
(questions the documents do not cover) are ``api/gaps.py``'s.

A handoff is routed to the owner of the closest document the asker could see, or to the
default queue. Owners are the users whose name or one of whose groups equals the route,
plus admins. The webhook message carries the question, the route and the source names the
asker could see: never document text.

The asker's side of a reply (its linked document, the read receipt, the e-mail) lives in
``api.handoff_replies``; ``handoff_view`` shows it, each part to whom it is for.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

import httpx
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from api.trace_access import trace_text_readable
from api.users import CurrentUser
from api.visibility import (
    can_read,
    can_read_level,
    documents_by_source,
    highest_level,
    readable_sources,
    sources_level,
)
from docent.db.models import ContentGap, Handoff, HandoffFollowUp, as_utc
from docent.errors import Conflict, NotFound

log = logging.getLogger("docent.api.handoffs")
NON_ANSWERS = ("insufficient_evidence", "ambiguous", "declined", "failed_check")
_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")
NOTE_MARK = "\n\nNote: "  # what joins an asker's note to the question (api.routes.handoffs)
Box = Literal["all", "queue", "asked"]


def normalise_question(question: str) -> str:
    """The key that groups the same question asked in different spellings."""
    text = unicodedata.normalize("NFKC", question).casefold()
    text = _SPACE.sub(" ", _PUNCT.sub(" ", text)).strip()
    return text[:500]


@dataclass(frozen=True)
class HandoffRequest:
    """What the server knows about a non-answer, taken from the asker's own trace when there
    is one (never trusted from the client beyond the question)."""

    question: str
    outcome: str
    missing: str | None
    suggested_owner: str | None
    closest_sources: tuple[str, ...]
    trace_id: str | None = None


def route_for(request: HandoffRequest, default_queue: str) -> str:
    owner = (request.suggested_owner or "").strip()
    return owner or default_queue


def webhook_text(handoff: Handoff, base_url: str) -> str:
    sources = ", ".join(handoff.closest_sources) or "none"
    return (
        f"Docent handoff #{handoff.id} for {handoff.routed_to}: “{handoff.question}” "
        f"(asked by {handoff.asker}; outcome: {handoff.outcome.replace('_', ' ')}). "
        f"Closest documents: {sources}. Open {base_url.rstrip('/')}/handoffs to reply and close it."
    )


def post_webhook(client: httpx.Client, url: str, text: str) -> str:
    """POST ``{"text": ...}`` (Slack and Teams incoming webhooks both accept it)."""
    try:
        response = client.post(url, json={"text": text}, timeout=5.0)
    except httpx.HTTPError as exc:
        log.warning("handoff webhook failed", extra={"error_type": type(exc).__name__})
        return f"failed: {type(exc).__name__}"
    return f"sent: HTTP {response.status_code}"


def create_handoff(
    session: Session,
    asker: CurrentUser,
    request: HandoffRequest,
    *,
    default_queue: str,
    levels: Sequence[str],
) -> Handoff:
    # Only sources the asker may read travel with the handoff.
    sources = readable_sources(session, asker, request.closest_sources, levels)
    handoff = Handoff(
        question=request.question,
        asker=asker.username,
        outcome=request.outcome,
        missing=request.missing,
        routed_to=route_for(request, default_queue),
        closest_sources=sources,
        max_access_level=highest_level(
            [sources_level(session, sources, levels), _floor(levels)], levels
        ),
        trace_id=request.trace_id,
        state="open",
    )
    session.add(handoff)
    session.flush()
    return handoff


def _floor(levels: Sequence[str]) -> str:
    return levels[0]


def level_now(
    session: Session,
    row: Handoff | ContentGap,
    levels: Sequence[str],
    *,
    stored: str | None = None,
) -> str | None:
    """The level a handoff's or gap's details need: the one stored when it was made, or
    higher if a document it names has been raised since (the registry as it is now)."""
    recorded = row.max_access_level if stored is None else stored
    return highest_level([recorded, sources_level(session, row.closest_sources, levels)], levels)


def owns(user: CurrentUser, handoff: Handoff) -> bool:
    return user.is_admin or handoff.routed_to == user.username or handoff.routed_to in user.groups


def original_question(handoff: Handoff) -> str:
    """The question as asked, without the note the asker added when handing it off."""
    return handoff.question.split(NOTE_MARK, 1)[0]


def handoffs_for(
    session: Session, user: CurrentUser, state: str | None = None, box: Box = "all"
) -> list[Handoff]:
    """``queue``: handoffs routed to the user or their groups (all of them for admins),
    oldest first, so the longest-waiting question is answered first; ``asked``: the user's
    own; ``all``: both. The last two newest first."""
    routes = [user.username, *sorted(user.groups)]
    query = select(Handoff)
    if box == "asked":
        query = query.where(Handoff.asker == user.username)
    elif not user.is_admin:
        mine = Handoff.asker == user.username
        routed = Handoff.routed_to.in_(routes)
        query = query.where(routed if box == "queue" else or_(routed, mine))
    if box == "queue":
        query = query.order_by(Handoff.created_at, Handoff.id)
    else:
        query = query.order_by(Handoff.created_at.desc(), Handoff.id.desc())
    if state:
        query = query.where(Handoff.state == state)
    return list(session.execute(query.limit(500)).scalars())


def linked_document(
    session: Session, viewer: CurrentUser, source: str | None, levels: Sequence[str]
) -> dict[str, object] | None:
    """The document a reply linked, as ``viewer`` may see it now: ``None`` when there is none
    or they may not read it (a document raised above them since is not named)."""
    doc = documents_by_source(session, [source]).get(source) if source else None
    if doc is None or doc.retired or not can_read(viewer, doc.access_level, doc.groups, levels):
        return None
    first = doc.chunk_ids[0] if doc.chunk_ids else None
    return {"source": doc.source, "title": doc.title, "chunk_id": first}


def handoff_view(
    session: Session, user: CurrentUser, handoff: Handoff, levels: Sequence[str]
) -> dict[str, object]:
    """The handoff as this viewer may see it: details above their clearance are withheld;
    the answer stage's ``missing`` words, unless they may read everything its ask retrieved
    (``trace_text_readable``: the closest documents the handoff names are only three)."""
    detail_ok = can_read_level(user, level_now(session, handoff, levels), levels)
    missing_ok = detail_ok and trace_text_readable(session, user, handoff.trace_id, levels)
    sources = readable_sources(session, user, handoff.closest_sources, levels) if detail_ok else []
    follow = session.get(HandoffFollowUp, handoff.id)
    owner = owns(user, handoff)
    mine = handoff.asker == user.username
    answer_source = follow.answer_source if follow and detail_ok else None
    age = datetime.now(UTC) - as_utc(handoff.created_at)
    return {
        "id": handoff.id,
        "created_at": as_utc(handoff.created_at).isoformat(),
        "age_seconds": max(0, int(age.total_seconds())),
        "question": handoff.question if detail_ok else None,
        "asker": handoff.asker,
        "outcome": handoff.outcome,
        "missing": handoff.missing if missing_ok else None,
        "missing_withheld": handoff.missing is not None and not missing_ok,
        "routed_to": handoff.routed_to,
        "closest_sources": sources,
        "details_withheld": not detail_ok,
        "trace_id": handoff.trace_id,
        "state": handoff.state,
        "closed_at": as_utc(handoff.closed_at).isoformat() if handoff.closed_at else None,
        "closed_by": handoff.closed_by,
        "resolution": handoff.resolution if detail_ok else None,
        "webhook_status": handoff.webhook_status,
        "can_close": owner and handoff.state == "open",
        "answer_document": linked_document(session, user, answer_source, levels),
        "is_mine": mine,
        "reply_unread": bool(
            mine and handoff.state == "closed" and (follow is None or follow.reply_read_at is None)
        ),
        # How the reply's notices went and the gap it became: for those who answer it.
        "email_status": follow.email_status if follow and owner else None,
        "gap_id": follow.gap_id if follow and owner else None,
    }


def close_handoff(
    session: Session, user: CurrentUser, handoff_id: int, resolution: str | None
) -> Handoff:
    handoff = session.get(Handoff, handoff_id)
    if handoff is None or not owns(user, handoff):
        raise NotFound(f"no handoff {handoff_id}")
    if handoff.state != "open":
        raise Conflict(f"handoff {handoff_id} is already closed")
    handoff.state = "closed"
    handoff.closed_at = datetime.now(UTC)
    handoff.closed_by = user.username
    handoff.resolution = (resolution or "").strip() or None
    return handoff
