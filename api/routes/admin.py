"""Users, roles, clearance, groups and API tokens, and the audit log of every change to them:
the admin's API (``/api/admin/...``; the Users and Audit pages call it). Admin only."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from pydantic import BaseModel, Field

from api.admin import (
    UserChange,
    change_user,
    create_user,
    existing_user,
    issue_token,
    revoke_token,
    token_json,
    user_json,
)
from api.audit import Actor, audit_json, recent
from api.deps import AdminDep, DbDep, SettingsDep
from api.users import list_users

router = APIRouter(tags=["admin"])

UserName = Annotated[str, Path(min_length=1, max_length=200)]
Names = Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=50)]


class UserCreate(BaseModel):
    username: str = Field(..., max_length=200)
    clearance: str = Field(..., max_length=50, description="One of DOCENT_ACCESS_LEVELS.")
    groups: Names = Field(default_factory=list)
    roles: Names = Field(default_factory=lambda: ["asker"])
    password: str | None = Field(
        None,
        max_length=500,
        description="The first web sign-in password (8 characters or more); "
        "leave it out for an account that signs in with API tokens only.",
    )
    display_name: str | None = Field(None, max_length=200)


class UserUpdate(BaseModel):
    clearance: str | None = Field(None, max_length=50)
    groups: Names | None = None
    roles: Names | None = None
    disabled: bool | None = None
    display_name: str | None = Field(None, max_length=200)


class TokenCreate(BaseModel):
    label: str = Field(..., max_length=200, description="What the token is for.")


@router.get("/api/admin/users", summary="Every user, with roles, clearance and live tokens")
def users(_admin: AdminDep, db: DbDep) -> dict[str, Any]:
    return {"users": [user_json(db, u) for u in list_users(db)]}


@router.post("/api/admin/users", status_code=201, summary="Add a user")
def add(payload: UserCreate, admin: AdminDep, db: DbDep, settings: SettingsDep) -> dict[str, Any]:
    user = create_user(
        db,
        Actor.user(admin.username),
        payload.username.strip(),
        clearance=payload.clearance,
        levels=settings.access_levels,
        groups=payload.groups,
        roles=payload.roles,
        password=payload.password,
        display_name=payload.display_name,
    )
    return user_json(db, user)


@router.get("/api/admin/users/{username}", summary="One user")
def one(username: UserName, _admin: AdminDep, db: DbDep) -> dict[str, Any]:
    return user_json(db, existing_user(db, username))


@router.patch(
    "/api/admin/users/{username}",
    summary="Change a user's clearance, groups, roles or name, or disable or enable them",
)
def update(
    username: UserName, payload: UserUpdate, admin: AdminDep, db: DbDep, settings: SettingsDep
) -> dict[str, Any]:
    change = UserChange(**payload.model_dump())
    user = change_user(db, Actor.user(admin.username), username, change, settings.access_levels)
    return user_json(db, user)


@router.post(
    "/api/admin/users/{username}/tokens",
    status_code=201,
    summary="Issue an API token (its secret is in this answer only)",
)
def new_token(
    username: UserName, payload: TokenCreate, admin: AdminDep, db: DbDep, response: Response
) -> dict[str, Any]:
    plain, row = issue_token(db, Actor.user(admin.username), username, payload.label)
    response.headers["Cache-Control"] = "no-store"  # the secret is in no cache either
    return {"secret": plain, "user": username, "token": token_json(row)}


@router.post("/api/admin/tokens/{prefix}/revoke", summary="Revoke an API token for good")
def revoke(
    prefix: Annotated[str, Path(min_length=1, max_length=16)], admin: AdminDep, db: DbDep
) -> dict[str, Any]:
    rows = revoke_token(db, Actor.user(admin.username), prefix)
    return {"revoked": [token_json(row) for row in rows]}


@router.get("/api/admin/audit", summary="Changes to users and tokens, newest first")
def audit(
    _admin: AdminDep,
    db: DbDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    target: Annotated[str | None, Query(max_length=200)] = None,
) -> dict[str, Any]:
    return {"entries": [audit_json(e) for e in recent(db, limit, target)]}
