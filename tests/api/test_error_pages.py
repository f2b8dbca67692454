"""A browser's 403 and 404 pages keep the nav and the user chip, say in plain words what
happened, and list where that user can go; an anonymous one is offered to sign in."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.api.conftest import ApiEnv
from tests.api.test_auth import login

HTML = {"Accept": "text/html"}


def nav_links(page: str) -> list[str]:
    nav = re.search(r'<nav class="mainnav".*?</nav>', page, flags=re.S)
    assert nav is not None, "the page lost its nav"
    return re.findall(r'href="([^"]+)"', nav.group(0))


def test_a_missing_page_keeps_the_nav_and_says_where_to_go(env: ApiEnv) -> None:
    page = env.get("ada", "/no-such-page", headers=HTML)
    assert page.status_code == 404
    assert "We can't find that page" in page.text
    assert "Not Found" not in page.text  # not the framework's words, twice
    assert nav_links(page.text) == ["/", "/history", "/handoffs"]
    assert 'class="userchip"' in page.text and "ada" in page.text
    where = re.search(r'<nav class="error-links".*?</nav>', page.text, flags=re.S)
    assert where is not None and re.findall(r'href="([^"]+)"', where.group(0)) == [
        "/",
        "/history",
        "/handoffs",
    ]


def test_a_missing_document_names_what_was_not_found(env: ApiEnv) -> None:
    page = env.get("eddie", "/documents/no-such-doc", headers=HTML)
    assert page.status_code == 404
    assert "We can't find that page" in page.text and "no-such-doc" in page.text
    assert "/documents" in nav_links(page.text)


def test_a_forbidden_page_keeps_the_nav_and_says_why(env: ApiEnv) -> None:
    page = env.get("ada", "/jobs", headers=HTML)
    assert page.status_code == 403
    assert "You don't have access to this" in page.text
    assert "signed in as <strong>ada</strong>" in page.text
    assert "operator" in page.text  # the role it needs
    assert nav_links(page.text) == ["/", "/history", "/handoffs"]
    assert 'class="userchip"' in page.text


def test_a_session_keeps_its_sign_out_form_on_an_error_page(env: ApiEnv) -> None:
    client = TestClient(env.app)
    csrf = login(client, "eddie")
    page = client.get("/jobs", headers=HTML)
    assert page.status_code == 403
    assert f'name="csrf_token" value="{csrf}"' in page.text  # the Sign out form works
    assert nav_links(page.text) == [
        "/",
        "/history",
        "/handoffs",
        "/documents",
        "/gaps",
        "/feedback",
    ]


def test_an_anonymous_missing_page_offers_to_sign_in(env: ApiEnv) -> None:
    page = env.client.get("/no-such-page", headers=HTML)
    assert page.status_code == 404
    assert 'class="userchip"' not in page.text and 'class="mainnav"' not in page.text
    assert 'href="/login"' in page.text
