"""What askers said about each document, for the docs team: the "this answered it" / "it
did not" verdicts (``docent.db.feedback``) on answers that cited a document and on closest
passages of it, counted per document, with the latest questions and comments.

Only what the viewer may read: a document above them is left out, and a verdict is shown
(and counted) only when the viewer may read everything its ask showed (``trace_readable``:
the trace's levels and groups, and every document it names as the registry is now).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy.orm import Session

from api.trace_access import trace_readable
from api.users import CurrentUser
from api.visibility import documents_by_source, readable_sources
from docent.db.feedback import ANSWERED, JudgedAsk, citations_of, judged_asks, offered_passages
from docent.db.models import as_utc

LATEST = 10  # verdicts listed under each document, newest first


def judged_sources(ask: JudgedAsk) -> list[str]:
    """The documents a verdict is about: the passage's, or every document the answer cited."""
    chunk_id = ask.verdict.chunk_id
    if chunk_id is None:
        return list(dict.fromkeys(str(c.get("source")) for c in citations_of(ask.payload)))
    offered = offered_passages(ask.payload).get(chunk_id) or {}
    return [str(offered.get("source") or chunk_id.rpartition("#")[0])]


def feedback_by_document(
    session: Session, user: CurrentUser, levels: Sequence[str]
) -> list[dict[str, Any]]:
    """One row per document the viewer may read that has verdicts they may read, the most
    "it did not" first: ``{source, title, answered, not_answered, latest: [...]}``."""
    rows: dict[str, dict[str, Any]] = {}
    for ask in reversed(judged_asks(session)):  # newest first
        trace = {"payload": ask.payload, "max_access_level": ask.max_access_level}
        if not trace_readable(session, user, trace, tuple(levels)):
            continue
        for source in readable_sources(session, user, judged_sources(ask), levels):
            row = rows.setdefault(
                source, {"source": source, "answered": 0, "not_answered": 0, "latest": []}
            )
            row["answered" if ask.verdict.verdict == ANSWERED else "not_answered"] += 1
            if len(row["latest"]) < LATEST:
                row["latest"].append(
                    {
                        "question": ask.question,
                        "verdict": ask.verdict.verdict,
                        "on": "answer" if ask.verdict.chunk_id is None else "passage",
                        "comment": ask.verdict.comment,
                        "created_at": as_utc(ask.verdict.created_at).isoformat(),
                    }
                )
    titles = {s: d.title for s, d in documents_by_source(session, rows).items()}
    out = [{**row, "title": titles.get(source)} for source, row in rows.items()]
    return sorted(out, key=lambda r: (-r["not_answered"], -r["answered"], r["source"]))
