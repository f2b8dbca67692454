"""Content gaps under concurrent askers: many people asking the same new question at once
each count once, with no error (a select-then-insert let the second insert fail on the
unique key: a 500 seen under benchmarks/load.py), on SQLite and on PostgreSQL."""

from __future__ import annotations

import threading

import pytest
from sqlalchemy import select

from api.gaps import record_gap
from docent.access import DEFAULT_LEVELS
from docent.db.models import ContentGap
from docent.db.session import make_engine, migrate, session_factory, session_scope

pytestmark = pytest.mark.integration

ASKERS = 8


def test_simultaneous_askers_of_a_new_question_each_count(database_url: str) -> None:
    migrate(database_url)
    engine = make_engine(database_url)
    sessions = session_factory(engine)
    start = threading.Barrier(ASKERS)
    failures: list[BaseException] = []

    def ask() -> None:
        try:
            start.wait(timeout=30)
            with session_scope(sessions) as session:
                record_gap(
                    session,
                    "Can I bring my dog to the office?",
                    "insufficient_evidence",
                    [],
                    DEFAULT_LEVELS,
                    reason="below_threshold",
                )
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            failures.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(ASKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    try:
        assert failures == []
        with session_scope(sessions) as session:
            (gap,) = session.execute(select(ContentGap)).scalars()
            assert (gap.count, gap.question_key) == (ASKERS, "can i bring my dog to the office")
            assert gap.last_reason == "below_threshold"
    finally:
        engine.dispose()
