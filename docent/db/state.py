"""The index version counter: one row, bumped on every change to the index, read by every
long-lived searcher to notice new ingests without a restart."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from docent.db.models import IndexState, utcnow


def _row(session: Session) -> IndexState:
    row = session.get(IndexState, 1)
    if row is None:
        row = IndexState(id=1, index_version=0)
        session.add(row)
        session.flush()
    return row


def index_version(session: Session) -> int:
    value = session.execute(select(IndexState.index_version).where(IndexState.id == 1)).scalar()
    return int(value or 0)


def bump_index_version(session: Session) -> int:
    """Increase the counter by one inside the caller's transaction and return the new value."""
    _row(session)
    session.execute(
        update(IndexState)
        .where(IndexState.id == 1)
        .values(index_version=IndexState.index_version + 1, updated_at=utcnow())
    )
    return index_version(session)
