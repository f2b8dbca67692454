"""The API's own documents (``/docs``, ``/redoc``, ``/openapi.json``) need sign-in like every
page, unless ``DOCENT_API_DOCS_PUBLIC``: an API client gets 401, a browser the sign-in page."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.api.conftest import ApiEnv

DOCS = ("/openapi.json", "/docs", "/redoc")
JSON = {"Accept": "application/json"}
HTML = {"Accept": "text/html"}


@pytest.mark.parametrize("path", DOCS)
def test_anonymous_callers_are_refused_the_api_documents(env: ApiEnv, path: str) -> None:
    refused = env.client.get(path, headers=JSON, follow_redirects=False)
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthenticated"
    assert refused.headers["WWW-Authenticate"] == "Bearer"
    assert "/api/ask" not in refused.text
    browser = env.client.get(path, headers=HTML, follow_redirects=False)
    assert browser.status_code == 303
    assert browser.headers["location"] == f"/login?next={path}"


def test_a_signed_in_person_reads_them(env: ApiEnv) -> None:
    spec = env.get("ada", "/openapi.json")
    assert spec.status_code == 200
    paths = spec.json()["paths"]
    assert "/api/ask" in paths and not set(DOCS) & set(paths)
    assert "swagger-ui" in env.get("ada", "/docs", headers=HTML).text
    assert "redoc" in env.get("ada", "/redoc", headers=HTML).text
    assert "/openapi.json" in env.get("ada", "/docs", headers=HTML).text


def test_a_deployment_may_open_them(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(api_docs_public=True)
    for path in DOCS:
        assert env.client.get(path, follow_redirects=False).status_code == 200, path
    assert "/api/ask" in env.client.get("/openapi.json").json()["paths"]


def test_the_readme_lists_every_operation_of_the_schema(env: ApiEnv) -> None:
    """The README's endpoint list says how many operations there are and names the last
    fixed part of each one's path: a new route must be documented."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("- **Endpoints** (", 1)[1].split("\n- **", 1)[0]
    operations = [
        (method.upper(), path)
        for path, methods in env.get("ada", "/openapi.json").json()["paths"].items()
        for method in methods
    ]
    assert block.startswith(f"{len(operations)} operations")
    written = " ".join(block.split())
    for method, path in operations:
        fixed = [part for part in path.split("/") if part and not part.startswith("{")]
        # The method within the few words before some mention of the path's last fixed part.
        mentions = [m.start() for m in re.finditer(re.escape(f"/{fixed[-1]}"), written)]
        assert any(method in written[max(0, at - 60) : at] for at in mentions), (method, path)
