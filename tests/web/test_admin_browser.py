"""The admin's journey in Chromium: add a person, raise their clearance, issue a token (its
secret shown once: a reload does not show it again) and revoke it; the audit page shows
each change with what it was before and after. Screenshots of the Users and Audit pages at
desktop width and 390 px, light and dark."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from tests.web.conftest import LiveServer, sign_in
from tests.web.test_polish_browser import DESKTOP, PHONE, shot

pytestmark = pytest.mark.browser
# The elements that reach past the viewport's right edge (what makes a page scroll sideways).
TOO_WIDE = """(width) => [...document.querySelectorAll("main *")]
  .filter((n) => n.getBoundingClientRect().right > width + 1)
  .filter((n) => !n.parentElement.closest(".table-wrap, .table-scroll"))
  .slice(0, 5).map((n) => `${n.tagName}.${n.className} ${n.getBoundingClientRect().right}`)"""


def me(server: LiveServer, secret: str) -> httpx.Response:
    return httpx.get(f"{server.url}/api/me", headers={"Authorization": f"Bearer {secret}"})


def add_nina(page: Any) -> None:
    page.goto("/users")
    form = page.locator("#add-user-form")
    form.get_by_label("User name").fill("nina")
    form.get_by_label("Display name").fill("Nina Novak")
    form.get_by_label("First password").fill("nina's first password")
    form.get_by_label("Clearance").select_option("employee")
    form.get_by_label("Groups").fill("legal")
    form.get_by_role("button", name="Add user").click()
    page.wait_for_url("**/users/nina?done=added")


def issue_token(page: Any) -> str:
    page.get_by_label("What the token is for").fill("nightly export")
    page.get_by_role("button", name="Issue token").click()
    page.locator("#new-token").wait_for(state="visible")
    secret: str = page.locator("#new-token-secret").inner_text()
    return secret


def test_admin_adds_a_user_changes_clearance_issues_and_revokes_a_token(
    new_page: Any, live_server: LiveServer
) -> None:
    page = new_page()
    sign_in(page, "admin")
    assert "Users" in page.locator(".mainnav").inner_text()
    add_nina(page)
    assert "User added" in page.locator("#notice").inner_text()
    assert page.locator("h1").inner_text() == "Nina Novak"
    assert page.locator("#shown-clearance").inner_text() == "employee"

    page.locator("#user-form").get_by_label("Clearance").select_option("confidential")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_url("**/users/nina?done=saved")
    assert page.locator("#notice").inner_text() == "Changes saved."
    assert page.locator("#shown-clearance").inner_text() == "confidential"

    secret = issue_token(page)
    prefix = secret.split("_")[1]
    assert secret.startswith("dct_")
    assert "shown only this once" in page.locator("#new-token").inner_text()
    assert me(live_server, secret).json()["username"] == "nina"
    page.reload()
    assert page.locator("#new-token").is_hidden()
    assert secret not in page.content()  # only the prefix is left to show
    row = page.locator(f'tr[data-token="{prefix}"]')
    assert "nightly export" in row.inner_text() and f"dct_{prefix}_" in row.inner_text()

    row.get_by_role("button", name=re.compile("Revoke")).click()
    page.wait_for_url("**/users/nina?done=revoked")
    assert "Token revoked" in page.locator("#notice").inner_text()
    assert page.locator(f'tr[data-token="{prefix}"]').count() == 0
    assert me(live_server, secret).status_code == 401

    page.goto("/users")
    page.locator(".tabs").get_by_role("link", name="Audit log").click()
    page.wait_for_url("**/audit")
    rows = page.locator('#audit-table tr[data-target="nina"]')
    shown = [(r.get_attribute("data-action"), r.inner_text()) for r in rows.all()]
    assert [action for action, _ in shown] == [
        "token.revoked",
        "token.issued",
        "user.clearance_changed",
        "user.added",
    ]
    revoked, issued, clearance, added = (text for _, text in shown)
    assert "admin" in revoked and re.search(r"revoked\s+no\s+→\s+yes", revoked)
    assert prefix in issued and "nightly export" in issued and secret not in page.content()
    assert re.search(r"clearance\s+employee\s+→\s+confidential", clearance)
    assert "Nina Novak" in added and "legal" in added and "→" not in added
    assert "→" not in issued and "nightly export →" not in revoked  # only what changed moves


def test_an_admin_is_not_offered_to_disable_themselves(
    new_page: Any, live_server: LiveServer
) -> None:
    page = new_page()
    sign_in(page, "admin")
    page.goto("/users")
    form = page.locator("#add-user-form")
    form.get_by_label("User name").fill("ADA")
    form.get_by_label("First password").fill("long enough password")
    form.get_by_role("button", name="Add user").click()
    alert = form.get_by_role("alert")
    assert alert.inner_text() == "user 'ADA' already exists as 'ada'"
    form.get_by_label("User name").fill("pat")
    form.get_by_label("Groups").fill("legal; finance")
    form.get_by_role("button", name="Add user").click()
    assert "group name(s) ['legal; finance'] not allowed" in form.get_by_role("alert").inner_text()
    page.goto("/users/admin")
    assert page.locator("#toggle-disabled").count() == 0
    assert "You can't disable your own account" in page.inner_text("main")
    other = new_page()
    sign_in(other, "ada")
    assert "Users" not in other.locator(".mainnav").inner_text()
    response = other.goto("/users")
    assert response.status == 403
    assert "You don't have access to this" in other.inner_text("main")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screenshots_of_the_users_and_audit_pages(
    new_page: Any, live_server: LiveServer, scheme: str
) -> None:
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page = new_page(viewport, scheme)
        sign_in(page, "admin")
        for name in ("users", "audit", "users/ada"):
            page.goto(f"/{name}")
            width = page.evaluate("document.documentElement.scrollWidth")
            wide = page.evaluate(TOO_WIDE, viewport["width"])
            assert width <= viewport["width"], f"/{name} is {width}px wide at {size}: {wide}"
            shot(page, live_server, f"30-admin-{name.replace('/', '-')}-{size}-{scheme}")
