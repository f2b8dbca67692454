"""The trace of one ask: built from an ``AskResult``, stored in the ``traces`` table, read back.

The payload holds ids, ranks, scores and the full prompt; it holds document text only inside
the prompt (which showed the asker nothing above their level). ``max_access_level`` and the
payload's ``access`` list (every distinct level/groups pair of the chunks it mentions) let a
reader be checked with the same visibility rule as the chunks themselves (``visible_to``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from docent.access import DEFAULT_LEVELS, level_rank, visible
from docent.contracts import Hit, Principal
from docent.db.models import TraceRecord
from docent.db.session import session_scope
from docent.views import passage_ref
from generate.errors import TraceNotFound, TraceStoreUnavailable
from generate.outcomes import outcome_to_dict

if TYPE_CHECKING:
    from generate.result import AskResult


def hit_record(hit: Hit, stages: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    chunk = hit.chunk
    return {
        **passage_ref(chunk),
        "access_level": chunk.access_level,
        "groups": list(chunk.groups),
        "rank": hit.rank,
        "score": hit.score,
        "bm25_rank": hit.bm25_rank,
        "vector_rank": hit.vector_rank,
        "fused_score": hit.fused_score,
        "rerank_score": hit.rerank_score,
        "best_sentence": hit.best_sentence,
        "stage_ranks": {
            stage: ids.index(chunk.chunk_id) + 1
            for stage, ids in stages.items()
            if chunk.chunk_id in ids
        },
    }


def highest_level(hits: Sequence[Hit], levels: Sequence[str]) -> str | None:
    ranked = [(level_rank(h.chunk.access_level, levels), h.chunk.access_level) for h in hits]
    known = [(rank, name) for rank, name in ranked if rank is not None]
    return max(known)[1] if known else None


def access_pairs(hits: Sequence[Hit]) -> list[dict[str, Any]]:
    pairs = {(h.chunk.access_level, tuple(sorted(h.chunk.groups))) for h in hits}
    return [{"level": level, "groups": list(groups)} for level, groups in sorted(pairs)]


def trace_payload(result: AskResult, tier: str | None = None) -> dict[str, Any]:
    """``tier``: what the asker saw first (``generate.ask.tier_of``), for their history."""
    mentioned = (*result.hits, *result.cut)
    stages = {name: list(ids) for name, ids in result.stages.items()}
    prompt = result.prompt
    generation = result.generation
    return {
        "question": result.question,
        "principal": {
            "user_id": result.principal.user_id,
            "clearance": result.principal.clearance,
            "groups": sorted(result.principal.groups),
        },
        "index_version": result.index_version,
        "scope": result.scope,
        "hits": [hit_record(hit, stages) for hit in result.hits],
        "cut": [hit_record(hit, stages) for hit in result.cut],
        "chunks_dropped": prompt.chunks_dropped if prompt else 0,
        "block_ids": list(prompt.block_ids) if prompt else [],
        "system_prompt": prompt.system if prompt else None,
        "user_prompt": prompt.user if prompt else None,
        "backend": result.backend,
        "model": generation.model if generation else None,
        "raw_output": generation.raw_output if generation else None,
        "usage": (
            {
                "prompt_tokens": generation.usage.prompt_tokens,
                "completion_tokens": generation.usage.completion_tokens,
                "total_tokens": generation.usage.total_tokens,
                "calls": generation.usage.calls,
            }
            if generation
            else None
        ),
        "backend_notes": list(generation.notes) if generation else [],
        "model_outcome": outcome_to_dict(generation.outcome) if generation else None,
        "outcome": outcome_to_dict(result.outcome),
        "tier": tier,
        "reason": result.reason,
        "checks": [check.to_dict() for check in result.checks],
        "timings_ms": dict(result.timings_ms),
        "handoff": result.handoff.to_dict() if result.handoff else None,
        "max_access_level": highest_level(mentioned, result.levels),
        "access": access_pairs(mentioned),
    }


def save_trace(
    sessions: sessionmaker[Session], result: AskResult, *, tier: str | None = None
) -> None:
    payload = trace_payload(result, tier)
    record = TraceRecord(
        id=result.trace_id,
        user_id=result.principal.user_id,
        question=result.question,
        outcome=result.outcome.kind,
        index_version=result.index_version,
        max_access_level=payload["max_access_level"],
        payload=payload,
    )
    try:
        with session_scope(sessions) as session:
            session.add(record)
    except SQLAlchemyError as exc:
        raise TraceStoreUnavailable(
            f"could not store trace {result.trace_id}: {exc.__class__.__name__}"
        ) from exc


def load_trace(
    sessions: sessionmaker[Session],
    trace_id: str,
    principal: Principal | None = None,
    levels: Sequence[str] = DEFAULT_LEVELS,
) -> dict[str, Any]:
    """A stored trace as a dict. With ``principal``, a trace mentioning any chunk that
    principal may not read is reported as not found (the same answer as a missing id)."""
    try:
        with session_scope(sessions) as session:
            record = session.get(TraceRecord, trace_id)
            if record is None:
                raise TraceNotFound(f"no trace with id {trace_id!r}")
            data = {
                "trace_id": record.id,
                "created_at": record.created_at.isoformat() if record.created_at else None,
                "user_id": record.user_id,
                "question": record.question,
                "outcome": record.outcome,
                "index_version": record.index_version,
                "max_access_level": record.max_access_level,
                "payload": dict(record.payload or {}),
            }
    except SQLAlchemyError as exc:
        raise TraceStoreUnavailable(
            f"could not read trace {trace_id}: {exc.__class__.__name__}"
        ) from exc
    if principal is not None and not visible_to(data, principal, levels):
        raise TraceNotFound(f"no trace with id {trace_id!r}")
    return data


def visible_to(trace: Mapping[str, Any], principal: Principal, levels: Sequence[str]) -> bool:
    """True iff ``principal`` may read every chunk the trace mentions."""
    payload = trace.get("payload") or {}
    pairs = payload.get("access")
    if pairs is None:  # a trace without the list: judge by its highest level alone
        level = trace.get("max_access_level")
        return level is None or visible(principal, level, (), levels)
    return all(visible(principal, p["level"], p.get("groups") or (), levels) for p in pairs)
