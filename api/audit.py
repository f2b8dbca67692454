"""The audit log: every change to a user or an API token, whoever made it (the web UI, the
API or ``docent users ...``), written in the same transaction as the change itself.

An entry reads as JSON one way only, :func:`audit_json`: ``GET /api/admin/audit`` and
``docent audit --json`` both emit it. ``before`` and ``after`` hold only the fields the change
touched; a secret can never be one of them (:func:`record` refuses it: a fault, not input).
"""

from __future__ import annotations

import getpass
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from docent.db.models import AuditEntry, as_utc

ACTIONS = {
    "user.added": "added the user",
    "user.disabled": "disabled the user",
    "user.enabled": "enabled the user",
    "user.clearance_changed": "changed the clearance",
    "user.groups_changed": "changed the groups",
    "user.roles_changed": "changed the roles",
    "user.display_name_changed": "changed the display name",
    "user.password_set": "set a new password",
    "token.issued": "issued an API token",
    "token.revoked": "revoked an API token",
}
# Keys a snapshot may never carry, at any depth: a password, a hash, a token's secret.
SECRET_KEYS = frozenset({"password", "password_hash", "token", "token_hash", "plain", "secret"})
MAX_LIMIT = 1000


@dataclass(frozen=True)
class Actor:
    """Who makes a change: ``name`` is what the audit log records; ``username`` the signed-in
    admin (``None`` on the command line, which is also how a locked-out admin gets back in)."""

    name: str
    username: str | None = None

    @classmethod
    def user(cls, username: str) -> Actor:
        return cls(name=username, username=username)

    @classmethod
    def cli(cls) -> Actor:
        return cls(name=f"cli:{_os_user()}")


def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER (a bare container)
        return "unknown"


def _check_no_secret(snapshot: Any, where: str) -> None:
    if isinstance(snapshot, Mapping):
        for key, value in snapshot.items():
            if str(key).lower() in SECRET_KEYS:
                raise ValueError(f"an audit entry's {where} may not hold {key!r}")
            _check_no_secret(value, where)
    elif isinstance(snapshot, list | tuple):
        for value in snapshot:
            _check_no_secret(value, where)


def record(
    db: Session,
    actor: Actor,
    action: str,
    target: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> AuditEntry:
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {action!r}")
    _check_no_secret(before, "before")
    _check_no_secret(after, "after")
    entry = AuditEntry(
        actor=actor.name,
        action=action,
        target=target,
        before=dict(before) if before is not None else None,
        after=dict(after) if after is not None else None,
    )
    db.add(entry)
    db.flush()
    return entry


def recent(db: Session, limit: int = 100, target: str | None = None) -> list[AuditEntry]:
    """The newest entries first (the id breaks ties within one clock tick)."""
    query = select(AuditEntry).order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
    if target is not None:
        query = query.where(AuditEntry.target == target)
    return list(db.execute(query.limit(max(1, min(limit, MAX_LIMIT)))).scalars())


def audit_json(entry: AuditEntry) -> dict[str, Any]:
    """One audit entry, as ``GET /api/admin/audit`` and ``docent audit --json`` show it."""
    return {
        "id": entry.id,
        "at": as_utc(entry.at).isoformat(),
        "actor": entry.actor,
        "action": entry.action,
        "summary": ACTIONS.get(entry.action, entry.action),
        "target": entry.target,
        "before": entry.before,
        "after": entry.after,
    }


def changes(entry: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The fields an entry (``audit_json``'s shape) holds, each with its value before and
    after and whether it changed (an added user's or an issued token's fields did not: they
    are new): what the audit pages and ``docent audit`` print."""
    before = entry.get("before")
    after = entry.get("after") or {}
    keys = list(dict.fromkeys([*(before or {}), *after]))
    return [
        {
            "field": k,
            "before": (before or {}).get(k),
            "after": after.get(k),
            "changed": before is not None and before.get(k) != after.get(k),
        }
        for k in keys
    ]
