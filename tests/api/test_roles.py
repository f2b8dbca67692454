"""Every endpoint declares its role; default deny. The table below must name every route of
the app (a new route without a row fails ``test_table_covers_every_route``), and each row is
tried anonymously, by a user without the role, and by a user with it."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import APIRouter, FastAPI

from api.app import api_routes, check_every_route_declares_a_role
from docent.errors import ConfigError
from tests.api.conftest import ApiEnv

# (method, route path, concrete path, role, body)
ROUTES: list[tuple[str, str, str, str, Any]] = [
    ("GET", "/healthz", "/healthz", "public", None),
    ("GET", "/readyz", "/readyz", "public", None),
    ("GET", "/metrics", "/metrics", "public", None),
    ("GET", "/login", "/login", "public", None),
    ("POST", "/login", "/login", "public", None),
    ("POST", "/logout", "/logout", "any", None),
    ("GET", "/api/me", "/api/me", "any", None),
    ("POST", "/api/ask", "/api/ask", "asker", {"question": "How often can I work from home?"}),
    ("GET", "/api/passages/{chunk_id:path}", "/api/passages/pricing.md#0", "asker", None),
    ("GET", "/api/traces/{trace_id}", "/api/traces/no-such-trace", "any", None),
    ("POST", "/api/handoffs", "/api/handoffs", "asker", {"question": "role table question"}),
    ("GET", "/api/handoffs", "/api/handoffs", "any", None),
    ("POST", "/api/handoffs/{handoff_id}/close", "/api/handoffs/999999/close", "any", {}),
    ("GET", "/api/gaps", "/api/gaps", "editor", None),
    ("GET", "/api/documents", "/api/documents", "editor", None),
    ("POST", "/api/documents", "/api/documents", "editor", None),
    ("GET", "/api/documents/{doc_id}", "/api/documents/nope", "editor", None),
    ("POST", "/api/documents/{doc_id}/retire", "/api/documents/nope/retire", "editor", None),
    ("GET", "/api/jobs", "/api/jobs", "any", None),
    ("GET", "/api/jobs/{job_id}", "/api/jobs/nope", "any", None),
    ("POST", "/api/jobs/{job_id}/retry", "/api/jobs/nope/retry", "operator", None),
    ("POST", "/api/jobs/{job_id}/cancel", "/api/jobs/nope/cancel", "operator", None),
    ("POST", "/api/reindex", "/api/reindex", "operator", "skip-allowed"),
    ("GET", "/", "/", "any", None),
    ("GET", "/passages/{chunk_id:path}", "/passages/pricing.md#0", "asker", None),
    ("GET", "/handoffs", "/handoffs", "any", None),
    ("GET", "/gaps", "/gaps", "editor", None),
    ("GET", "/documents", "/documents", "editor", None),
    ("GET", "/documents/{doc_id}", "/documents/nope", "editor", None),
    ("GET", "/jobs", "/jobs", "operator", None),
]

HOLDER = {"asker": "ada", "editor": "carla", "operator": "otto", "admin": "admin", "any": "norole"}
LACKING = {"asker": "otto", "editor": "ada", "operator": "eddie", "admin": "ada", "any": None}


def _call(env: ApiEnv, who: str | None, method: str, path: str, body: Any) -> Any:
    headers = env.as_user(who) if who else {}
    headers["Accept"] = "application/json"
    url = path.replace("#", "%23")
    if method == "GET":
        return env.client.get(url, headers=headers, follow_redirects=False)
    json = body if isinstance(body, dict) else None
    return env.client.post(url, headers=headers, json=json, follow_redirects=False)


def test_table_covers_every_route(env: ApiEnv) -> None:
    app_routes = {(method, route.path) for route in api_routes(env.app) for method in route.methods}
    assert app_routes == {(m, p) for m, p, *_ in ROUTES}


@pytest.mark.parametrize(("method", "pattern", "path", "role", "body"), ROUTES)
def test_anonymous_is_refused_unless_public(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any
) -> None:
    response = _call(env, None, method, path, body)
    if role == "public":
        assert response.status_code not in (401, 403)
    else:
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "unauthenticated"


@pytest.mark.parametrize(
    ("method", "pattern", "path", "role", "body"), [r for r in ROUTES if LACKING.get(r[3])]
)
def test_a_user_without_the_role_is_forbidden(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any
) -> None:
    who = LACKING[role]
    response = _call(env, who, method, path, body)
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize(("method", "pattern", "path", "role", "body"), ROUTES)
def test_a_user_with_the_role_gets_past_the_check(
    env: ApiEnv, method: str, pattern: str, path: str, role: str, body: Any
) -> None:
    if body == "skip-allowed":  # reindexing the shared corpus is tested in test_jobs
        return
    who = HOLDER.get(role, "admin")
    for user in (who, "admin"):
        response = _call(env, user, method, path, body)
        assert response.status_code not in (401, 403), (user, response.text)


def test_an_app_with_a_route_that_declares_no_role_refuses_to_start() -> None:
    app = FastAPI()
    router = APIRouter()

    @router.get("/open-by-mistake")
    def open_by_mistake() -> dict[str, str]:
        return {}

    app.include_router(router)
    with pytest.raises(ConfigError, match="open-by-mistake"):
        check_every_route_declares_a_role(app)
