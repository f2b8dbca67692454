"""Ask, the passage view and traces. Everything returned here passes the visibility rule
again for the caller, whatever produced it (the ask body: ``api.recheck``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from api.deps import AnyUserDep, AskerDep, DbDep, ServicesDep
from api.gaps import covering_source, everyone, is_gap_candidate, record_gap
from api.metrics import stage_timings
from api.passages import fetch_chunks, highlight_spans, passage_blocks, successor_passage
from api.ports import ask_json_of, asker_of
from api.recheck import recheck_ask
from api.trace_access import trace_readable
from api.users import CurrentUser
from api.visibility import can_read_chunk, readable_sources
from docent.db.session import session_scope
from docent.errors import NotFound
from docent.views import chunk_json
from docent.wiring import Services

router = APIRouter(tags=["ask"])
log = logging.getLogger("docent.api.ask")


class AskRequest(BaseModel):
    question: str = Field(min_length=1, max_length=2000, description="The question, in words.")


def closest_sources(body: Mapping[str, Any], limit: int = 3) -> list[str]:
    """The handoff suggestion's source first, then the best retrieved sources."""
    out: list[str] = []
    hint = body.get("handoff")
    if isinstance(hint, Mapping):
        for key in ("source", "sources"):
            value = hint.get(key)
            values = value if isinstance(value, list) else [value]
            out.extend(str(v) for v in values if v)
    for key in ("retrieved", "hits", "cut"):
        for item in body.get(key) or []:
            if isinstance(item, Mapping) and item.get("source"):
                out.append(str(item["source"]))
    return list(dict.fromkeys(out))[:limit]


@router.post("/api/ask", summary="Ask a question (asker)")
def ask(
    payload: AskRequest, request: Request, user: AskerDep, services: ServicesDep, db: DbDep
) -> dict[str, Any]:
    asker = asker_of(services)
    start = time.perf_counter()
    result = asker.ask(payload.question.strip(), user.principal)
    body = recheck_ask(services, db, user, ask_json_of(result))
    total_s = time.perf_counter() - start
    outcome = str(body.get("outcome", "unknown"))
    timings = stage_timings(
        getattr(result, "timings_ms", None) or getattr(result, "timings", None) or {}
    )
    reason = body.get("reason_code")
    request.app.state.metrics.observe_ask(outcome, total_s, timings, reason=reason)
    if is_gap_candidate(outcome, body.get("tier"), payload.question):
        _record_if_real_gap(services, db, payload.question, body)
    log.info("ask", extra={"outcome": outcome, "reason": reason, "ms": round(total_s * 1000, 1)})
    return body


def _record_if_real_gap(
    services: Services, db: Session, question: str, body: Mapping[str, Any]
) -> None:
    """Nothing the asker may read matched; a gap only if nothing matches for anyone either.
    Otherwise the passages exist above the asker: a permission refusal, no gap for anyone."""
    levels = services.settings.access_levels
    if covering_source(services.searcher, question, everyone(db, levels)) is not None:
        return
    retrieved = [str(r["source"]) for r in body.get("retrieved") or [] if r.get("source")]
    record_gap(
        db,
        question,
        str(body.get("outcome")),
        closest_sources(body),
        levels,
        reason=body.get("reason_code"),
        missing=body.get("missing"),
        retrieved_sources=retrieved,
        vector=[float(x) for x in services.query_embedder.embed([question.strip()])[0]],
        merge_similarity=services.settings.gap_merge_similarity,
        trace_id=body.get("trace_id"),
    )


def passage_view(
    services: Services, user: CurrentUser, chunk_id: str, quote: str | None = None
) -> dict[str, Any]:
    levels = services.settings.access_levels
    chunk = fetch_chunks(services.index, [chunk_id]).get(chunk_id)
    # Hidden and missing are the same answer, word for word.
    if chunk is None or not can_read_chunk(user, chunk, levels):
        raise NotFound(f"no passage {chunk_id!r}")
    successor = chunk.superseded_by
    if successor:  # named only if readable: a successor above them stays nameless
        with session_scope(services.sessions) as db:
            successor = next(iter(readable_sources(db, user, [successor], levels)), None)
    readable = (
        [c for c in services.index.chunks_of(successor) if can_read_chunk(user, c, levels)]
        if successor
        else []
    )
    instead = successor_passage(chunk, readable)
    return {
        **chunk_json(chunk),
        "title": chunk.title,
        "superseded_by": successor,
        "superseded_by_passage": instead.chunk_id if instead else None,
        "owner": chunk.owner,
        "highlight": [{"text": t, "mark": m} for t, m in highlight_spans(chunk.text, quote)],
        "blocks": passage_blocks(chunk.text, quote),
    }


@router.get("/api/passages/{chunk_id:path}", summary="One passage, the quote highlighted (asker)")
def passage(
    chunk_id: str,
    user: AskerDep,
    services: ServicesDep,
    quote: str | None = Query(None, max_length=2000),
) -> dict[str, Any]:
    return passage_view(services, user, chunk_id, quote)


@router.get("/api/traces/{trace_id}", summary="What one ask did (its asker, or an admin)")
def trace(trace_id: str, user: AnyUserDep, services: ServicesDep, db: DbDep) -> dict[str, Any]:
    from generate.errors import TraceNotFound
    from generate.trace import load_trace

    try:
        # With the principal, a trace naming any chunk the viewer may not read is "not found".
        data = load_trace(
            services.sessions, trace_id, user.principal, services.settings.access_levels
        )
    except TraceNotFound:
        raise NotFound(f"no trace {trace_id!r}") from None
    if not (user.is_admin or data["user_id"] == user.username):
        raise NotFound(f"no trace {trace_id!r}")
    if not trace_readable(db, user, data, services.settings.access_levels):
        raise NotFound(f"no trace {trace_id!r}")
    return data
