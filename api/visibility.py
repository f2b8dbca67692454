"""The API's use of the one visibility rule (``docent.access.visible``): every endpoint that
returns document text asks these before it answers, whatever the caller's role."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.users import CurrentUser
from docent.access import level_rank, visible
from docent.contracts import Chunk
from docent.db.models import Document


def can_read(
    user: CurrentUser, access_level: str | None, groups: Iterable[str], levels: Sequence[str]
) -> bool:
    return visible(user.principal, access_level, groups, levels)


def can_read_chunk(user: CurrentUser, chunk: Chunk, levels: Sequence[str]) -> bool:
    return visible(user.principal, chunk.access_level, chunk.groups, levels)


def can_read_level(user: CurrentUser, access_level: str | None, levels: Sequence[str]) -> bool:
    """Level only (for records that carry a highest level but no groups); None = nothing shown."""
    if access_level is None:
        return True
    return visible(user.principal, access_level, (), levels)


def highest_level(found: Iterable[str | None], levels: Sequence[str]) -> str | None:
    """The highest known level among ``found``; an unknown level counts as the highest there is."""
    best: str | None = None
    for level in found:
        if level is None:
            continue
        rank = level_rank(level, levels)
        if rank is None:
            return levels[-1]
        if best is None or rank > (level_rank(best, levels) or 0):
            best = level
    return best


def documents_by_source(session: Session, sources: Iterable[str]) -> dict[str, Document]:
    wanted = sorted(set(sources))
    if not wanted:
        return {}
    rows = session.execute(select(Document).where(Document.source.in_(wanted))).scalars()
    return {doc.source: doc for doc in rows}


def readable_sources(
    session: Session, user: CurrentUser, sources: Iterable[str], levels: Sequence[str]
) -> list[str]:
    """The sources the user may see, in the given order; an unregistered source is hidden."""
    docs = documents_by_source(session, sources)
    out = []
    for source in sources:
        doc = docs.get(source)
        if doc is not None and can_read(user, doc.access_level, doc.groups, levels):
            out.append(source)
    return out


def sources_level(session: Session, sources: Iterable[str], levels: Sequence[str]) -> str | None:
    """Highest access level among the given documents (an unregistered one counts as highest)."""
    wanted = list(sources)
    docs = documents_by_source(session, wanted)
    found: list[str | None] = [docs[s].access_level if s in docs else levels[-1] for s in wanted]
    return highest_level(found, levels)
