"""Content gaps in a real browser: eddie's gaps page holds only real gaps — not a question the
documents answer, not a permission refusal, not a weak match the asker marked as the answer —
and a gap closes itself, with a note naming the document, after eddie uploads one that
covers it; otto (ops) reads the page too. Screenshots at desktop width and 390 px, light and
dark; and the docs team's feedback per document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.conftest import LiveServer, sign_in

pytestmark = pytest.mark.browser

CHOIR = "Is there a company choir I can join?"  # a real gap, until choir.md is uploaded
GYM = "Is there a gym discount for employees?"  # a real gap
REFUSED = "What does a litigation hold suspend?"  # above ada (legal only): a refusal
PROBABLY = "Who approves remote work from another country?"  # the documents hold it
MARKED = "Can I get a standing desk for home?"  # ada marks a weak match as the answer
PHONE = {"width": 390, "height": 844}


def ask_as(server: LiveServer, who: str, question: str) -> dict[str, Any]:
    response = httpx.post(
        f"{server.url}/api/ask",
        headers={"Authorization": f"Bearer {server.tokens[who]}"},
        json={"question": question},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def shots(new_page: Any, server: LiveServer, who: str, name: str) -> None:
    """The gaps page as ``who`` sees it, desktop and phone, light and dark."""
    for label, viewport in (("desktop", None), ("390", PHONE)):
        for scheme in ("light", "dark"):
            page = new_page(viewport=viewport, color_scheme=scheme)
            sign_in(page, who)
            page.goto("/gaps")
            page.wait_for_selector("h1")
            if viewport is PHONE:
                assert page.evaluate("document.documentElement.scrollWidth") <= 390
            page.screenshot(path=str(server.shots / f"{name}-{label}-{scheme}.png"), full_page=True)


def test_eddies_gaps_are_real_and_one_closes_after_an_upload(
    new_page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    for question in (CHOIR, GYM, REFUSED, PROBABLY):
        ask_as(live_server, "ada", question)
    assert ask_as(live_server, "ada", REFUSED)["tier"] == "not_covered"  # for her
    assert ask_as(live_server, "ada", PROBABLY)["tier"] == "probably_here"

    asker = new_page()  # ada finds her answer in a weak match: no gap
    sign_in(asker, "ada")
    asker.get_by_label("Your question").fill(MARKED)
    asker.get_by_role("button", name="Ask").click()
    asker.wait_for_selector(".nonanswer.tier-not_covered")
    with asker.expect_response(lambda r: r.url.endswith("/api/feedback")) as said:
        asker.locator(".closest li").first.get_by_role("button", name="This answered it").click()
    assert said.value.status == 200
    asker.get_by_text("Thanks — noted.").wait_for()

    page = new_page()
    sign_in(page, "eddie")
    page.goto("/gaps")
    table = page.locator("#open-gaps")
    for real in (CHOIR, GYM):
        row = table.locator("tr", has_text=real)
        assert row.count() == 1 and row.locator(".count").inner_text() == "1"
    body = page.inner_text("main")
    for not_a_gap in (REFUSED, PROBABLY, MARKED):
        assert not_a_gap not in body
    assert "litigation" not in body.lower()
    shots(new_page, live_server, "eddie", "15-gaps")

    doc = tmp_path / "choir.md"
    doc.write_text(
        "# Company Choir\n\n## Joining the choir\n\nAny employee can join the company choir; "
        "it rehearses on Thursdays at 18:00 in room 4.\n"
    )
    page.goto("/documents")
    page.set_input_files("#files", [str(doc)])
    page.get_by_label("Owner").fill("People Ops")
    page.get_by_role("button", name="Upload and ingest").click()
    page.wait_for_selector(".upload-job .badge-job-succeeded", timeout=60_000)

    page.goto("/gaps")
    assert page.locator("#open-gaps tr", has_text=CHOIR).count() == 0
    assert page.locator("#open-gaps tr", has_text=GYM).count() == 1
    closed = page.locator("#closed-gaps li", has_text=CHOIR)
    assert closed.count() == 1
    assert "choir.md now covers it" in " ".join(closed.inner_text().split())
    shots(new_page, live_server, "eddie", "16-gaps-after-upload")

    ops = new_page()
    sign_in(ops, "otto")
    ops.get_by_role("link", name="Content gaps").click()
    ops.wait_for_selector("#open-gaps")
    assert "The docs team writes what is missing" in ops.inner_text("main")
    assert ops.locator("#open-gaps tr", has_text=GYM).count() == 1


def test_the_docs_team_reads_feedback_per_document(new_page: Any, live_server: LiveServer) -> None:
    body = ask_as(live_server, "ada", "How many days per week may employees work from home?")
    assert body["tier"] == "answer"
    said = httpx.post(
        f"{live_server.url}/api/feedback",
        headers={"Authorization": f"Bearer {live_server.tokens['ada']}"},
        json={"trace_id": body["trace_id"], "verdict": "not_answered", "comment": "Fridays too?"},
        timeout=30,
    )
    assert said.status_code == 200, said.text
    page = new_page()
    sign_in(page, "eddie")
    page.get_by_role("link", name="Feedback").click()
    card = page.locator(".doc-feedback", has_text="remote-work.md")
    card.wait_for()
    assert "Fridays too?" in card.inner_text() and "It did not" in card.inner_text()
    page.screenshot(path=str(live_server.shots / "17-feedback-per-document.png"), full_page=True)
