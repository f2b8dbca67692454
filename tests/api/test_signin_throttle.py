"""Password guessing through the sign-in form meets a lockout (429 with Retry-After) per user
name and per client address, counted in the real database (SQLite and PostgreSQL); an unknown
name gets the same answers as a real one; an old scrypt hash is replaced by argon2id at the
next sign-in. Time moves by a clock the test holds, never by sleeping."""

from __future__ import annotations

import json
import logging
import re
import statistics
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import select

from api.context import JsonFormatter
from api.routes.auth import get_signin_throttle
from api.signin_throttle import (
    SignInThrottle,
    Tally,
    ThrottlePolicy,
    after_failure,
    client_address,
)
from api.users import check_password
from docent.db.models import FailedSignIns as ThrottleRow
from docent.db.models import User
from docent.db.session import session_scope
from docent.settings import Settings
from tests.api.conftest import ApiEnv
from tests.api.corpus import USERS
from tests.api.test_security import legacy_scrypt_hash

RIGHT = USERS["ada"].password
GUESSES = 20
UNKNOWN = "nobody.at.all"


class StepClock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Throttled:
    env: ApiEnv
    clock: StepClock

    def client(self, address: str) -> TestClient:
        return TestClient(self.env.app, raise_server_exceptions=False, client=(address, 50000))

    def throttle(self) -> SignInThrottle:
        settings = self.env.services.settings
        return SignInThrottle(
            self.env.services.sessions,
            ThrottlePolicy.from_settings(settings),
            settings.secret_key.get_secret_value(),
            clock=self.clock,
        )


@pytest.fixture
def throttled(make_env: Callable[..., ApiEnv], database_url: str) -> Iterator[Throttled]:
    env = make_env(database_url=database_url)
    clock = StepClock()
    made = Throttled(env, clock)
    env.app.dependency_overrides[get_signin_throttle] = made.throttle
    yield made
    env.client.close()
    env.services.engine.dispose()


def sign_in(client: TestClient, name: str, password: str, html: bool = False) -> object:
    page = client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert csrf is not None
    return client.post(
        "/login",
        data={"username": name, "password": password, "csrf_token": csrf.group(1)},
        headers={"Accept": "text/html"} if html else {},
        follow_redirects=False,
    )


def answer(response: object, name: str) -> tuple[int, str | None, str]:
    """Status, Retry-After and body, with what differs by design taken out: the request id,
    and in the form page the name typed (it is kept in the field) and the CSRF token."""
    status = response.status_code  # type: ignore[attr-defined]
    text = re.sub(r'"request_id":"[^"]*"', '"request_id":"-"', response.text)  # type: ignore[attr-defined]
    text = re.sub(r'(name="csrf_token" value=|name="csrf-token" content=)"[^"]+"', r'\1"-"', text)
    return status, response.headers.get("retry-after"), text.replace(name, "NAME")  # type: ignore[attr-defined]


def guess_then_try_right(
    t: Throttled, name: str, address: str
) -> list[tuple[int, str | None, str]]:
    client = t.client(address)
    seen = [answer(sign_in(client, name, f"guess-{i}"), name) for i in range(GUESSES)]
    seen.append(answer(sign_in(client, name, RIGHT), name))
    return seen


def test_twenty_guesses_lock_the_name_and_the_right_password_waits(throttled: Throttled) -> None:
    known = guess_then_try_right(throttled, "ada", "10.9.0.1")
    unknown = guess_then_try_right(throttled, UNKNOWN, "10.9.0.2")
    assert [status for status, _, _ in known] == [401] * 4 + [429] * 17
    assert {retry for _, retry, _ in known[4:]} == {"60"}
    body = json.loads(known[4][2])
    assert body == {
        "error": {
            "code": "too_many_attempts",
            "message": "too many failed sign-ins; try again in 60 seconds",
            "request_id": "-",
        }
    }
    assert unknown == known  # same statuses, Retry-After and bytes: nothing tells them apart

    throttled.clock.advance(59)
    ada, nobody = throttled.client("10.9.0.1"), throttled.client("10.9.0.2")
    still = sign_in(ada, "ada", RIGHT)
    assert still.status_code == 429 and still.headers["retry-after"] == "1"  # type: ignore[attr-defined]
    assert answer(sign_in(nobody, UNKNOWN, RIGHT), UNKNOWN) == answer(still, "ada")

    throttled.clock.advance(1)
    signed_in = sign_in(ada, "ada", RIGHT)
    assert signed_in.status_code == 303  # type: ignore[attr-defined]
    assert ada.get("/api/me").json()["username"] == "ada"
    assert sign_in(nobody, UNKNOWN, RIGHT).status_code == 401  # type: ignore[attr-defined]


def test_a_success_clears_the_count_and_lockouts_in_a_row_double(throttled: Throttled) -> None:
    client = throttled.client("10.9.1.1")

    def statuses(guesses: int) -> list[tuple[int, str | None]]:
        answers = [sign_in(client, "Ada", f"wrong-{i}") for i in range(guesses)]  # any case
        return [(a.status_code, a.headers.get("retry-after")) for a in answers]  # type: ignore[attr-defined]

    assert statuses(5) == [(401, None)] * 4 + [(429, "60")]
    throttled.clock.advance(60)
    assert sign_in(client, "ada", RIGHT).status_code == 303  # type: ignore[attr-defined]
    client.cookies.clear()
    assert statuses(5) == [(401, None)] * 4 + [(429, "60")]  # counted from zero again
    throttled.clock.advance(60)
    assert statuses(5) == [(401, None)] * 4 + [(429, "120")]  # the second lockout in a row
    throttled.clock.advance(120)
    assert sign_in(client, "ada", RIGHT).status_code == 303  # type: ignore[attr-defined]


def test_one_address_guessing_many_names_is_locked(throttled: Throttled) -> None:
    names = ["ada", "cy", "eddie", UNKNOWN, "also.nobody"]
    client = throttled.client("10.9.2.1")
    answers = [sign_in(client, name, f"wrong-{i}") for name in names for i in range(4)]
    assert [a.status_code for a in answers] == [401] * 19 + [429]  # type: ignore[attr-defined]
    locked = sign_in(client, "otto", USERS["otto"].password)
    assert locked.status_code == 429 and locked.headers["retry-after"] == "60"  # type: ignore[attr-defined]
    elsewhere = sign_in(throttled.client("10.9.2.2"), "otto", USERS["otto"].password)
    assert elsewhere.status_code == 303  # type: ignore[attr-defined]


def test_the_sign_in_form_says_how_long_to_wait(throttled: Throttled) -> None:
    client = throttled.client("10.9.3.1")
    for i in range(5):
        page = sign_in(client, "ada", f"wrong-{i}", html=True)
    assert page.status_code == 429 and page.headers["retry-after"] == "60"  # type: ignore[attr-defined]
    text = page.text  # type: ignore[attr-defined]
    assert "Too many failed sign-ins. Try again in 60 seconds." in text
    assert 'name="password"' in text and 'value="ada"' in text  # the form, with the name kept
    throttled.clock.advance(30 * 60)
    assert sign_in(client, "ada", RIGHT, html=True).status_code == 303  # type: ignore[attr-defined]


def test_an_old_scrypt_hash_signs_in_and_is_stored_as_argon2id(throttled: Throttled) -> None:
    sessions = throttled.env.services.sessions
    old = legacy_scrypt_hash(RIGHT)
    with session_scope(sessions) as db:
        db.execute(select(User).where(User.username == "ada")).scalar_one().password_hash = old
    client = throttled.client("10.9.4.1")

    def stored() -> str:
        with session_scope(sessions) as db:
            row = db.execute(select(User).where(User.username == "ada")).scalar_one()
            return str(row.password_hash)

    assert sign_in(client, "ada", "not it").status_code == 401  # type: ignore[attr-defined]
    assert stored() == old  # a wrong password changes nothing
    assert sign_in(client, "ada", RIGHT).status_code == 303  # type: ignore[attr-defined]
    new = stored()
    assert new.startswith("$argon2id$v=19$m=19456,t=2,p=1$") and RIGHT not in new
    client.cookies.clear()
    assert sign_in(client, "ada", RIGHT).status_code == 303  # type: ignore[attr-defined]
    assert stored() == new  # already argon2id with today's parameters: not rehashed again


def test_the_log_says_who_and_where_but_never_the_password(throttled: Throttled) -> None:
    lines: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            lines.append(JsonFormatter().format(record))

    handler = Collect()
    logger = logging.getLogger("docent")
    logger.addHandler(handler)
    try:
        for name, address in (("ada", "10.9.5.1"), (UNKNOWN, "10.9.5.2")):
            client = throttled.client(address)
            for i in range(6):
                sign_in(client, name, f"SECRET-GUESS-{i}")
    finally:
        logger.removeHandler(handler)
    assert lines and not [line for line in lines if "SECRET-GUESS" in line]
    events = [json.loads(line) for line in lines if "sign-in" in line]
    locked = [e for e in events if e["msg"] == "sign-in refused: locked"]
    assert [(e["account"], e["address"], e["retry_after_s"]) for e in locked] == [
        ("ada", "10.9.5.1", 60),
        (None, "10.9.5.2", 60),  # a name that is no account is not logged: it may be a password
    ]
    assert [e["level"] for e in events].count("WARNING") == 4  # the lock, then the refusal


def test_failures_counted_by_many_at_once_are_all_counted(throttled: Throttled) -> None:
    """Threads over their own connections stand for API replicas sharing the database."""
    settings = throttled.env.services.settings
    wide = SignInThrottle(
        throttled.env.services.sessions,
        ThrottlePolicy(account_failures=100, address_failures=100),
        settings.secret_key.get_secret_value(),
        clock=throttled.clock,
    )
    start = threading.Barrier(8)

    def fail(i: int) -> None:
        start.wait(timeout=30)
        wide.failed("ada", f"10.9.6.{i}")

    threads = [threading.Thread(target=fail, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    with session_scope(throttled.env.services.sessions) as db:
        counts = sorted(db.execute(select(ThrottleRow.scope, ThrottleRow.failures)).all())
    assert counts == [("account", 8)] + [("address", 1)] * 8


def test_an_unknown_name_costs_a_password_check_too(throttled: Throttled) -> None:
    def median_s(name: str) -> float:
        times = []
        with session_scope(throttled.env.services.sessions) as db:
            for _ in range(5):
                start = time.perf_counter()
                assert check_password(db, name, "wrong") is None
                times.append(time.perf_counter() - start)
        return statistics.median(times)

    known, unknown = median_s("ada"), median_s(UNKNOWN)
    # Without the stand-in check an unknown name answered ~50x faster (a query, no hash).
    assert unknown > known / 3, (known, unknown)


def test_the_doubling_starts_over_after_a_quiet_spell() -> None:
    policy = ThrottlePolicy(account_failures=2, lockout_s=60, max_lockout_s=600)
    t0 = datetime(2030, 1, 1, tzinfo=UTC)
    tally = Tally(failures=0, window_start=t0, lockouts=0, locked_until=None, last_failure=t0)
    for step in range(4):  # locks of 60, 120, 240, 480 s, each met again as it ends
        now = tally.locked_until or t0
        tally = after_failure(after_failure(tally, now, 2, policy), now, 2, policy)
        assert tally.locked_until == now + timedelta(seconds=60 * 2**step)
    assert after_failure(tally, tally.last_failure, 2, policy) == tally  # locked: not counted
    later = tally.locked_until + timedelta(seconds=600)  # type: ignore[operator]
    again = after_failure(after_failure(tally, later, 2, policy), later, 2, policy)
    assert again.lockouts == 1 and again.locked_until == later + timedelta(seconds=60)


def test_the_login_settings_must_make_sense() -> None:
    with pytest.raises(ValidationError, match="greater than 0"):
        Settings(_env_file=None, login_account_failures=0)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="login_max_lockout_s"):
        Settings(_env_file=None, login_lockout_s=600, login_max_lockout_s=60)  # type: ignore[call-arg]


def test_the_address_behind_a_trusted_proxy() -> None:
    trusted = ("10.0.0.5", "10.0.0.6")
    assert client_address("203.0.113.9", "1.2.3.4", trusted) == "203.0.113.9"  # not trusted
    assert client_address("10.0.0.5", "1.2.3.4, 198.51.100.7, 10.0.0.6", trusted) == (
        "198.51.100.7"
    )
    assert client_address("10.0.0.5", None, trusted) == "10.0.0.5"
    assert client_address(None, None, ()) == "unknown"
