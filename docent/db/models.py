"""Tables. Alembic's migrations (``0001_initial`` onward) create exactly these (a test
compares them).

Times are timezone-aware UTC. JSON columns hold lists and small objects only.
"""

from __future__ import annotations

from collections.abc import Container
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored time with its zone: SQLite hands datetimes back naive, and every time this
    project stores is UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[str]: JSON, list[Any]: JSON}


class IndexState(Base):
    """One row: the index's version counter and the embedding model it was built with."""

    __tablename__ = "index_state"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    index_version: Mapped[int] = mapped_column(Integer, default=0)
    embedding_model: Mapped[str | None] = mapped_column(String(500))
    dimension: Mapped[int | None] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Document(Base):
    __tablename__ = "documents"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    doc_id: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    source: Mapped[str] = mapped_column(String(1000), unique=True, index=True)
    title: Mapped[str | None] = mapped_column(String(1000))
    content_hash: Mapped[str] = mapped_column(String(64))
    meta_hash: Mapped[str] = mapped_column(String(64), default="")
    effective_date: Mapped[date | None] = mapped_column(Date)
    superseded_by: Mapped[str | None] = mapped_column(String(1000))
    supersedes: Mapped[list[str]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(20), default="current")
    access_level: Mapped[str] = mapped_column(String(50))
    groups: Mapped[list[str]] = mapped_column(JSON, default=list)
    owner: Mapped[str | None] = mapped_column(String(200))
    doc_type: Mapped[str | None] = mapped_column(String(100))
    chunk_count: Mapped[int] = mapped_column(Integer, default=0)
    chunk_ids: Mapped[list[str]] = mapped_column(JSON, default=list)
    version: Mapped[int] = mapped_column(Integer, default=1)
    retired: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Job(Base):
    __tablename__ = "jobs"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), default="ingest")  # ingest | reindex
    state: Mapped[str] = mapped_column(String(20), default="queued", index=True)
    # queued | running | succeeded | failed | cancelled
    created_by: Mapped[str | None] = mapped_column(String(200))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class JobFile(Base):
    __tablename__ = "job_files"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    job_id: Mapped[str] = mapped_column(ForeignKey("jobs.id", ondelete="CASCADE"), index=True)
    source: Mapped[str] = mapped_column(String(1000))
    path: Mapped[str] = mapped_column(String(2000))
    state: Mapped[str] = mapped_column(String(20), default="pending")
    # pending | running | indexed | unchanged | failed | cancelled
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    chunks: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    # A failed file: can trying it again succeed? (``ingest.faults``; NULL when not failed)
    retryable: Mapped[bool | None] = mapped_column(Boolean)
    access_level: Mapped[str | None] = mapped_column(String(50))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    seconds: Mapped[float | None] = mapped_column(Float)


class TraceRecord(Base):
    __tablename__ = "traces"
    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    user_id: Mapped[str] = mapped_column(String(200), index=True)
    question: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str] = mapped_column(String(40))
    index_version: Mapped[int] = mapped_column(Integer)
    max_access_level: Mapped[str | None] = mapped_column(String(50))  # highest level it shows
    payload: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class Feedback(Base):
    """An asker's verdict on their own ask: "this answered it" / "it did not", on the answer
    as a whole or on one closest passage (``docent.db.feedback``).

    ``chunk_id`` is ``""`` for the answer as a whole, not NULL: a unique key treats NULLs as
    distinct, so one verdict per (trace, user, passage) would not hold for the answer itself.
    """

    __tablename__ = "feedback"
    __table_args__ = (
        UniqueConstraint("trace_id", "user_id", "chunk_id", name="uq_feedback_verdict"),
    )
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    trace_id: Mapped[str] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(String(200))
    verdict: Mapped[str] = mapped_column(String(20))  # answered | not_answered
    chunk_id: Mapped[str] = mapped_column(String(1100), default="")
    comment: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, index=True
    )


class User(Base):
    __tablename__ = "users"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    username: Mapped[str] = mapped_column(String(200), unique=True, index=True)
    display_name: Mapped[str | None] = mapped_column(String(200))
    clearance: Mapped[str] = mapped_column(String(50))
    groups: Mapped[list[str]] = mapped_column(JSON, default=list)
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    password_hash: Mapped[str | None] = mapped_column(String(300))
    disabled: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Session cookies issued before this are over: set when the user signs out and when a
    # new password is set (api/deps.py reads it; the cookie holds its issue time).
    sessions_after: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ApiToken(Base):
    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(16), index=True)
    token_hash: Mapped[str] = mapped_column(String(128), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class FailedSignIns(Base):
    """Failed sign-ins of one account name or one client address (api/signin_throttle.py).

    ``key`` is an HMAC of the scope and the name or address under the secret key: a password
    typed into the name field is not kept in clear. A row goes when it no longer matters.
    """

    __tablename__ = "signin_throttle"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    scope: Mapped[str] = mapped_column(String(10))  # account | address
    failures: Mapped[int] = mapped_column(Integer, default=0)  # in the window from window_start
    window_start: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    lockouts: Mapped[int] = mapped_column(Integer, default=0)  # in a row: the next one doubles
    locked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_failure: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class Handoff(Base):
    __tablename__ = "handoffs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    question: Mapped[str] = mapped_column(Text)
    asker: Mapped[str] = mapped_column(String(200), index=True)
    outcome: Mapped[str] = mapped_column(String(40))
    missing: Mapped[str | None] = mapped_column(Text)
    routed_to: Mapped[str] = mapped_column(String(200), index=True)
    closest_sources: Mapped[list[str]] = mapped_column(JSON, default=list)
    max_access_level: Mapped[str | None] = mapped_column(String(50))
    trace_id: Mapped[str | None] = mapped_column(String(36))
    state: Mapped[str] = mapped_column(String(20), default="open")  # open | closed
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    closed_by: Mapped[str | None] = mapped_column(String(200))
    resolution: Mapped[str | None] = mapped_column(Text)
    webhook_status: Mapped[str | None] = mapped_column(String(100))


class ContentGap(Base):
    __tablename__ = "content_gaps"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    question_key: Mapped[str] = mapped_column(String(500), unique=True, index=True)
    question: Mapped[str] = mapped_column(Text)
    count: Mapped[int] = mapped_column(Integer, default=1)
    last_outcome: Mapped[str] = mapped_column(String(40))
    closest_sources: Mapped[list[str]] = mapped_column(JSON, default=list)
    max_access_level: Mapped[str | None] = mapped_column(String(50))
    last_reason: Mapped[str | None] = mapped_column(String(40))
    # The latest "what the documents would need to say", and the highest level among the
    # documents retrieved for that ask (the text may draw on any of them).
    last_missing: Mapped[str | None] = mapped_column(Text)
    missing_access_level: Mapped[str | None] = mapped_column(String(50))
    # The trace of the ask that wrote ``last_missing``: the text is shown only to who may read
    # everything it names (api/trace_access.py); none recorded, it is withheld.
    missing_trace_id: Mapped[str | None] = mapped_column(String(36))
    first_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # open | closed: closed when an ingest made the documents cover it (api/gaps.py).
    state: Mapped[str] = mapped_column(String(20), default="open", index=True)
    # The first asking's question vector (the query encoder's, unit length): near-duplicate
    # questions merge into this gap by cosine (DOCENT_GAP_MERGE_SIMILARITY).
    # none_as_null: a gap without a vector (one a handoff became) is SQL NULL, not JSON null,
    # so ``question_vector IS NOT NULL`` leaves it out of the merge search.
    question_vector: Mapped[list[float] | None] = mapped_column(JSON(none_as_null=True))
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    closed_source: Mapped[str | None] = mapped_column(String(1000))  # the document covering it
    closed_job: Mapped[str | None] = mapped_column(String(36))  # the ingest job after which


# --- the asker's side of a handoff (issue 24): reply notices, linked document, gap ---------


class HandoffFollowUp(Base):
    """What happened to a handoff after it was made, one row per handoff: the document its
    replier linked as the answer, when the asker first read the reply (``NULL``: unread, the
    nav's badge), how the e-mail and webhook notices went, and the content gap it was turned
    into. Its own table so the ``handoffs`` rows stay as they were (``api.handoff_replies``)."""

    __tablename__ = "handoff_follow_ups"
    handoff_id: Mapped[int] = mapped_column(
        ForeignKey("handoffs.id", ondelete="CASCADE"), primary_key=True
    )
    answer_source: Mapped[str | None] = mapped_column(String(1000))
    reply_read_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    email_status: Mapped[str | None] = mapped_column(String(100))
    webhook_status: Mapped[str | None] = mapped_column(String(100))
    gap_id: Mapped[int | None] = mapped_column(Integer)  # content_gaps.id, no key: see 0005
    gap_recorded_by: Mapped[str | None] = mapped_column(String(200))
    gap_recorded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


def document_summary(row: Document, readable: Container[str] | None = None) -> dict[str, Any]:
    """A document as ``GET /api/documents``, ``docent docs list|show --json`` and the
    ingestor's listing show it (one serialiser: tests/docent/test_views.py). A retired document
    says so in its status. ``readable``: the sources the viewer may read, when not all — a
    successor or predecessor outside it is not named (the successor's status stays)."""

    def named(source: str | None) -> bool:
        return bool(source) and (readable is None or source in readable)

    return {
        "source": row.source,
        "doc_id": row.doc_id,
        "title": row.title,
        "status": "retired" if row.retired else row.status,
        "effective_date": row.effective_date.isoformat() if row.effective_date else None,
        "superseded_by": row.superseded_by if named(row.superseded_by) else None,
        "supersedes": [s for s in row.supersedes or () if named(s)],
        "access_level": row.access_level,
        "groups": list(row.groups or ()),
        "owner": row.owner,
        "doc_type": row.doc_type,
        "chunk_count": row.chunk_count,
        "version": row.version,
        "content_hash": row.content_hash,
        "retired": bool(row.retired),
        "updated_at": row.updated_at.isoformat() if row.updated_at else None,
    }


# --- issue 24: content gaps that are real ----------------------------------------------------


class ContentGapAsk(Base):
    """One ask counted in a content gap, by its trace: the asker marking one of that ask's
    closest passages "this answered it" takes it out of the gap again (api/gaps.py)."""

    __tablename__ = "content_gap_asks"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    gap_id: Mapped[int] = mapped_column(
        ForeignKey("content_gaps.id", ondelete="CASCADE"), index=True
    )
    trace_id: Mapped[str] = mapped_column(String(36), unique=True)
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuditEntry(Base):
    """One change to a user or an API token (``api.audit``): who made it (a user name, or
    ``cli:<os user>``), what, to whom, when, and the changed fields before and after.

    ``before`` and ``after`` never hold a password, a password hash or a token's secret: a
    token is named by its prefix."""

    __tablename__ = "audit_log"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    actor: Mapped[str] = mapped_column(String(250))
    action: Mapped[str] = mapped_column(String(60))
    target: Mapped[str] = mapped_column(String(200), index=True)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
