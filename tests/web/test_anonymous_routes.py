"""Nothing about the API or its numbers is open without sign-in in the default settings
(``DOCENT_API_DOCS_PUBLIC`` off, no ``DOCENT_METRICS_TOKEN``): over real HTTP to the served
app, an anonymous client asking for ``/docs``, ``/redoc``, ``/openapi.json`` or ``/metrics``
gets 401 and none of what it asked for, whatever it accepts; an anonymous browser is sent to
sign in for the documents and gets the 401 for the metrics. tests/api/test_api_docs.py and
test_health.py hold the same rules at the ASGI level, and the signed-in and opened cases."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from docent.settings import Settings
from tests.web.conftest import LiveServer

DOCS = ("/docs", "/redoc", "/openapi.json")
ROUTES = (*DOCS, "/metrics")
# What each route would show a caller it let in.
SHOWN = ("swagger-ui", "redoc.standalone", '"openapi"', "/api/ask", "docent_", "# HELP")


def test_the_settings_the_served_app_runs_on_are_the_defaults(live_server: LiveServer) -> None:
    defaults = Settings.model_fields
    assert defaults["api_docs_public"].default is False
    assert defaults["metrics_token"].default is None
    settings = live_server.services.settings
    assert settings.api_docs_public is False and settings.metrics_token is None


@pytest.mark.parametrize("path", ROUTES)
@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_an_anonymous_client_is_refused(
    live_server: LiveServer, path: str, accept: str | None
) -> None:
    headers = {"Accept": accept} if accept else {}
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        refused = client.get(path, headers=headers, follow_redirects=False)
        forged = client.get(path, headers={"Authorization": "Bearer not-a-token", **headers})
    for response in (refused, forged):
        assert response.status_code == 401, (path, accept, response.status_code)
        assert response.json()["error"]["code"] == "unauthenticated"
        assert not [word for word in SHOWN if word in response.text], response.text


@pytest.mark.browser
def test_an_anonymous_browser_is_sent_to_sign_in(browser: Any, live_server: LiveServer) -> None:
    context = browser.new_context(base_url=live_server.url)
    try:
        page = context.new_page()
        for path in DOCS:
            page.goto(path)
            assert page.url.endswith(f"/login?next={path}"), page.url
            assert page.get_by_role("button", name="Sign in").is_visible()
            assert not [word for word in SHOWN if word in page.content()], path
        metrics = page.goto("/metrics")
        assert metrics is not None and metrics.status == 401
        assert "docent_" not in page.content()
    finally:
        context.close()
