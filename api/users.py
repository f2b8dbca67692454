"""Users, their roles and API tokens, over the ``users`` / ``api_tokens`` tables.

Roles: ``asker`` (ask, read passages), ``editor`` (documents, content gaps), ``operator``
(ingest jobs), ``admin`` (everything, and every handoff). Clearance and groups decide which
document text a user may see, whatever the role.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from api.security import (
    hash_password,
    hash_token,
    new_api_token,
    password_needs_rehash,
    spend_a_password_check,
    token_prefix,
    verify_password,
)
from docent.contracts import Principal
from docent.db.models import ApiToken, User, as_utc
from docent.errors import Conflict, InvalidInput, NotFound

ROLES: tuple[str, ...] = ("asker", "editor", "operator", "admin")
# Who reads the content gaps: the docs team writes what is missing; operators watch gaps
# close as their ingest jobs end.
GAP_READERS: tuple[str, ...] = ("editor", "operator")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,199}$")
# A group is matched against documents' ``groups``; commas and semicolons separate groups in
# the CLI, the proxy header and the manifest, so a name may not hold them.
_GROUP = re.compile(r"^\w[\w .&'/+-]{0,99}$")
MIN_PASSWORD = 8


@dataclass(frozen=True)
class CurrentUser:
    """The authenticated caller, detached from the database session."""

    username: str
    clearance: str
    groups: frozenset[str] = frozenset()
    roles: frozenset[str] = frozenset()
    display_name: str | None = None
    via: str = "session"  # session | token | proxy
    csrf: str | None = field(default=None, compare=False)

    @property
    def principal(self) -> Principal:
        return Principal(user_id=self.username, clearance=self.clearance, groups=self.groups)

    def has_role(self, role: str) -> bool:
        return role in self.roles or "admin" in self.roles

    @property
    def is_admin(self) -> bool:
        return "admin" in self.roles


def current_user_of(user: User, *, via: str, groups: Iterable[str] | None = None) -> CurrentUser:
    return CurrentUser(
        username=user.username,
        clearance=user.clearance,
        groups=frozenset(user.groups if groups is None else groups),
        roles=frozenset(user.roles),
        display_name=user.display_name,
        via=via,
    )


def _clean_list(values: Iterable[str]) -> list[str]:
    return sorted({v.strip() for v in values if v and v.strip()})


def checked_clearance(clearance: str, levels: Sequence[str]) -> str:
    if clearance not in levels:
        raise InvalidInput(f"clearance {clearance!r} is not one of the levels {', '.join(levels)}")
    return clearance


def checked_groups(groups: Iterable[str]) -> list[str]:
    cleaned = _clean_list(groups)
    bad = [g for g in cleaned if not _GROUP.match(g)]
    if bad:
        raise InvalidInput(
            f"group name(s) {bad} not allowed: start with a letter or digit, then letters, "
            "digits, spaces and . & ' / + - (up to 100 characters; no commas or semicolons)"
        )
    return cleaned


def checked_roles(roles: Iterable[str]) -> list[str]:
    role_list = _clean_list(roles)
    unknown = [r for r in role_list if r not in ROLES]
    if unknown:
        raise InvalidInput(f"unknown role(s) {unknown}; roles are {list(ROLES)}")
    return role_list


def checked_password(password: str) -> str:
    """A new password: refused when empty, blank or shorter than ``MIN_PASSWORD``."""
    if not password.strip():
        raise InvalidInput("the password is empty; give one of at least 8 characters")
    if len(password) < MIN_PASSWORD:
        raise InvalidInput(f"the password is too short; give at least {MIN_PASSWORD} characters")
    return password


def add_user(
    session: Session,
    username: str,
    *,
    clearance: str,
    levels: Sequence[str],
    groups: Iterable[str] = (),
    roles: Iterable[str] = ("asker",),
    password: str | None = None,
    display_name: str | None = None,
) -> User:
    if not _NAME.match(username):
        raise InvalidInput(
            f"user name {username!r} is not allowed: use letters, digits and . _ @ - "
            "(up to 200 characters)"
        )
    checked_clearance(clearance, levels)
    group_list = checked_groups(groups)
    role_list = checked_roles(roles)
    if password is not None:
        checked_password(password)
    # Names differing only in case would be two people to the database and one to the
    # sign-in throttle (and to the eye).
    same = session.execute(
        select(User.username).where(func.lower(User.username) == username.lower())
    ).scalar_one_or_none()
    if same is not None:
        spelled = f" as {same!r}" if same != username else ""
        raise Conflict(f"user {username!r} already exists{spelled}")
    user = User(
        username=username,
        display_name=display_name,
        clearance=clearance,
        groups=group_list,
        roles=role_list,
        password_hash=hash_password(password) if password is not None else None,
    )
    session.add(user)
    session.flush()
    return user


def find_user(session: Session, username: str) -> User | None:
    return session.execute(select(User).where(User.username == username)).scalar_one_or_none()


def active_user(session: Session, username: str) -> User | None:
    """The user if it exists and is enabled; anything else is no user at all."""
    user = find_user(session, username)
    return user if user is not None and not user.disabled else None


def list_users(session: Session) -> list[User]:
    return list(session.execute(select(User).order_by(User.username)).scalars())


def set_password(session: Session, username: str, password: str) -> None:
    """A new password; every session signed in with the old one is over."""
    user = find_user(session, username)
    if user is None:
        raise NotFound(f"no user {username!r}")
    user.password_hash = hash_password(checked_password(password))
    end_sessions(user)


def end_sessions(user: User) -> None:
    """Every session cookie of ``user`` issued until now reads as no session."""
    user.sessions_after = datetime.now(UTC)


def session_current(user: User, issued: float | None) -> bool:
    """Whether a session cookie issued at ``issued`` (epoch seconds) still counts: a cookie
    from before the user's last sign-out or new password does not."""
    if user.sessions_after is None:
        return True
    return issued is not None and issued > as_utc(user.sessions_after).timestamp()


def check_password(session: Session, username: str, password: str) -> User | None:
    """The active user whose password this is, else ``None``.

    An unknown or disabled name, or one with no password, costs a password check all the
    same: the answer takes as long as a wrong password's, so timing does not tell which
    names exist. A hash of an older scheme (scrypt) or other parameters is replaced by an
    argon2id one at this sign-in, the only moment the plain password is at hand.
    """
    user = active_user(session, username)
    if user is None or not user.password_hash:
        spend_a_password_check(password)
        return None
    if not verify_password(password, user.password_hash):
        return None
    if password_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
        session.flush()
    return user


def mint_token(session: Session, user: User, label: str) -> tuple[str, ApiToken]:
    """A new token for ``user``: its plain text (to show once) and its row, which keeps only
    the prefix and the hash."""
    token = new_api_token()
    row = ApiToken(user_id=user.id, name=label, prefix=token.prefix, token_hash=token.token_hash)
    session.add(row)
    session.flush()
    return token.plain, row


def issue_token(session: Session, username: str, label: str = "cli") -> str:
    """Mint a token for the user and return it in plain text; only its hash is kept."""
    user = active_user(session, username)
    if user is None:
        raise NotFound(f"no active user {username!r}")
    return mint_token(session, user, label)[0]


TOKEN_TOUCH_EVERY = timedelta(minutes=1)


def user_for_token(session: Session, plain: str) -> User | None:
    if token_prefix(plain) is None:
        return None
    row = session.execute(
        select(ApiToken).where(ApiToken.token_hash == hash_token(plain))
    ).scalar_one_or_none()
    if row is None or row.revoked_at is not None:
        return None
    user = session.get(User, row.user_id)
    if user is None or user.disabled:
        return None
    now = datetime.now(UTC)
    last = as_utc(row.last_used_at) if row.last_used_at is not None else None
    # At most one write a minute per token, committed at once: on SQLite a write left to the
    # end of the request held the database's write lock through the whole ask, and every
    # other writer (traces, gaps, ingest) timed out behind it (benchmarks/load.py).
    if last is None or now - last > TOKEN_TOUCH_EVERY:
        row.last_used_at = now
        session.commit()
    return user


def active_tokens(session: Session, user: User) -> list[ApiToken]:
    return list(
        session.execute(
            select(ApiToken).where(ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
        ).scalars()
    )
