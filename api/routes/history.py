"""A person's own questions and what came of them (``api.history``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

from api.deps import AskerDep, DbDep, SettingsDep
from api.handoff_replies import unread_replies
from api.history import HISTORY_LIMIT, HISTORY_MAX, history_entry, history_of

router = APIRouter(tags=["history"])


@router.get("/api/history", summary="My last questions, their answers and replies (asker)")
def history(
    user: AskerDep,
    db: DbDep,
    settings: SettingsDep,
    limit: Annotated[int, Query(ge=1, le=HISTORY_MAX)] = HISTORY_LIMIT,
) -> dict[str, Any]:
    return {
        "asks": history_of(db, user, settings.access_levels, limit),
        "unread_replies": unread_replies(db, user.username),
    }


@router.get("/api/history/{trace_id}", summary="One of my questions (asker)")
def history_one(
    trace_id: Annotated[str, Path(max_length=64)],
    user: AskerDep,
    db: DbDep,
    settings: SettingsDep,
) -> dict[str, Any]:
    return history_entry(db, user, trace_id, settings.access_levels)
