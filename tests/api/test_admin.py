"""The admin's API over a real app and database: adding, changing, disabling and enabling
users, issuing and revoking tokens; each change audited with before and after, and nothing
changed (nor audited) by a refused request. Only an admin gets in; an admin cannot lock
themselves out."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.admin import issue_token
from api.audit import Actor, record
from docent.db.models import ApiToken, AuditEntry
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv
from tests.api.test_auth import login

NEW = {
    "username": "nina",
    "display_name": "Nina Novak",
    "clearance": "confidential",
    "groups": ["legal", "People Ops"],
    "roles": ["asker", "editor"],
    "password": "a long first password",
}
# Every admin route, called with a body that would succeed for an admin.
ADMIN_CALLS: list[tuple[str, str, Any]] = [
    ("GET", "/api/admin/users", None),
    ("POST", "/api/admin/users", {**NEW, "username": "probe"}),
    ("GET", "/api/admin/users/ada", None),
    ("PATCH", "/api/admin/users/ada", {"clearance": "public"}),
    ("POST", "/api/admin/users/ada/tokens", {"label": "probe"}),
    ("POST", "/api/admin/tokens/00000000/revoke", None),
    ("GET", "/api/admin/audit", None),
    ("GET", "/users", None),
    ("GET", "/users/ada", None),
    ("GET", "/audit", None),
]


def call(env: ApiEnv, who: str | None, method: str, path: str, body: Any = None) -> Any:
    headers = {**(env.as_user(who) if who else {}), "Accept": "application/json"}
    return env.client.request(method, path, headers=headers, json=body, follow_redirects=False)


def audit(env: ApiEnv) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = env.get("admin", "/api/admin/audit").json()["entries"]
    return entries


def state(env: ApiEnv) -> tuple[Any, Any]:
    """The users and the audit log (without when each token was last used: any call sets it)."""
    users = env.get("admin", "/api/admin/users").json()["users"]
    for user in users:
        for token in user["tokens"]:
            token.pop("last_used_at")
    return users, audit(env)


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_CALLS)
def test_only_an_admin_gets_in(
    make_env: Callable[..., ApiEnv], method: str, path: str, body: Any
) -> None:
    env = make_env()
    before = state(env)
    assert call(env, None, method, path, body).status_code == 401
    for who in ("ada", "eddie", "otto", "norole"):
        refused = call(env, who, method, path, body)
        assert refused.status_code == 403, (who, refused.text)
        assert refused.json()["error"]["code"] == "forbidden"
    assert state(env) == before  # nothing changed, nothing audited
    assert call(env, "admin", method, path, body).status_code in (200, 201, 404)


def test_adding_a_user_is_audited_without_the_password(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    made = env.post("admin", "/api/admin/users", json=NEW)
    assert made.status_code == 201, made.text
    user = made.json()
    assert (user["clearance"], user["groups"], user["roles"]) == (
        "confidential",
        ["People Ops", "legal"],
        ["asker", "editor"],
    )
    assert user["password_set"] and user["tokens"] == [] and not user["disabled"]
    [entry] = audit(env)
    assert (entry["actor"], entry["action"], entry["target"]) == ("admin", "user.added", "nina")
    assert entry["before"] is None and entry["after"]["clearance"] == "confidential"
    assert NEW["password"] not in json.dumps(entry) and "hash" not in json.dumps(entry)
    client = TestClient(env.app)
    login(client, "nina", NEW["password"])  # the first password signs in
    assert client.get("/api/me").json()["roles"] == ["asker", "editor"]


BAD_ADDS = [
    ({"clearance": "cosmic"}, 400, "clearance 'cosmic' is not one of the levels"),
    ({"groups": ["legal, finance"]}, 400, "group name(s) ['legal, finance'] not allowed"),
    ({"groups": ["ops;it"]}, 400, "not allowed"),
    ({"roles": ["wizard"]}, 400, "unknown role(s) ['wizard']"),
    ({"username": "ada"}, 409, "user 'ada' already exists"),
    ({"username": "ADA"}, 409, "user 'ADA' already exists as 'ada'"),
    ({"username": "no spaces"}, 400, "is not allowed"),
    ({"password": ""}, 400, "the password is empty"),
    ({"password": "        "}, 400, "the password is empty"),
    ({"password": "short"}, 400, "at least 8 characters"),
    ({"display_name": "Nina\nforged line"}, 400, "may not hold control characters"),
]


@pytest.mark.parametrize(("change", "status", "message"), BAD_ADDS)
def test_a_bad_new_user_is_refused_and_nothing_changes(
    make_env: Callable[..., ApiEnv], change: dict[str, Any], status: int, message: str
) -> None:
    env = make_env()
    before = state(env)
    refused = env.post("admin", "/api/admin/users", json={**NEW, **change})
    assert refused.status_code == status, refused.text
    assert message in refused.json()["error"]["message"]
    assert state(env) == before


def test_changes_are_audited_each_with_before_and_after(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    body = {"clearance": "confidential", "groups": ["legal"], "roles": ["asker", "editor"]}
    changed = call(env, "admin", "PATCH", "/api/admin/users/ada", body)
    assert changed.status_code == 200, changed.text
    assert changed.json()["clearance"] == "confidential"
    entries = {e["action"]: e for e in audit(env)}
    assert set(entries) == {"user.clearance_changed", "user.groups_changed", "user.roles_changed"}
    assert entries["user.clearance_changed"]["before"] == {"clearance": "employee"}
    assert entries["user.clearance_changed"]["after"] == {"clearance": "confidential"}
    assert entries["user.groups_changed"]["before"] == {"groups": []}
    assert entries["user.roles_changed"]["after"] == {"roles": ["asker", "editor"]}
    again = call(env, "admin", "PATCH", "/api/admin/users/ada", body)
    assert again.status_code == 200 and len(audit(env)) == 3  # no change, no entry
    assert env.get("ada", "/api/me").json()["clearance"] == "confidential"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"clearance": "galactic"}, 400, "clearance 'galactic'"),
        ({"clearance": "public", "groups": ["bad,name"]}, 400, "not allowed"),
        ({"roles": ["asker", "root"]}, 400, "unknown role(s) ['root']"),
        ({"groups": "legal"}, 422, "groups"),
    ],
)
def test_a_bad_change_is_refused_and_nothing_changes(
    make_env: Callable[..., ApiEnv], body: dict[str, Any], status: int, message: str
) -> None:
    env = make_env()
    before = state(env)
    refused = call(env, "admin", "PATCH", "/api/admin/users/ada", body)
    assert refused.status_code == status and message in refused.json()["error"]["message"]
    assert state(env) == before
    assert call(env, "admin", "PATCH", "/api/admin/users/nobody", {}).status_code == 404


def test_an_admin_cannot_lock_themselves_out(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    before = state(env)
    for body, message in (
        ({"disabled": True}, "you cannot disable your own account: ask another admin"),
        ({"roles": ["asker"]}, "you cannot remove your own admin role: ask another admin"),
        ({"clearance": "public", "roles": []}, "you cannot remove your own admin role"),
    ):
        refused = call(env, "admin", "PATCH", "/api/admin/users/admin", body)
        assert refused.status_code == 409 and message in refused.json()["error"]["message"]
    assert state(env) == before
    # Another admin may do either; and an admin may still change their own clearance.
    env.post("admin", "/api/admin/users", json={**NEW, "username": "root2", "roles": ["admin"]})
    with session_scope(env.services.sessions) as db:
        env.tokens["root2"] = issue_token(db, Actor.cli(), "root2", "test")[0]
    moved = call(env, "root2", "PATCH", "/api/admin/users/admin", {"roles": ["asker"]})
    assert moved.status_code == 200
    assert env.get("admin", "/api/admin/users").status_code == 403


def test_a_disabled_user_cannot_sign_in_and_their_tokens_stop(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    session = TestClient(env.app)
    login(session, "cy")
    assert env.get("cy", "/api/me").status_code == 200
    disabled = call(env, "admin", "PATCH", "/api/admin/users/cy", {"disabled": True})
    assert disabled.status_code == 200 and disabled.json()["disabled"]
    assert env.get("cy", "/api/me").status_code == 401  # the token
    assert session.get("/api/me").status_code == 401  # the live session
    with pytest.raises(AssertionError):
        login(TestClient(env.app), "cy")  # a new sign-in
    token = env.post("admin", "/api/admin/users/cy/tokens", json={"label": "x"})
    assert token.status_code == 409 and "is disabled" in token.json()["error"]["message"]
    call(env, "admin", "PATCH", "/api/admin/users/cy", {"disabled": False})
    assert env.get("cy", "/api/me").status_code == 200  # disabling is undone: the token works
    actions = [(e["action"], e["before"], e["after"]) for e in audit(env)]
    assert actions == [
        ("user.enabled", {"disabled": True}, {"disabled": False}),
        ("user.disabled", {"disabled": False}, {"disabled": True}),
    ]


def test_a_token_is_shown_once_stored_as_a_hash_and_revoked(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    made = env.post("admin", "/api/admin/users/ada/tokens", json={"label": "nightly export"})
    assert made.status_code == 201 and made.headers["cache-control"] == "no-store"
    secret, prefix = made.json()["secret"], made.json()["token"]["prefix"]
    assert secret.startswith(f"dct_{prefix}_")
    who = env.client.get("/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert who.json()["username"] == "ada"
    with session_scope(env.services.sessions) as db:
        row = db.query(ApiToken).filter_by(prefix=prefix).one()
        assert row.token_hash == hashlib.sha256(secret.encode()).hexdigest()
        stored = json.dumps([(e.before, e.after) for e in db.query(AuditEntry)])
    listed = (
        env.get("admin", "/api/admin/users/ada").text
        + env.client.get("/users/ada", headers=env.as_user("admin")).text
    )
    assert secret not in listed and secret not in stored and row.token_hash not in stored
    assert prefix in listed
    revoked = env.post("admin", f"/api/admin/tokens/{prefix}/revoke")
    assert revoked.status_code == 200
    gone = env.client.get("/api/me", headers={"Authorization": f"Bearer {secret}"})
    assert gone.status_code == 401
    assert env.post("admin", f"/api/admin/tokens/{prefix}/revoke").status_code == 404
    issued, ended = audit(env)[1], audit(env)[0]
    assert (issued["action"], issued["target"], issued["after"]["label"]) == (
        "token.issued",
        "ada",
        "nightly export",
    )
    assert ended["action"] == "token.revoked"
    assert (ended["before"]["revoked"], ended["after"]["revoked"]) == (False, True)
    for label in ("  ", "nul\x00"):
        bad = env.post("admin", "/api/admin/users/ada/tokens", json={"label": label})
        assert bad.status_code == 400 and "label" in bad.json()["error"]["message"]


def test_the_audit_log_refuses_a_secret_and_lists_newest_first(
    make_env: Callable[..., ApiEnv],
) -> None:
    env = make_env()
    with session_scope(env.services.sessions) as db:
        for bad in ({"password": "x"}, {"nested": [{"token_hash": "y"}]}):
            with pytest.raises(ValueError, match="may not hold"):
                record(db, Actor.cli(), "user.added", "ada", None, bad)
    for level in ("public", "confidential", "restricted"):
        call(env, "admin", "PATCH", "/api/admin/users/ada", {"clearance": level})
    afters = [e["after"]["clearance"] for e in audit(env)]
    assert afters == ["restricted", "confidential", "public"]
    one = env.get("admin", "/api/admin/audit?limit=1").json()["entries"]
    assert [e["after"] for e in one] == [{"clearance": "restricted"}]
    assert env.get("admin", "/api/admin/audit?limit=0").status_code == 422
