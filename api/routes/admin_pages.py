"""The admin's pages: Users (list and add), one user (clearance, groups, roles, disable,
tokens) and the Audit log. Their scripts call ``/api/admin/...``; these only render."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from api.admin import existing_user, user_json
from api.audit import audit_json, changes, recent
from api.deps import AdminDep, DbDep
from api.routes.pages import render
from api.users import ROLES, list_users

router = APIRouter(include_in_schema=False)
# What the user page says after the change its script just made (``?done=``).
NOTICES = {
    "added": "User added. Give them their first password in person; they can sign in now.",
    "saved": "Changes saved.",
    "disabled": "Disabled: they can no longer sign in, and their API tokens are refused.",
    "enabled": "Enabled: they can sign in again, and their API tokens work again.",
    "revoked": "Token revoked: it no longer works, for good.",
}


def _entries(db: DbDep, limit: int, target: str | None = None) -> list[dict[str, object]]:
    return [
        {**entry, "changes": changes(entry)}
        for entry in (audit_json(row) for row in recent(db, limit, target))
    ]


@router.get("/users")
def users_page(request: Request, admin: AdminDep, db: DbDep) -> Response:
    people = [user_json(db, u) for u in list_users(db)]
    return render(request, admin, "users.html", "/users", people=people, roles=ROLES)


@router.get("/users/{username}")
def user_page(
    request: Request,
    username: Annotated[str, Path(min_length=1, max_length=200)],
    admin: AdminDep,
    db: DbDep,
    done: Annotated[str | None, Query(max_length=20)] = None,
) -> Response:
    person = user_json(db, existing_user(db, username))
    return render(
        request,
        admin,
        "user.html",
        "/users",
        person=person,
        roles=ROLES,
        is_self=person["username"] == admin.username,
        notice=NOTICES.get(done or ""),
        history=_entries(db, 20, person["username"]),
    )


@router.get("/audit")
def audit_page(
    request: Request,
    admin: AdminDep,
    db: DbDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
) -> Response:
    return render(request, admin, "audit.html", "/users", entries=_entries(db, limit))
