# ruff: noqa: E501
"""The small things a person notices: the focus waits in the question box after sign-in; a
403 or 404 keeps the nav and says where to go; a dark system scheme gets a dark page with
readable text; a wide answer table scrolls inside its card on a phone. Screenshots at desktop
and 390 px, light and dark. Four tests (two of them run light and dark), about 10 s together
once the shared server is up."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.corpus import USERS
from tests.web.axe import assert_no_serious_violations
from tests.web.conftest import LiveServer, sign_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1200, "height": 860}
PHONE = {"width": 390, "height": 844}
# A table wider than a phone: the answer quotes its row under the header. Readable only by
# the ``legal`` group (cy), so the other browser tests' questions never meet it.
EQUIPMENT = """# Equipment Policy

## Standard equipment

Each role gets the equipment below on its first day.

| Role | Laptop | Monitors | Headset | Phone allowance | Replacement cycle |
| --- | --- | --- | --- | --- | --- |
| Engineering and data | 16-inch laptop with 32 GB memory | Two 27-inch monitors | Noise-cancelling headset | 30 euros per month | Every three years |
| Sales and support | 14-inch laptop with 16 GB memory | One 24-inch monitor | Wireless headset | 45 euros per month | Every four years |
"""
TABLE_QUESTION = "What is the phone allowance for engineering and data?"

# WCAG contrast of an element's text on the first opaque background behind it.
CONTRAST = """(selector) => {
  const rgb = (c) => c.match(/[\\d.]+/g).map(Number);
  const lum = (c) => {
    const [r, g, b] = rgb(c).slice(0, 3).map((v) => v / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const node = document.querySelector(selector);
  let back = node;
  while (back && (getComputedStyle(back).backgroundColor === "rgba(0, 0, 0, 0)")) back = back.parentElement;
  const bg = back ? getComputedStyle(back).backgroundColor : "rgb(255, 255, 255)";
  const [hi, lo] = [lum(getComputedStyle(node).color), lum(bg)].sort((a, b) => b - a);
  return { ratio: (hi + 0.05) / (lo + 0.05), background: lum(bg) };
}"""
# Text on the answer page, each against what it sits on: body text, muted text, a link, the
# primary button, the clearance badge, a citation's status badge, the active nav item.
PAIRS = (
    ".answer-text",
    ".hero .muted",
    ".answer .eyebrow",
    ".citation-meta code",
    "#ask-button",
    ".userchip .badge-level",
    ".citations .badge-current",
    ".mainnav a[aria-current='page']",
    ".footer span",
)


def shot(page: Any, server: LiveServer, name: str) -> None:
    # From the top, the pointer off the page: a sticky bar and a hover state stay out of it.
    page.mouse.move(0, 0)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(server.shots / f"{name}.png"), full_page=True)


def ask(page: Any, question: str) -> None:
    page.get_by_label("Your question").fill(question)
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector(".answer, .nonanswer")


@pytest.fixture(scope="module")
def equipment(live_server: LiveServer) -> None:
    folder = live_server.services.settings.data_dir / "equipment"
    folder.mkdir(exist_ok=True)
    (folder / "equipment.md").write_text(EQUIPMENT)
    ingestor = live_server.services.ingestor
    job_id = ingestor.submit(
        [folder / "equipment.md"], root=folder, created_by="otto", overrides={"groups": "legal"}
    )
    ingestor.run(job_id)
    assert ingestor.job_status(job_id)["state"] == "succeeded"


def test_after_sign_in_the_focus_is_in_the_question_box(
    new_page: Any, live_server: LiveServer
) -> None:
    page = new_page()
    sign_in(page, "ada")
    assert page.evaluate("document.activeElement.id") == "question"
    page.keyboard.type("typed straight away")
    assert page.get_by_label("Your question").input_value() == "typed straight away"
    ask(page, "How many days per week may employees work from home?")
    # Signed out and in again as someone else in the same tab: the last answer was the
    # previous person's; the page starts empty, the focus in the question box.
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/login")
    page.get_by_label("User name").fill("cy")
    page.get_by_label("Password").fill(USERS["cy"].password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector(".userchip")
    assert page.locator("#result").is_hidden()
    assert page.evaluate("document.activeElement.id") == "question"


def test_403_and_404_keep_the_nav_and_say_where_to_go(
    new_page: Any, live_server: LiveServer
) -> None:
    for viewport, scheme, suffix in ((DESKTOP, "light", "desktop"), (PHONE, "dark", "phone-dark")):
        page = new_page(viewport, scheme)
        sign_in(page, "ada")
        for path, status, title in (
            ("/no-such-page", 404, "We can't find that page"),
            ("/jobs", 403, "You don't have access to this"),
        ):
            response = page.goto(path)
            assert response.status == status
            assert page.inner_text("h1") == title
            assert page.locator(".mainnav a").all_inner_texts() == ["Ask", "History", "Handoffs"]
            assert page.locator(".userchip").is_visible()
            assert page.get_by_role("button", name="Sign out").is_visible()
            where = page.get_by_role("navigation", name="Where to go")
            where.get_by_role("link", name="Handoffs").wait_for()
            shot(page, live_server, f"20-error-{status}-{suffix}")
        page.get_by_role("navigation", name="Where to go").get_by_role("link", name="Ask").click()
        page.wait_for_selector("#ask-form")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_system_scheme_with_readable_text(
    new_page: Any, live_server: LiveServer, equipment: None, scheme: str
) -> None:
    page = new_page(DESKTOP, scheme)
    sign_in(page, "cy")
    ask(page, TABLE_QUESTION)
    page.wait_for_selector(".answer .answer-table")
    body = page.evaluate(CONTRAST, "body")
    assert body["background"] < 0.02 if scheme == "dark" else body["background"] > 0.8
    for selector in PAIRS:
        ratio = page.evaluate(CONTRAST, selector)["ratio"]
        assert ratio >= 4.5, f"{scheme}: {selector} has contrast {ratio:.2f}"
    assert_no_serious_violations(page, f"the answer with a table, {scheme}", schemes=(scheme,))
    shot(page, live_server, f"21-answer-table-desktop-{scheme}")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_wide_answer_table_scrolls_inside_its_card_on_a_phone(
    new_page: Any, live_server: LiveServer, equipment: None, scheme: str
) -> None:
    page = new_page(PHONE, scheme)
    sign_in(page, "cy")
    ask(page, TABLE_QUESTION)
    region = page.locator(".answer-text .table-scroll")
    region.wait_for()
    assert "30 euros per month" in region.inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    card = page.locator(".answer").bounding_box()
    scrolling = page.locator(".answer .table-scroll")  # the answer's and its citation's
    assert scrolling.count() == 2
    for n in range(2):
        edge = scrolling.nth(n).bounding_box()
        assert edge["x"] >= card["x"] and edge["x"] + edge["width"] <= card["x"] + card["width"]
    box = region.bounding_box()
    assert region.evaluate("(r) => r.scrollWidth > r.clientWidth")  # wider than the card
    last = region.locator("th").last
    assert last.inner_text() == "Replacement cycle"
    assert last.bounding_box()["x"] >= box["x"] + box["width"]  # off to the right, at first
    assert_no_serious_violations(page, f"the answer table on a phone, {scheme}", schemes=(scheme,))
    shot(page, live_server, f"22-answer-table-phone-{scheme}")
    # By keyboard: the region takes the focus and the arrow key scrolls it to its last column.
    region.focus()
    at_end = "(r) => r.scrollLeft + r.clientWidth >= r.scrollWidth - 1"
    for _ in range(60):
        if region.evaluate(at_end):
            break
        page.keyboard.press("ArrowRight")
    assert region.evaluate(at_end)
    end = last.bounding_box()
    assert end["x"] + end["width"] <= box["x"] + box["width"] + 1
