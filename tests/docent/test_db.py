"""Migrations build exactly the tables the models describe, on SQLite and PostgreSQL."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from docent.db.models import Base
from docent.db.session import SCHEMA_HEAD, alembic_config, at_head, make_engine, migrate, redact


def test_migrations_match_models(database_url: str) -> None:
    migrate(database_url)
    migrate(database_url)  # idempotent
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
            assert diff == []
            assert set(Base.metadata.tables) <= set(inspect(conn).get_table_names())
    finally:
        engine.dispose()


def test_redact_hides_password() -> None:
    assert redact("postgresql://bob:hunter2@db/x") == "postgresql://bob:***@db/x"
    assert redact("sqlite:///x.db") == "sqlite:///x.db"


def test_migrate_creates_a_missing_data_dir(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"sqlite:///{tmp_path / 'not' / 'yet' / 'there.sqlite3'}"
    migrate(url)
    assert (tmp_path / "not" / "yet" / "there.sqlite3").exists()


def test_unreachable_database_is_a_clear_error() -> None:
    import pytest

    from docent.errors import Unavailable

    with pytest.raises(Unavailable, match=r"postgresql\+psycopg://nobody:\*\*\*@127.0.0.1:1/x"):
        migrate("postgresql+psycopg://nobody:pw@127.0.0.1:1/x")


def test_the_schema_head_is_alembics_and_read_from_the_database(database_url: str) -> None:
    from alembic.script import ScriptDirectory

    assert ScriptDirectory.from_config(alembic_config(database_url)).get_current_head() == (
        SCHEMA_HEAD
    )
    migrate(database_url)
    engine = make_engine(database_url)
    try:
        assert at_head(engine)
        with engine.begin() as conn:
            conn.exec_driver_sql("UPDATE alembic_version SET version_num = '0006'")
        assert not at_head(engine)  # one migration behind: Services will upgrade
    finally:
        engine.dispose()


def test_a_new_or_unreachable_database_is_not_at_head(tmp_path) -> None:  # type: ignore[no-untyped-def]
    fresh = make_engine(f"sqlite:///{tmp_path / 'new.sqlite3'}")
    gone = make_engine("postgresql+psycopg://nobody:pw@127.0.0.1:1/x")
    try:
        assert not at_head(fresh) and not at_head(gone)
    finally:
        fresh.dispose()
        gone.dispose()


def test_a_gaps_missing_text_is_tied_to_its_latest_asks_trace(database_url: str) -> None:
    """0008: a gap recorded from asks takes its latest counted ask's trace, which decides
    who may read its ``missing`` text (api/gaps.py); a gap whose text a handoff wrote has no
    trace to judge it by, so the text stays withheld."""
    from alembic import command

    command.upgrade(alembic_config(database_url), "0007")
    engine = make_engine(database_url)
    gap = (
        "INSERT INTO content_gaps (id, question_key, question, count, last_outcome,"
        " closest_sources, last_reason, last_missing, first_seen, last_seen, state)"
        " VALUES ({id}, '{key}', '{key}', 1, 'insufficient_evidence', '[]', '{reason}',"
        " 'words', '2026-12-01', '2026-12-01', 'open')"
    )
    ask = "INSERT INTO content_gap_asks (gap_id, trace_id, asked_at) VALUES ({}, '{}', '{}')"
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(gap.format(id=1, key="asked", reason="model_abstained"))
            conn.exec_driver_sql(gap.format(id=2, key="handed", reason="handed_off"))
            conn.exec_driver_sql(ask.format(1, "trace-old", "2026-12-01"))
            conn.exec_driver_sql(ask.format(1, "trace-new", "2026-12-02"))
            conn.exec_driver_sql(ask.format(2, "trace-asked-before", "2026-12-01"))
        migrate(database_url)
        with engine.connect() as conn:
            rows = conn.exec_driver_sql(
                "SELECT id, missing_trace_id FROM content_gaps ORDER BY id"
            ).all()
        assert [tuple(r) for r in rows] == [(1, "trace-new"), (2, None)]
    finally:
        engine.dispose()
