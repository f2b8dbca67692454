"""Managing people: the changes an admin makes (the Users page, ``/api/admin/...``) and the
ones ``docent users ...`` makes, each checked, applied and audited in one transaction.

Every input is checked before anything changes, so a refused request leaves the users, the
tokens and the audit log as they were. A signed-in admin cannot disable their own account or
take away their own admin role (another admin, or the command line, can): the app must never
be left with no way in. Disabling is reversible: a disabled user cannot sign in and their
tokens are refused while it lasts, and come back when the user is enabled; revoking a token
ends it for good.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from api.audit import Actor, record
from api.users import (
    active_tokens,
    add_user,
    checked_clearance,
    checked_groups,
    checked_roles,
    find_user,
    mint_token,
    set_password,
)
from docent.db.models import ApiToken, User, as_utc
from docent.errors import Conflict, InvalidInput, NotFound


@dataclass(frozen=True)
class UserChange:
    """What to change on a user; ``None`` leaves a field as it is."""

    clearance: str | None = None
    groups: Sequence[str] | None = None
    roles: Sequence[str] | None = None
    disabled: bool | None = None
    display_name: str | None = None


def checked_text(text: str, what: str) -> str:
    """A short line a person typed: stripped, up to 200 characters, no control characters
    (PostgreSQL refuses a NUL, and a line break would forge a line of ``docent audit``)."""
    line = text.strip()
    if len(line) > 200:
        raise InvalidInput(f"{what} is too long (up to 200 characters)")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in line):
        raise InvalidInput(f"{what} may not hold control characters (tabs, line breaks)")
    return line


def user_snapshot(user: User) -> dict[str, Any]:
    """The audited fields of a user (never its password hash)."""
    return {
        "display_name": user.display_name,
        "clearance": user.clearance,
        "groups": list(user.groups or ()),
        "roles": list(user.roles or ()),
        "disabled": bool(user.disabled),
        "password_set": bool(user.password_hash),
    }


def token_snapshot(token: ApiToken, owner: str) -> dict[str, Any]:
    """The audited fields of a token: named by its prefix, never its secret or hash."""
    return {
        "prefix": token.prefix,
        "label": token.name,
        "user": owner,
        "revoked": token.revoked_at is not None,
    }


def create_user(
    db: Session,
    actor: Actor,
    username: str,
    *,
    clearance: str,
    levels: Sequence[str],
    groups: Sequence[str] = (),
    roles: Sequence[str] = ("asker",),
    password: str | None = None,
    display_name: str | None = None,
) -> User:
    shown = checked_text(display_name or "", "the display name") or None
    user = add_user(
        db,
        username,
        clearance=clearance,
        levels=levels,
        groups=groups,
        roles=roles,
        password=password,
        display_name=shown,
    )
    record(db, actor, "user.added", user.username, None, user_snapshot(user))
    return user


def reset_password(db: Session, actor: Actor, username: str, password: str) -> None:
    set_password(db, username, password)
    record(db, actor, "user.password_set", username)


def existing_user(db: Session, username: str) -> User:
    user = find_user(db, username)
    if user is None:
        raise NotFound(f"no user {username!r}")
    return user


def _planned(user: User, change: UserChange, levels: Sequence[str]) -> dict[str, Any]:
    """The new value of each field the change really changes, all of them checked."""
    new: dict[str, Any] = {}
    if change.clearance is not None:
        new["clearance"] = checked_clearance(change.clearance, levels)
    if change.groups is not None:
        new["groups"] = checked_groups(change.groups)
    if change.roles is not None:
        new["roles"] = checked_roles(change.roles)
    if change.disabled is not None:
        new["disabled"] = change.disabled
    if change.display_name is not None:
        new["display_name"] = checked_text(change.display_name, "the display name") or None
    before = user_snapshot(user)
    return {k: v for k, v in new.items() if v != before[k]}


def _refuse_self_lockout(actor: Actor, user: User, new: dict[str, Any]) -> None:
    if actor.username is None or actor.username != user.username:
        return
    if new.get("disabled") is True:
        raise Conflict("you cannot disable your own account: ask another admin")
    if "roles" in new and "admin" in (user.roles or ()) and "admin" not in new["roles"]:
        raise Conflict("you cannot remove your own admin role: ask another admin")


ACTION_OF = {
    "clearance": "user.clearance_changed",
    "groups": "user.groups_changed",
    "roles": "user.roles_changed",
    "display_name": "user.display_name_changed",
}


def change_user(
    db: Session, actor: Actor, username: str, change: UserChange, levels: Sequence[str]
) -> User:
    """Apply ``change``; one audit entry per kind of field changed, none when nothing is."""
    user = existing_user(db, username)
    new = _planned(user, change, levels)
    _refuse_self_lockout(actor, user, new)
    for field, value in new.items():
        before = {field: getattr(user, field)}
        setattr(user, field, value)
        if field == "disabled":
            action = "user.disabled" if value else "user.enabled"
        else:
            action = ACTION_OF[field]
        record(db, actor, action, user.username, before, {field: value})
    db.flush()
    return user


def issue_token(db: Session, actor: Actor, username: str, label: str) -> tuple[str, ApiToken]:
    """A new token for an enabled user: its secret (shown once, never stored) and its row."""
    user = existing_user(db, username)
    if user.disabled:
        raise Conflict(f"{username!r} is disabled: enable the user before issuing a token")
    name = checked_text(label, "the token's label")
    if not name:
        raise InvalidInput("give the token a label: what it is for (up to 200 characters)")
    plain, row = mint_token(db, user, name)
    record(db, actor, "token.issued", user.username, None, token_snapshot(row, user.username))
    return plain, row


def revoke_token(db: Session, actor: Actor, prefix: str) -> list[ApiToken]:
    """Revoke the live token(s) with this prefix: a prefix is 32 random bits, so two could
    share one, and revoking both is the safe way to end the one meant."""
    rows = _live_tokens(db, prefix)
    if not rows:
        raise NotFound(f"no active token {prefix!r}")
    return [_revoke(db, actor, row) for row in rows]


def _live_tokens(db: Session, prefix: str) -> list[ApiToken]:
    query = select(ApiToken).where(ApiToken.prefix == prefix, ApiToken.revoked_at.is_(None))
    return list(db.execute(query).scalars())


def _revoke(db: Session, actor: Actor, row: ApiToken) -> ApiToken:
    owner = db.get(User, row.user_id)
    name = owner.username if owner is not None else "?"
    before = token_snapshot(row, name)
    row.revoked_at = datetime.now(UTC)
    record(db, actor, "token.revoked", name, before, token_snapshot(row, name))
    return row


def revoke(db: Session, actor: Actor, target: str) -> str:
    """``docent users revoke``: one token by its prefix, or a user (disabled, and every one
    of their tokens revoked)."""
    tokens = _live_tokens(db, target)
    if tokens:
        for row in tokens:
            _revoke(db, actor, row)
        return f"revoked token {target}"
    user = find_user(db, target)
    if user is None:
        raise NotFound(f"no user or active token prefix {target!r}")
    change_user(db, actor, target, UserChange(disabled=True), ())
    count = 0
    for row in active_tokens(db, user):
        _revoke(db, actor, row)
        count += 1
    return f"disabled user {target} and revoked {count} token(s)"


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return as_utc(moment).isoformat()


def token_json(token: ApiToken) -> dict[str, Any]:
    """A token as the Users page and ``/api/admin/users`` list it: no secret, no hash."""
    return {
        "prefix": token.prefix,
        "label": token.name,
        "created_at": _iso(token.created_at),
        "last_used_at": _iso(token.last_used_at),
    }


def user_json(db: Session, user: User) -> dict[str, Any]:
    """A user as ``/api/admin/users`` and the Users pages show it, with its live tokens."""
    return {
        "username": user.username,
        **user_snapshot(user),  # the audited fields, in the same words
        "created_at": _iso(user.created_at),
        "tokens": [token_json(t) for t in active_tokens(db, user)],
    }
