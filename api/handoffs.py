"""Handoffs (a non-answer passed to a person), over the ``handoffs`` table; content gaps
(questions the documents do not cover) are ``api/gaps.py``'s.

A handoff is routed to the owner of the closest document the asker could see, or to the
default queue. Owners are the users whose name or one of whose groups equals the route,
plus admins. The webhook message carries the question, the route and the source names the
asker could see: never document text.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from api.users import CurrentUser
from api.visibility import can_read_level, highest_level, readable_sources, sources_level
from docent.db.models import ContentGap, Handoff
from docent.errors import Conflict, NotFound

log = logging.getLogger("docent.api.handoffs")
NON_ANSWERS = ("insufficient_evidence", "ambiguous", "declined", "failed_check")
_PUNCT = re.compile(r"[^\w\s]")
_SPACE = re.compile(r"\s+")


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


def handoffs_for(session: Session, user: CurrentUser, state: str | None = None) -> list[Handoff]:
    """Handoffs routed to the user or their groups (all of them for admins), plus their own."""
    query = select(Handoff).order_by(Handoff.created_at.desc(), Handoff.id.desc())
    if not user.is_admin:
        routes = [user.username, *sorted(user.groups)]
        query = query.where(or_(Handoff.routed_to.in_(routes), Handoff.asker == user.username))
    if state:
        query = query.where(Handoff.state == state)
    return list(session.execute(query.limit(500)).scalars())


def handoff_view(
    session: Session, user: CurrentUser, handoff: Handoff, levels: Sequence[str]
) -> dict[str, object]:
    """The handoff as this viewer may see it: details above their clearance are withheld."""
    detail_ok = can_read_level(user, level_now(session, handoff, levels), levels)
    sources = readable_sources(session, user, handoff.closest_sources, levels) if detail_ok else []
    return {
        "id": handoff.id,
        "created_at": handoff.created_at.isoformat(),
        "question": handoff.question if detail_ok else None,
        "asker": handoff.asker,
        "outcome": handoff.outcome,
        "missing": handoff.missing if detail_ok else None,
        "routed_to": handoff.routed_to,
        "closest_sources": sources,
        "details_withheld": not detail_ok,
        "trace_id": handoff.trace_id,
        "state": handoff.state,
        "closed_at": handoff.closed_at.isoformat() if handoff.closed_at else None,
        "closed_by": handoff.closed_by,
        "resolution": handoff.resolution if detail_ok else None,
        "webhook_status": handoff.webhook_status,
        "can_close": owns(user, handoff) and handoff.state == "open",
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
