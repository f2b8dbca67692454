"""Users and tokens over the database, and the ``docent users``/``docent demo`` commands
run as real subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from api.admin import revoke
from api.audit import Actor
from api.users import add_user, check_password, issue_token, list_users, user_for_token
from docent.db.session import make_engine, migrate, session_factory, session_scope
from docent.errors import Conflict, InvalidInput, NotFound
from tests.api.corpus import write_corpus

LEVELS = ("public", "employee", "confidential", "restricted")


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    migrate(database_url)
    engine = make_engine(database_url)
    yield session_factory(engine)
    engine.dispose()  # before ``pg_url`` drops the database under its pooled connection


def test_users_tokens_and_revocation(sessions: sessionmaker[Session]) -> None:
    with session_scope(sessions) as db:
        add_user(
            db, "ada", clearance="employee", levels=LEVELS, roles=["asker"], password="password-1"
        )
        with pytest.raises(Conflict):
            add_user(db, "ada", clearance="employee", levels=LEVELS)
        with pytest.raises(InvalidInput, match="clearance"):
            add_user(db, "bob", clearance="galactic", levels=LEVELS)
        with pytest.raises(InvalidInput, match="unknown role"):
            add_user(db, "bob", clearance="employee", levels=LEVELS, roles=["wizard"])
        with pytest.raises(InvalidInput, match="not allowed"):
            add_user(db, "bad name!", clearance="employee", levels=LEVELS)
        assert check_password(db, "ada", "password-1") is not None
        assert check_password(db, "ada", "password-2") is None
        first, second = issue_token(db, "ada"), issue_token(db, "ada")
    with session_scope(sessions) as db:
        assert user_for_token(db, first).username == "ada"  # type: ignore[union-attr]
        prefix = first.split("_")[1]
        assert revoke(db, Actor.cli(), prefix) == f"revoked token {prefix}"
    with session_scope(sessions) as db:
        assert user_for_token(db, first) is None
        assert user_for_token(db, second) is not None
        assert "disabled user ada and revoked 1 token" in revoke(db, Actor.cli(), "ada")
    with session_scope(sessions) as db:
        assert user_for_token(db, second) is None
        assert check_password(db, "ada", "password-1") is None
        assert [u.disabled for u in list_users(db)] == [True]
        with pytest.raises(NotFound):
            revoke(db, Actor.cli(), "nobody")
        with pytest.raises(NotFound):
            issue_token(db, "ada")


def docent(args: list[str], data_dir: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCENT_DATA_DIR": str(data_dir), "DOCENT_ENV": "test"}
    return subprocess.run(
        [sys.executable, "-c", "from docent.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


@pytest.mark.integration
def test_users_commands(tmp_path: Path) -> None:
    added = docent(
        ["users", "add", "ada", "--clearance", "employee", "--groups", "legal,finance",
         "--roles", "asker,editor", "--password-stdin"],
        tmp_path,
        stdin="s3cret-pass\n",
    )  # fmt: skip
    assert added.returncode == 0, added.stderr
    assert "added ada: clearance employee, roles asker,editor, groups finance,legal" in added.stdout
    bad = docent(["users", "add", "bob", "--clearance", "cosmic"], tmp_path)
    assert bad.returncode == 1 and "clearance 'cosmic'" in bad.stderr
    token = docent(["users", "token", "ada"], tmp_path)
    plain = token.stdout.strip()
    assert token.returncode == 0 and plain.startswith("dct_") and "Shown once" in token.stderr
    listed = docent(["users", "list"], tmp_path)
    assert "ada" in listed.stdout and plain.split("_")[1] in listed.stdout
    assert plain not in listed.stdout
    revoked = docent(["users", "revoke", plain.split("_")[1]], tmp_path)
    assert revoked.returncode == 0 and "revoked token" in revoked.stdout
    disabled = docent(["users", "revoke", "ada"], tmp_path)
    assert "disabled user ada" in disabled.stdout
    assert "(disabled)" in docent(["users", "list"], tmp_path).stdout


@pytest.mark.integration
@pytest.mark.slow
def test_demo_ingests_creates_users_and_says_how_to_sign_in(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    result = docent(["demo", "--corpus", str(corpus), "--no-serve"], tmp_path / "data")
    assert result.returncode == 0, result.stderr
    assert "succeeded, 7 documents" in result.stdout
    for name in ("ada", "cy", "eddie", "otto", "admin"):
        assert f"\n  {name}" in result.stdout
    assert "Sign in at http://127.0.0.1:8000/" in result.stdout
    again = docent(["demo", "--corpus", str(corpus), "--no-serve"], tmp_path / "data")
    assert again.returncode == 0 and "7 unchanged" in again.stdout


@pytest.mark.integration
def test_demo_with_a_bad_answerer_fit_stops_before_the_ingest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = write_corpus(tmp_path / "corpus")
    monkeypatch.setenv("DOCENT_ANSWERER_FIT", str(tmp_path / "missing.json"))
    result = docent(["demo", "--corpus", str(corpus), "--no-serve"], tmp_path / "data")
    assert result.returncode == 1
    assert "missing.json: cannot read it" in result.stderr and "Traceback" not in result.stderr
    assert "Ingesting" not in result.stdout  # nothing was embedded on a fit that cannot run


def test_a_token_records_its_use_at_most_once_a_minute(sessions: sessionmaker[Session]) -> None:
    """A write on every request queued every request behind an ingest's SQLite write lock."""
    from datetime import timedelta

    from docent.db.models import ApiToken

    with session_scope(sessions) as db:
        add_user(db, "tim", clearance="employee", levels=LEVELS, roles=["asker"])
        token = issue_token(db, "tim", "t")
    with session_scope(sessions) as db:
        assert user_for_token(db, token) is not None
        first = db.query(ApiToken).one().last_used_at
    assert first is not None
    with session_scope(sessions) as db:
        assert user_for_token(db, token) is not None
        assert not db.dirty  # nothing to write: used less than a minute ago
        assert db.query(ApiToken).one().last_used_at == first
    with session_scope(sessions) as db:
        row = db.query(ApiToken).one()
        row.last_used_at = first - timedelta(minutes=2)
    with session_scope(sessions) as db:
        assert user_for_token(db, token) is not None
        assert not db.dirty  # used two minutes ago: recorded again, and committed at once
    with session_scope(sessions) as db:
        assert db.query(ApiToken).one().last_used_at != first - timedelta(minutes=2)
