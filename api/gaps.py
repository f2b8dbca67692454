"""Content gaps: questions the documents do not cover, over the ``content_gaps`` table.

A question becomes a gap only when its ask ended ``insufficient_evidence`` with nothing the
asker may read clearing the relevance bar (tier ``not_covered``) *and* nothing clears it for
anyone at all: the question is searched again with every level and group (``everyone``).
So a permission refusal, where the matching passages exist above the asker, is never a gap,
for the asker, the docs team or an admin. Near-duplicate questions merge into one gap by
the cosine of their question vectors (``DOCENT_GAP_MERGE_SIMILARITY``). An ask whose
asker marks one of its closest passages "this answered it" is taken out of its gap again.
After every ingest job each open gap is searched again the same way; one that now has a
passage over the bar closes, naming the best such document (``recheck_open_gaps``).

What a viewer sees (``gap_view``): a gap whose closest documents are above them is left out
whole; its latest ``missing`` text needs everything that ask's trace names; a closed
gap is shown only to who may read the document that closed it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Protocol

import numpy as np
from sqlalchemy import delete, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from api.handoffs import level_now, normalise_question
from api.trace_access import trace_text_readable
from api.users import CurrentUser
from api.visibility import can_read_level, highest_level, readable_sources, sources_level
from docent.contracts import Hit, Principal
from docent.db.models import ContentGap, ContentGapAsk, Document, as_utc
from docent.db.session import session_scope
from retrieval.tokenize import STOP_WORDS

log = logging.getLogger("docent.api.gaps")
GAP_OUTCOME = "insufficient_evidence"
NOT_COVERED = "not_covered"
OPEN, CLOSED = "open", "closed"
EVERYONE = "content-gaps"  # the principal's name in the searcher's log lines


class HitsFinder(Protocol):
    """What searches a question (the root's ``Searcher``): its ``hits`` cleared the bar."""

    def search(self, query: str, principal: Principal) -> _Found: ...


class _Found(Protocol):
    @property
    def hits(self) -> Sequence[Hit]: ...


def everyone(session: Session, levels: Sequence[str]) -> Principal:
    """A principal who reads every document: the top level and every group in the registry.
    Used only to ask whether *any* passage matches, never to show one."""
    groups: set[str] = set()
    for row in session.execute(select(Document.groups)).scalars():
        groups.update(row or ())
    return Principal(EVERYONE, levels[-1], frozenset(groups))


def covering_source(finder: HitsFinder, question: str, reader: Principal) -> str | None:
    """The best document with a passage over the relevance bar for ``reader`` (``everyone``),
    or ``None``."""
    hits = finder.search(question, reader).hits
    best = min(hits, key=lambda h: h.rank) if hits else None
    return best.chunk.source if best else None


# Words that ask about nothing: "hello", "thanks", "test" typed into the box are no gap in
# the documents (a user pass found "hello" on the gaps page).
_SMALL_TALK = frozenset(
    """hello hi hey hiya yo thanks thank thx ty ok okay test testing ping good morning
    afternoon evening night bye goodbye cheers please help anyone there very much lot lol up
    sup""".split()
)
# Two letters or more: numbers ("testing 123") and a contraction's tail ("what's", "I'm")
# ask about nothing either.
_WORD = re.compile(r"[^\W\d_]{2,}")


def asks_about_something(question: str) -> bool:
    """Does the question hold a word beyond greetings, thanks and stop words?"""
    words = _WORD.findall(question.lower())
    return any(w not in _SMALL_TALK and w not in STOP_WORDS for w in words)


def is_gap_candidate(outcome: str, tier: str | None, question: str) -> bool:
    """The asker's side of the rule: a plain "the documents I may read do not cover it", to
    a question that asks about something."""
    return outcome == GAP_OUTCOME and tier == NOT_COVERED and asks_about_something(question)


def nearest(
    vector: Sequence[float], candidates: Sequence[tuple[int, Sequence[float]]]
) -> tuple[float, int] | None:
    """The candidate ``(id, vector)`` nearest ``vector`` by cosine, as ``(cosine, id)``;
    ``None`` without candidates. One matrix-vector product over the stacked vectors (one
    ask compares its question with every open gap's). A vector of another length, or of
    norm 0, scores 0; on equal cosines the highest id wins."""
    if not candidates:
        return None
    query = np.asarray(vector, dtype=np.float64)
    ids = np.array([gap_id for gap_id, _ in candidates], dtype=np.int64)
    scores = np.zeros(len(candidates), dtype=np.float64)
    same = [i for i, (_, row) in enumerate(candidates) if len(row) == len(query)]
    if same and len(query):
        rows = np.array([candidates[i][1] for i in same], dtype=np.float64)
        # einsum, not BLAS's matmul: its blocked kernels can give two identical rows
        # different last bits, and an exact tie must go to the highest id every time.
        dots = np.einsum("ij,j->i", rows, query)
        norms = np.linalg.norm(rows, axis=1) * np.linalg.norm(query)
        scores[same] = np.divide(dots, norms, out=np.zeros_like(dots), where=norms != 0)
    scores[np.isnan(scores)] = -np.inf  # a broken (NaN) vector never merges
    best = scores.max()
    return float(best), int(ids[scores == best].max())


def _similar_open_gap(
    session: Session, key: str, vector: Sequence[float], threshold: float
) -> int | None:
    """The open gap whose first question is nearest ``vector``, if it reaches ``threshold``."""
    rows = session.execute(
        select(ContentGap.id, ContentGap.question_vector).where(
            ContentGap.state == OPEN,
            ContentGap.question_key != key,
            ContentGap.question_vector.is_not(None),
        )
    ).all()
    best = nearest(vector, [(row.id, row.question_vector) for row in rows])
    return best[1] if best is not None and best[0] >= threshold else None


def record_gap(
    session: Session,
    question: str,
    outcome: str,
    closest_sources: Sequence[str],
    levels: Sequence[str],
    *,
    reason: str | None = None,
    missing: str | None = None,
    retrieved_sources: Sequence[str] = (),
    vector: Sequence[float] | None = None,
    merge_similarity: float = 1.0,
    trace_id: str | None = None,
    missing_trace_id: str | None = None,
) -> ContentGap:
    """Count one more asking of a gap (sources are those the asker could see), keeping the
    latest reason and ``missing`` text; that text is shown only to viewers who may read
    everything the ask it came from names: ``trace_id``'s, the ask counted here, or
    ``missing_trace_id``'s (a handoff's ask, not counted again). With ``vector``, an open
    gap whose question is at least ``merge_similarity`` close takes the count; else the gap
    of the same spelling (reopened if it had closed), else a new one. The caller decides it is a gap
    (``is_gap_candidate`` and ``covering_source``); a handoff turned into a gap calls this
    too."""
    key = normalise_question(question)
    level = highest_level([sources_level(session, closest_sources, levels), levels[0]], levels)
    missing_level = highest_level(
        [sources_level(session, [*closest_sources, *retrieved_sources], levels), levels[0]],
        levels,
    )
    gap_id = _similar_open_gap(session, key, vector, merge_similarity) if vector else None
    if gap_id is not None:
        _count_one_more(session, gap_id)
    else:
        gap_id = _insert_gap(session, key, question, vector)
    gap = session.get(ContentGap, gap_id, populate_existing=True)
    assert gap is not None  # inserted or found above, in this transaction
    if gap.state == CLOSED:
        gap.state, gap.closed_at, gap.closed_source, gap.closed_job = OPEN, None, None, None
    gap.last_outcome = outcome
    gap.last_seen = datetime.now(UTC)
    gap.closest_sources = list(dict.fromkeys([*gap.closest_sources, *closest_sources]))[:10]
    gap.max_access_level = highest_level([gap.max_access_level, level], levels)
    gap.last_reason = reason
    gap.last_missing = missing
    gap.missing_access_level = missing_level
    gap.missing_trace_id = trace_id or missing_trace_id
    if trace_id:
        session.add(ContentGapAsk(gap_id=gap.id, trace_id=trace_id))
    session.flush()
    return gap


def _insert_gap(session: Session, key: str, question: str, vector: Sequence[float] | None) -> int:
    """The id of the gap of this spelling, counted once more. Insert-or-nothing, then an
    update in SQL: two people asking the same new question at once both count (a
    select-then-insert lets the second insert fail on the unique key, a 500)."""
    now = datetime.now(UTC)
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    inserted = session.execute(
        insert(ContentGap)
        .values(
            question_key=key,
            question=question.strip(),
            count=1,
            last_outcome=GAP_OUTCOME,
            closest_sources=[],
            state=OPEN,
            question_vector=[float(x) for x in vector] if vector is not None else None,
            first_seen=now,
            last_seen=now,
        )
        .on_conflict_do_nothing(index_elements=[ContentGap.question_key])
        .returning(ContentGap.id)
    ).scalar_one_or_none()
    if inserted is not None:
        return int(inserted)
    gap_id = session.execute(
        select(ContentGap.id).where(ContentGap.question_key == key)
    ).scalar_one()
    _count_one_more(session, gap_id)
    return int(gap_id)


def _count_one_more(session: Session, gap_id: int) -> None:
    # The count is raised in SQL, so concurrent askers never lose one.
    session.execute(
        update(ContentGap).where(ContentGap.id == gap_id).values(count=ContentGap.count + 1)
    )


def forget_answered_ask(session: Session, trace_id: str) -> None:
    """The asker found the answer in a closest passage of this ask: it was no gap. Its gap
    counts one fewer, and goes when no asking of it is left."""
    ask = session.execute(
        select(ContentGapAsk).where(ContentGapAsk.trace_id == trace_id)
    ).scalar_one_or_none()
    if ask is None:
        return
    gap_id = ask.gap_id
    session.delete(ask)
    session.execute(
        update(ContentGap).where(ContentGap.id == gap_id).values(count=ContentGap.count - 1)
    )
    left = session.execute(select(ContentGap.count).where(ContentGap.id == gap_id)).scalar()
    if left is not None and left <= 0:
        session.execute(delete(ContentGapAsk).where(ContentGapAsk.gap_id == gap_id))
        session.execute(delete(ContentGap).where(ContentGap.id == gap_id))
    session.flush()


def recheck_open_gaps(
    sessions: sessionmaker[Session],
    finder: Callable[[], HitsFinder],
    levels: Sequence[str],
    *,
    job_id: str | None = None,
) -> list[int]:
    """Search every open gap's question again (after an ingest job ended) and close each one
    a passage now clears the relevance bar for, naming that passage's document. The same
    test as when the gap was recorded: a gap is a question nothing matches for anyone, so it
    closes when something does (tier ``answer`` or ``probably_here`` for who may read it).
    ``finder`` gives the searcher, built only when there is an open gap (a ``docent ingest``
    with none loads no query encoder). Returns the ids closed."""
    with session_scope(sessions) as session:
        open_gaps = session.execute(
            select(ContentGap.id, ContentGap.question).where(ContentGap.state == OPEN)
        ).all()
        # Once for every gap: it reads every document's groups.
        reader = everyone(session, levels) if open_gaps else None
    if reader is None:
        return []
    search, closed = finder(), []
    for gap_id, question in open_gaps:
        source = covering_source(search, question, reader)
        with session_scope(sessions) as session:
            gap = session.get(ContentGap, gap_id)
            if source is None or gap is None or gap.state != OPEN:
                continue
            gap.state, gap.closed_source, gap.closed_job = CLOSED, source, job_id
            gap.closed_at = datetime.now(UTC)
            closed.append(gap_id)
    if closed:
        log.info("content gaps closed by ingest", extra={"job_id": job_id, "gaps": closed})
    return closed


def gap_view(
    session: Session, user: CurrentUser, gap: ContentGap, levels: Sequence[str]
) -> dict[str, object] | None:
    """The gap as this viewer may see it; ``None`` when its question came with documents
    above their clearance, or it closed on a document they may not read (left out whole)."""
    if not can_read_level(user, level_now(session, gap, levels), levels):
        return None
    answered_by = None
    if gap.state == CLOSED:
        found = readable_sources(session, user, [gap.closed_source or ""], levels)
        if not found:
            return None
        answered_by = found[0]
    missing_level = level_now(session, gap, levels, stored=gap.missing_access_level)
    missing_ok = can_read_level(user, missing_level, levels) and trace_text_readable(
        session, user, gap.missing_trace_id, levels
    )
    return {
        "id": gap.id,
        "question": gap.question,
        "count": gap.count,
        "last_outcome": gap.last_outcome,
        "last_reason": gap.last_reason,
        "last_missing": gap.last_missing if missing_ok else None,
        "missing_withheld": gap.last_missing is not None and not missing_ok,
        "closest_sources": readable_sources(session, user, gap.closest_sources, levels),
        "first_seen": as_utc(gap.first_seen).isoformat(),
        "last_seen": as_utc(gap.last_seen).isoformat(),
        "state": gap.state,
        "closed_at": as_utc(gap.closed_at).isoformat() if gap.closed_at else None,
        "answered_by": answered_by,
    }


def gaps_for(
    session: Session,
    user: CurrentUser,
    levels: Sequence[str],
    limit: int = 200,
    *,
    state: str = OPEN,
) -> list[dict[str, object]]:
    """Open gaps ranked by how often they were asked, or closed ones latest first (each as
    ``gap_view`` shows it to ``user``)."""
    query = select(ContentGap).where(ContentGap.state == state)
    if state == OPEN:
        query = query.order_by(ContentGap.count.desc(), ContentGap.last_seen.desc())
    else:
        query = query.order_by(ContentGap.closed_at.desc(), ContentGap.id.desc())
    out: list[dict[str, object]] = []
    for gap in session.execute(query).scalars():
        view = gap_view(session, user, gap, levels)
        if view is not None:
            out.append(view)
        if len(out) >= limit:
            break
    return out
