"""The handoff loop's other half: an owner replies (and may link the document that answers
it, or turn the question into a content gap), and the asker hears of it — a badge on the nav
until they read the reply, the reply beside their question in History, an e-mail when
``DOCENT_SMTP_*`` is set, and a notice on the handoff webhook.

Permissions: a linked document must be one the replier and the asker may both read; it is
checked again, for whoever looks, each time it is shown (a page, the API, the e-mail), so a
document raised above the asker since is never named to them. The e-mail carries the reply
only when the asker may read the handoff's details (``handoffs.level_now``), and no document
text at all. The asker is judged as the user registry knows them (``asker_of``): in proxy
mode, groups that only the proxy's header gives them are not known here, so a document
readable through such a group alone is not offered to link (each view still checks the
viewer as they come).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

import httpx
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from api.gaps import record_gap
from api.handoffs import (
    close_handoff,
    level_now,
    linked_document,
    original_question,
    owns,
    post_webhook,
)
from api.mail import Mail, Mailer, address_of
from api.users import CurrentUser, active_user, current_user_of
from api.visibility import can_read, can_read_level, documents_by_source
from docent.db.models import ContentGap, Document, Handoff, HandoffFollowUp
from docent.errors import Conflict, InvalidInput, NotFound, PermissionDenied

LINK_CHOICES = 300  # documents offered in a reply's "document that answers it" list


def follow_up(session: Session, handoff_id: int) -> HandoffFollowUp:
    """The handoff's follow-up row, made when first needed."""
    row = session.get(HandoffFollowUp, handoff_id)
    if row is None:
        row = HandoffFollowUp(handoff_id=handoff_id)
        session.add(row)
    return row


def asker_of(session: Session, handoff: Handoff) -> CurrentUser | None:
    """The asker as the user registry knows them now (``None``: gone or disabled)."""
    user = active_user(session, handoff.asker)
    return current_user_of(user, via="registry") if user is not None else None


def _linkable(
    session: Session,
    replier: CurrentUser,
    asker: CurrentUser | None,
    source: str,
    levels: Sequence[str],
) -> str:
    doc = documents_by_source(session, [source]).get(source)
    # One the replier may not read is as unknown as a made-up name.
    if doc is None or not can_read(replier, doc.access_level, doc.groups, levels):
        raise NotFound(f"no document {source!r}")
    if doc.retired:
        raise InvalidInput(f"{source} is retired; link a current document")
    if asker is None or not can_read(asker, doc.access_level, doc.groups, levels):
        name = asker.username if asker else "the asker"
        raise InvalidInput(
            f"{name} may not read {source}; link a document they may read, or answer in words"
        )
    return doc.source


def reply_to_handoff(
    session: Session,
    user: CurrentUser,
    handoff_id: int,
    reply: str | None,
    answer_source: str | None,
    levels: Sequence[str],
) -> Handoff:
    """Close the handoff with the owner's reply and, if given, the document that answers
    it; the asker's reply starts unread."""
    handoff = close_handoff(session, user, handoff_id, reply)
    source = (answer_source or "").strip()
    asker = asker_of(session, handoff)
    row = follow_up(session, handoff.id)
    row.answer_source = _linkable(session, user, asker, source, levels) if source else None
    row.reply_read_at = None
    session.flush()
    return handoff


def reply_mail(
    session: Session,
    handoff: Handoff,
    asker: CurrentUser,
    address: str,
    base_url: str,
    levels: Sequence[str],
) -> Mail:
    """The e-mail to the asker: the reply and the linked document's name only when they may
    read them now; never any document's text."""
    base = base_url.rstrip("/")
    lines = [f"Hello {asker.display_name or asker.username},", ""]
    if can_read_level(asker, level_now(session, handoff, levels), levels):
        row = session.get(HandoffFollowUp, handoff.id)
        linked = linked_document(session, asker, row.answer_source if row else None, levels)
        lines += [
            f"{handoff.closed_by} replied to the question you passed to a person:",
            "",
            f"  {original_question(handoff)}",
            "",
            "Reply:",
            "",
            *(f"  {line}" for line in (handoff.resolution or "(no reply text)").splitlines()),
        ]
        if linked:
            source, title = linked["source"], linked["title"]
            name = f"{title} ({source})" if title else source
            lines += ["", f"The document that answers it: {name}"]
    else:
        lines += [f"{handoff.closed_by} replied to a question you passed to a person."]
    lines += ["", f"Read it beside your question: {base}/history", "", "— Docent"]
    return Mail(address, f"Docent: a reply to your question (#{handoff.id})", "\n".join(lines))


def notify_asker(
    session: Session,
    handoff: Handoff,
    *,
    mailer: Mailer | None,
    recipient_domain: str | None,
    http: httpx.Client,
    webhook_url: str | None,
    base_url: str,
    levels: Sequence[str],
) -> None:
    """E-mail the asker (when a mailer is set) and tell the webhook the handoff was answered;
    how each went is kept on the follow-up."""
    row = follow_up(session, handoff.id)
    asker = asker_of(session, handoff)
    if mailer is not None:
        address = address_of(handoff.asker, recipient_domain) if asker else None
        if asker is None or address is None:
            row.email_status = f"skipped: no e-mail address for {handoff.asker}"[:100]
        else:
            mail = reply_mail(session, handoff, asker, address, base_url, levels)
            row.email_status = mailer.send(mail)[:100]
    if webhook_url:
        text = (
            f"Docent handoff #{handoff.id} for {handoff.routed_to} was answered by "
            f"{handoff.closed_by} (asked by {handoff.asker})."
        )
        row.webhook_status = post_webhook(http, webhook_url, text)
    session.flush()


def _unread(username: str) -> tuple[ColumnElement[bool], ...]:
    return (
        Handoff.asker == username,
        Handoff.state == "closed",
        HandoffFollowUp.reply_read_at.is_(None),
    )


def unread_replies(session: Session, username: str) -> int:
    """How many replies to the user's handoffs they have not opened yet (the nav's badge)."""
    query = (
        select(func.count())
        .select_from(Handoff)
        .outerjoin(HandoffFollowUp, HandoffFollowUp.handoff_id == Handoff.id)
        .where(*_unread(username))
    )
    return int(session.execute(query).scalar_one())


def mark_replies_read(session: Session, username: str, handoff_ids: Sequence[int]) -> int:
    """The asker opened these replies (a page that shows them): they are read from now on."""
    wanted = set(handoff_ids)
    rows = session.execute(
        select(Handoff.id)
        .outerjoin(HandoffFollowUp, HandoffFollowUp.handoff_id == Handoff.id)
        .where(*_unread(username))
    ).scalars()
    marked = [hid for hid in rows if hid in wanted]
    now = datetime.now(UTC)
    for hid in marked:
        follow_up(session, hid).reply_read_at = now
    session.flush()
    return len(marked)


def mark_read(session: Session, user: CurrentUser, handoff_id: int) -> Handoff:
    """``POST /api/handoffs/{id}/read``: only the asker's own, answered handoff."""
    handoff = session.get(Handoff, handoff_id)
    if handoff is None or handoff.asker != user.username:
        raise NotFound(f"no handoff {handoff_id} of yours")
    if handoff.state != "closed":
        raise Conflict(f"handoff {handoff_id} has no reply yet")
    mark_replies_read(session, user.username, [handoff_id])
    return handoff


def turn_into_gap(
    session: Session, user: CurrentUser, handoff_id: int, levels: Sequence[str]
) -> tuple[ContentGap, Handoff]:
    """Record the handoff's question as a content gap (the gaps' own storage and rules)."""
    handoff = session.get(Handoff, handoff_id)
    if handoff is None or not owns(user, handoff):
        raise NotFound(f"no handoff {handoff_id}")
    if not can_read_level(user, level_now(session, handoff, levels), levels):
        raise PermissionDenied("this question is above your clearance")
    row = follow_up(session, handoff.id)
    if row.gap_id is not None:
        raise Conflict(f"handoff {handoff_id} is already content gap #{row.gap_id}")
    gap = record_gap(
        session,
        original_question(handoff),
        handoff.outcome,
        handoff.closest_sources,
        levels,
        reason="handed_off",
        missing=handoff.missing,
        retrieved_sources=handoff.closest_sources,
        missing_trace_id=handoff.trace_id,
    )
    row.gap_id, row.gap_recorded_by, row.gap_recorded_at = gap.id, user.username, datetime.now(UTC)
    session.flush()
    return gap, handoff


def readable_documents(
    session: Session, replier: CurrentUser, levels: Sequence[str]
) -> list[Document]:
    """The current documents the replier may read: what a reply's link is chosen from."""
    docs = session.execute(
        select(Document).where(Document.retired.is_(False)).order_by(Document.source)
    ).scalars()
    return [d for d in docs if can_read(replier, d.access_level, d.groups, levels)]


def link_choices(
    readable: Sequence[Document],
    asker: CurrentUser | None,
    first: Sequence[str],
    levels: Sequence[str],
) -> list[dict[str, str]]:
    """Documents a reply may link: those of ``readable`` (``readable_documents``) the asker
    may read too, the handoff's closest documents first."""
    if asker is None:
        return []
    both = [d for d in readable if can_read(asker, d.access_level, d.groups, levels)]
    rank = {source: i for i, source in enumerate(first)}
    both.sort(key=lambda d: (rank.get(d.source, len(rank)), d.source))
    return [{"source": d.source, "title": d.title or d.source} for d in both[:LINK_CHOICES]]
