"""Every endpoint declares its role; default deny. The table below must name every route of
the app (a new route without a row fails ``test_table_covers_every_route``), and each row is
tried anonymously, by a user without the role, and by a user with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI

from api.app import api_routes, check_every_route_declares_a_role
from docent.errors import ConfigError
from tests.api.conftest import ApiEnv
from tests.api.test_jobs import env_with_documents

# (method, route path, concrete path, role, body, (status for the role holder, for an admin,
# for anyone when public)): 404/422 mean the call got past the role check to the route itself.
Expected = tuple[int, int, int | None]
ROUTES: list[tuple[str, str, str, str, Any, Expected]] = [
    ("GET", "/healthz", "/healthz", "public", None, (200, 200, 200)),
    ("GET", "/readyz", "/readyz", "public", None, (200, 200, 200)),
    ("GET", "/metrics", "/metrics", "operator", None, (200, 200, None)),
    ("GET", "/openapi.json", "/openapi.json", "any", None, (200, 200, None)),
    ("GET", "/docs", "/docs", "any", None, (200, 200, None)),
    ("GET", "/redoc", "/redoc", "any", None, (200, 200, None)),
    ("GET", "/login", "/login", "public", None, (303, 303, 200)),
    ("POST", "/login", "/login", "public", None, (422, 422, 422)),
    ("POST", "/logout", "/logout", "any", None, (303, 303, None)),
    ("GET", "/api/me", "/api/me", "any", None, (200, 200, None)),
    (
        "POST",
        "/api/ask",
        "/api/ask",
        "asker",
        {"question": "How often can I work from home?"},
        (200, 200, None),
    ),
    (
        "GET",
        "/api/passages/{chunk_id:path}",
        "/api/passages/pricing.md#0",
        "asker",
        None,
        (200, 200, None),
    ),
    ("GET", "/api/traces/{trace_id}", "/api/traces/no-such-trace", "any", None, (404, 404, None)),
    (
        "POST",
        "/api/handoffs",
        "/api/handoffs",
        "asker",
        {"question": "role table question"},
        (201, 201, None),
    ),
    ("GET", "/api/handoffs", "/api/handoffs", "any", None, (200, 200, None)),
    (
        "POST",
        "/api/feedback",
        "/api/feedback",
        "asker",
        {"trace_id": "no-such-trace", "verdict": "answered"},
        (404, 404, None),
    ),
    (
        "POST",
        "/api/handoffs/{handoff_id}/close",
        "/api/handoffs/999999/close",
        "any",
        {},
        (404, 404, None),
    ),
    ("GET", "/api/gaps", "/api/gaps", "gaps", None, (200, 200, None)),
    ("GET", "/api/feedback/documents", "/api/feedback/documents", "editor", None, (200, 200, None)),
    (
        "POST",
        "/api/handoffs/{handoff_id}/gap",
        "/api/handoffs/999999/gap",
        "any",
        {},
        (404, 404, None),
    ),
    (
        "POST",
        "/api/handoffs/{handoff_id}/read",
        "/api/handoffs/999999/read",
        "any",
        {},
        (404, 404, None),
    ),
    ("GET", "/api/history", "/api/history", "asker", None, (200, 200, None)),
    (
        "GET",
        "/api/history/{trace_id}",
        "/api/history/no-such-trace",
        "asker",
        None,
        (404, 404, None),
    ),
    ("GET", "/api/documents", "/api/documents", "editor", None, (200, 200, None)),
    ("POST", "/api/documents", "/api/documents", "editor", None, (422, 422, None)),
    ("GET", "/api/documents/{doc_id}", "/api/documents/nope", "editor", None, (404, 404, None)),
    (
        "POST",
        "/api/documents/{doc_id}/retire",
        "/api/documents/nope/retire",
        "editor",
        None,
        (404, 404, None),
    ),
    ("GET", "/api/jobs", "/api/jobs", "any", None, (200, 200, None)),
    ("GET", "/api/jobs/{job_id}", "/api/jobs/nope", "any", None, (404, 404, None)),
    (
        "POST",
        "/api/jobs/{job_id}/retry",
        "/api/jobs/nope/retry",
        "operator",
        None,
        (404, 404, None),
    ),
    (
        "POST",
        "/api/jobs/{job_id}/cancel",
        "/api/jobs/nope/cancel",
        "operator",
        None,
        (404, 404, None),
    ),
    ("POST", "/api/reindex", "/api/reindex", "operator", None, (202, 202, None)),
    ("GET", "/", "/", "any", None, (303, 200, None)),
    ("GET", "/passages/{chunk_id:path}", "/passages/pricing.md#0", "asker", None, (200, 200, None)),
    ("GET", "/handoffs", "/handoffs", "any", None, (200, 200, None)),
    ("GET", "/gaps", "/gaps", "gaps", None, (200, 200, None)),
    ("GET", "/feedback", "/feedback", "editor", None, (200, 200, None)),
    ("GET", "/history", "/history", "asker", None, (200, 200, None)),
    ("GET", "/documents", "/documents", "editor", None, (200, 200, None)),
    ("GET", "/documents/{doc_id}", "/documents/nope", "editor", None, (404, 404, None)),
    ("GET", "/jobs", "/jobs", "operator", None, (200, 200, None)),
    ("GET", "/api/admin/users", "/api/admin/users", "admin", None, (200, 200, None)),
    ("POST", "/api/admin/users", "/api/admin/users", "admin", {}, (422, 422, None)),
    ("GET", "/api/admin/users/{username}", "/api/admin/users/x", "admin", None, (404, 404, None)),
    ("PATCH", "/api/admin/users/{username}", "/api/admin/users/x", "admin", {}, (404, 404, None)),
    (
        "POST",
        "/api/admin/users/{username}/tokens",
        "/api/admin/users/nobody/tokens",
        "admin",
        {"label": "x"},
        (404, 404, None),
    ),
    (
        "POST",
        "/api/admin/tokens/{prefix}/revoke",
        "/api/admin/tokens/00000000/revoke",
        "admin",
        None,
        (404, 404, None),
    ),
    ("GET", "/api/admin/audit", "/api/admin/audit", "admin", None, (200, 200, None)),
    ("GET", "/users", "/users", "admin", None, (200, 200, None)),
    ("GET", "/users/{username}", "/users/nobody", "admin", None, (404, 404, None)),
    ("GET", "/audit", "/audit", "admin", None, (200, 200, None)),
]

# "gaps": the docs team or operators (api.users.GAP_READERS); carla's side: tests/api/test_gaps.py
HOLDER = {
    "asker": "ada",
    "editor": "carla",
    "operator": "otto",
    "gaps": "otto",
    "admin": "admin",
    "any": "norole",
}
LACKING = {
    "asker": "otto",
    "editor": "ada",
    "operator": "eddie",
    "gaps": "ada",
    "admin": "ada",
    "any": None,
}


def _call(env: ApiEnv, who: str | None, method: str, path: str, body: Any) -> Any:
    headers = env.as_user(who) if who else {}
    headers["Accept"] = "application/json"
    url = path.replace("#", "%23")
    if method == "GET":
        return env.client.get(url, headers=headers, follow_redirects=False)
    json = body if isinstance(body, dict) else None
    return env.client.request(method, url, headers=headers, json=json, follow_redirects=False)


def test_table_covers_every_route(env: ApiEnv) -> None:
    app_routes = {(method, route.path) for route in api_routes(env.app) for method in route.methods}
    assert app_routes == {(m, p) for m, p, *_ in ROUTES}


PUBLIC = [r for r in ROUTES if r[3] == "public"]
PRIVATE = [r for r in ROUTES if r[3] != "public"]
FIELDS = ("method", "pattern", "path", "role", "body", "expected")


@pytest.mark.parametrize(FIELDS, PUBLIC)
def test_anonymous_reaches_a_public_route(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any, expected: Expected
) -> None:
    assert _call(env, None, method, path, body).status_code == expected[2]


@pytest.mark.parametrize(FIELDS, PRIVATE)
def test_anonymous_is_refused_a_private_route(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any, expected: Expected
) -> None:
    response = _call(env, None, method, path, body)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "unauthenticated"


@pytest.mark.parametrize(FIELDS, [r for r in ROUTES if LACKING.get(r[3])])
def test_a_user_without_the_role_is_forbidden(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any, expected: Expected
) -> None:
    who = LACKING[role]
    response = _call(env, who, method, path, body)
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "forbidden"


# Reindexing the shared corpus would disturb the other tests: it has its own fresh app below.
@pytest.mark.parametrize(FIELDS, [r for r in ROUTES if r[2] != "/api/reindex"])
def test_a_user_with_the_role_gets_past_the_check(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any, expected: Expected
) -> None:
    who = HOLDER.get(role, "admin")
    for user, status in ((who, expected[0]), ("admin", expected[1])):
        response = _call(env, user, method, path, body)
        assert response.status_code == status, (user, response.text)
        if status >= 400:  # the route's own answer, in the app's error shape
            assert response.json()["error"]["code"] not in ("unauthenticated", "forbidden")


def test_an_operator_and_an_admin_may_reindex(make_env: Callable[..., ApiEnv]) -> None:
    fresh = env_with_documents(make_env)
    for user in ("otto", "admin"):
        response = _call(fresh, user, "POST", "/api/reindex", None)
        assert response.status_code == 202, response.text
        assert response.json()["state"] == "queued"


def test_an_app_with_a_route_that_declares_no_role_refuses_to_start() -> None:
    app = FastAPI()
    router = APIRouter()

    @router.get("/open-by-mistake")
    def open_by_mistake() -> dict[str, str]:
        return {}

    app.include_router(router)
    with pytest.raises(ConfigError, match="open-by-mistake"):
        check_every_route_declares_a_role(app)
