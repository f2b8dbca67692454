"""Failed sign-ins, counted per account name and per client address, and the lockout they earn.

The counts live in the database (``signin_throttle``), so every API replica sees the same
ones, on PostgreSQL or on the embedded SQLite. A name (known or not: the same counts, the
same answers) or an address that fails ``limit`` times within ``window_s`` is locked for
``lockout_s``, doubled for each further lockout in a row up to ``max_lockout_s``; a quiet
``max_lockout_s`` after the last failure or lockout starts the doubling over. While locked,
a sign-in is not even checked: the right password waits too. A success clears the account
name's count (not the address's: one valid account must not buy more guesses at others).

The clock is passed in, so a test moves time instead of sleeping.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from docent.db.models import FailedSignIns as ThrottleRow
from docent.db.models import as_utc
from docent.db.session import session_scope
from docent.settings import Settings

Clock = Callable[[], datetime]
Scope = Literal["account", "address"]


def system_clock() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class ThrottlePolicy:
    account_failures: int = 5
    address_failures: int = 20
    window_s: int = 900
    lockout_s: int = 60
    max_lockout_s: int = 3600

    @classmethod
    def from_settings(cls, settings: Settings) -> ThrottlePolicy:
        return cls(
            account_failures=settings.login_account_failures,
            address_failures=settings.login_address_failures,
            window_s=settings.login_window_s,
            lockout_s=settings.login_lockout_s,
            max_lockout_s=settings.login_max_lockout_s,
        )

    def limit(self, scope: Scope) -> int:
        return self.account_failures if scope == "account" else self.address_failures

    def lockout(self, nth: int) -> timedelta:
        """How long the ``nth`` lockout in a row lasts (1 = the first)."""
        doubled = self.lockout_s * 2 ** min(max(nth - 1, 0), 30)
        return timedelta(seconds=min(doubled, self.max_lockout_s))

    @property
    def retention(self) -> timedelta:
        """After this long without a failure a row no longer changes any answer: its window
        has passed and its lockout doubling would start over."""
        return timedelta(seconds=self.max_lockout_s + max(self.window_s, self.max_lockout_s))


@dataclass(frozen=True)
class Tally:
    """One name's or address's failures, as the pure rule sees them."""

    failures: int
    window_start: datetime
    lockouts: int
    locked_until: datetime | None
    last_failure: datetime


def after_failure(tally: Tally, now: datetime, limit: int, policy: ThrottlePolicy) -> Tally:
    """The tally once one more failure at ``now`` is counted."""
    if tally.locked_until is not None and now < tally.locked_until:
        return tally  # a guess that was already under way when the lock came: not counted
    quiet_since = max(tally.last_failure, tally.locked_until or tally.last_failure)
    lockouts = tally.lockouts
    if now - quiet_since >= timedelta(seconds=policy.max_lockout_s):
        lockouts = 0
    failures, window_start = tally.failures, tally.window_start
    if now - window_start >= timedelta(seconds=policy.window_s):
        failures, window_start = 0, now
    failures += 1
    if failures < limit:
        return replace(
            tally, failures=failures, window_start=window_start, lockouts=lockouts, last_failure=now
        )
    until = now + policy.lockout(lockouts + 1)
    # The next window opens when the lock ends: the guesses after it count from there.
    return Tally(
        failures=0, window_start=until, lockouts=lockouts + 1, locked_until=until, last_failure=now
    )


def seconds_until(moment: datetime | None, now: datetime) -> int:
    """Whole seconds from ``now`` to ``moment`` (rounded up), 0 when it has passed."""
    if moment is None or moment <= now:
        return 0
    return max(1, math.ceil((moment - now).total_seconds()))


def client_address(peer: str | None, forwarded_for: str | None, trusted: Sequence[str]) -> str:
    """The address a sign-in came from: the peer, or behind a trusted proxy the nearest
    ``X-Forwarded-For`` hop that is not itself a trusted proxy (an untrusted peer's header is
    ignored: anyone can write one)."""
    address = peer or "unknown"
    if address not in trusted:
        return address
    hops = [hop.strip() for hop in (forwarded_for or "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if hop not in trusted:
            return hop
    return address


class SignInThrottle:
    """Counts failed sign-ins in the database and says how long a sign-in must wait."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        policy: ThrottlePolicy,
        secret: str,
        clock: Clock = system_clock,
    ) -> None:
        self._sessions = sessions
        self._policy = policy
        self._secret = secret.encode()
        self._clock = clock

    def wait_s(self, account: str, address: str) -> int:
        """Seconds before this name may try again from this address (0: now)."""
        now = self._clock()
        keys = [self._key("account", account), self._key("address", address)]
        with session_scope(self._sessions) as db:
            locks = db.execute(
                select(ThrottleRow.locked_until).where(ThrottleRow.key.in_(keys))
            ).scalars()
            return max((seconds_until(as_utc(until), now) for until in locks if until), default=0)

    def failed(self, account: str, address: str) -> int:
        """Count a failed sign-in against the name and the address; the wait it earned."""
        now = self._clock()
        with session_scope(self._sessions) as db:
            # Always the account's row first, then the address's: one order, no deadlock.
            waits = [
                self._count(db, "account", account, now),
                self._count(db, "address", address, now),
            ]
        with session_scope(self._sessions) as db:
            db.execute(
                delete(ThrottleRow).where(ThrottleRow.last_failure < now - self._policy.retention)
            )
        return max(waits)

    def succeeded(self, account: str) -> None:
        """The right password: the name's count and its lockout doubling start over."""
        with session_scope(self._sessions) as db:
            db.execute(delete(ThrottleRow).where(ThrottleRow.key == self._key("account", account)))

    def _count(self, db: Session, scope: Scope, value: str, now: datetime) -> int:
        key = self._key(scope, value)
        _insert_if_missing(db, key, scope, now)
        row = db.execute(
            select(ThrottleRow).where(ThrottleRow.key == key).with_for_update()
        ).scalar_one()
        tally = after_failure(_tally_of(row), now, self._policy.limit(scope), self._policy)
        row.failures, row.window_start = tally.failures, tally.window_start
        row.lockouts, row.locked_until = tally.lockouts, tally.locked_until
        row.last_failure = tally.last_failure
        db.flush()
        return seconds_until(tally.locked_until, now)

    def _key(self, scope: Scope, value: str) -> str:
        # Names are compared without case: "Ada" and "ada" share one count.
        text = f"{scope}:{value.strip().casefold() if scope == 'account' else value}"
        return hmac.new(self._secret, text.encode(), hashlib.sha256).hexdigest()


def _insert_if_missing(db: Session, key: str, scope: Scope, now: datetime) -> None:
    """The row, created if absent, in one statement that two replicas may race: on SQLite it
    also takes the write lock, on PostgreSQL the row lock follows (``FOR UPDATE``)."""
    values = {
        "key": key,
        "scope": scope,
        "failures": 0,
        "window_start": now,
        "lockouts": 0,
        "locked_until": None,
        "last_failure": now,
    }
    dialect = db.get_bind().dialect.name
    if dialect == "postgresql":
        db.execute(postgresql.insert(ThrottleRow).values(values).on_conflict_do_nothing())
    elif dialect == "sqlite":
        db.execute(sqlite.insert(ThrottleRow).values(values).on_conflict_do_nothing())
    elif db.get(ThrottleRow, key) is None:
        db.add(ThrottleRow(**values))
        db.flush()


def _tally_of(row: ThrottleRow) -> Tally:
    return Tally(
        failures=row.failures,
        window_start=as_utc(row.window_start),
        lockouts=row.lockouts,
        locked_until=as_utc(row.locked_until) if row.locked_until is not None else None,
        last_failure=as_utc(row.last_failure),
    )
