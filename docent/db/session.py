"""Engine, migrations and sessions. Built once at the edge and passed in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from docent.errors import Unavailable

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).parent / "migrations"
# The newest migration's revision (tests/docent/test_db.py holds it equal to alembic's head):
# a database already at it needs no upgrade, and reading its one version row costs far less
# than importing alembic and running the idempotent upgrade (~0.3 s of every cold start, a
# `docent ask` included, on a Zen 1 EPYC).
SCHEMA_HEAD = "0009"


def _ensure_sqlite_folder(url: str) -> None:
    if url.startswith("sqlite"):
        db_path = url.split("///", 1)[-1]
        if db_path and db_path != ":memory:":
            Path(db_path).parent.mkdir(parents=True, exist_ok=True)


def make_engine(url: str) -> Engine:
    _ensure_sqlite_folder(url)
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn, _record):  # type: ignore[no-untyped-def]
            # WAL lets the API read while an ingest writes; foreign keys are off by default.
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        return engine
    return create_engine(url, pool_pre_ping=True)


def at_head(engine: Engine) -> bool:
    """Whether the database's schema is the newest (no upgrade to run); False for a new or
    unreachable database, which ``migrate`` then creates or reports."""
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except SQLAlchemyError:
        return False
    return found == SCHEMA_HEAD


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the database to the newest schema (idempotent)."""
    from alembic import command

    _ensure_sqlite_folder(url)
    try:
        command.upgrade(alembic_config(url), "head")
    except SQLAlchemyError as exc:
        raise Unavailable(
            f"database at {redact(url)} is not reachable: {exc.__class__.__name__}"
        ) from exc


def redact(url: str) -> str:
    """A database URL without its password, for messages and logs."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


def session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def session_scope(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A transaction: commit on success, roll back on any error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()
