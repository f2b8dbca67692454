"""The feedback table on SQLite and PostgreSQL: one verdict per (trace, asker, passage), a
second replacing the first even when clicks race; verdicts read back with their asks."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session, sessionmaker

from docent.db.feedback import feedback_on, judged_asks, record_feedback
from docent.db.models import TraceRecord
from docent.db.session import make_engine, migrate, session_factory, session_scope

pytestmark = pytest.mark.integration

TRACE = "5b0c7a58-3f5e-4b7e-9d0f-0a1b2c3d4e5f"
CLICKERS = 6


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(database_url)
    engine = make_engine(database_url)
    factory = session_factory(engine)
    with session_scope(factory) as db:
        db.add(
            TraceRecord(
                id=TRACE,
                user_id="ada",
                question="How many days may I work from home?",
                outcome="answered",
                index_version=1,
                payload={"outcome": {"kind": "answered", "citations": []}},
            )
        )
    try:
        yield factory
    finally:
        engine.dispose()


def test_a_second_verdict_replaces_the_first_per_passage(sessions: sessionmaker[Session]) -> None:
    then = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
    with session_scope(sessions) as db:
        record_feedback(db, trace_id=TRACE, user_id="ada", verdict="answered", now=then)
        record_feedback(db, trace_id=TRACE, user_id="ada", verdict="answered", chunk_id="a.md#1")
    with session_scope(sessions) as db:
        replaced = record_feedback(
            db, trace_id=TRACE, user_id="ada", verdict="not_answered", comment="old rule"
        )
    assert (replaced.verdict, replaced.comment, replaced.chunk_id) == (
        "not_answered",
        "old rule",
        None,
    )
    assert replaced.created_at > then
    with session_scope(sessions) as db:
        stored = {(v.chunk_id, v.verdict) for v in feedback_on(db, TRACE)}
    assert stored == {(None, "not_answered"), ("a.md#1", "answered")}
    with pytest.raises(ValueError, match="verdict"), session_scope(sessions) as db:
        record_feedback(db, trace_id=TRACE, user_id="ada", verdict="maybe")


def test_racing_clicks_leave_one_verdict(sessions: sessionmaker[Session]) -> None:
    start = threading.Barrier(CLICKERS)
    failures: list[BaseException] = []

    def click(n: int) -> None:
        try:
            start.wait(timeout=30)
            with session_scope(sessions) as db:
                verdict = "answered" if n % 2 else "not_answered"
                record_feedback(db, trace_id=TRACE, user_id="ada", verdict=verdict)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            failures.append(exc)

    threads = [threading.Thread(target=click, args=(n,)) for n in range(CLICKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert failures == []
    with session_scope(sessions) as db:
        assert len(feedback_on(db, TRACE)) == 1


def test_verdicts_read_back_with_their_asks_since_a_date(sessions: sessionmaker[Session]) -> None:
    day = datetime(2026, 3, 1, tzinfo=UTC)
    with session_scope(sessions) as db:
        record_feedback(db, trace_id=TRACE, user_id="ada", verdict="answered", now=day)
        record_feedback(
            db,
            trace_id=TRACE,
            user_id="ada",
            verdict="answered",
            chunk_id="a.md#2",
            now=day + timedelta(days=2),
        )
    with session_scope(sessions) as db:
        everything = judged_asks(db)
        later = judged_asks(db, since=day + timedelta(days=1))
    assert [j.verdict.chunk_id for j in everything] == [None, "a.md#2"]
    assert everything[0].question == "How many days may I work from home?"
    assert everything[0].payload["outcome"]["kind"] == "answered"
    assert [j.verdict.chunk_id for j in later] == ["a.md#2"]
