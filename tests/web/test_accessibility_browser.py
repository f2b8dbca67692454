"""Every page as the person it is for, checked by axe-core (WCAG 2 A and AA, light and dark,
at 1280 and 390 px: no serious or critical violation) and kept as screenshots
(test-output/screenshots/<name>-<width>-<scheme>.png): sign-in and its error, the empty ask
page, an answer (and marked as answering), an answer from a past version and its superseded
passage, a cited passage, both non-answers (probably here, not covered) and the handoff
sent, the owner's handoffs open and closed and an asker's, the asker's history with the reply,
gaps, the feedback per document, documents and a failed upload, one document, jobs with a
failed one, the admin's users, one user and the audit log, and the 403 and 404 pages. Each
test first asserts the page shows what it is about, so a check never passes on an empty or
wrong page. One browser context per user for the module; 1-5 s a page (four axe runs,
four screenshots)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.axe import DESKTOP, check_page
from tests.web.conftest import LiveServer, sign_in

pytestmark = pytest.mark.browser

ANSWERED = "How many days per week may employees work from home?"
PAST_VERSION = "What was the daily meal allowance under the 2022 travel policy?"
PROBABLY_HERE = "How many dogs may I bring on home working days?"
NOT_COVERED = "Is there a sauna in the basement of the Oslo office?"
HANDED_OFF = "May I bring a parrot to my home working desk on video calls?"


@pytest.fixture(scope="module")
def page_as(browser: Any, live_server: LiveServer) -> Iterator[Callable[[str | None], Any]]:
    """A page signed in as the named user (``None``: anonymous), one per user, kept for the
    module: each test goes to its own page in it."""
    pages: dict[str | None, Any] = {}

    def page_of(name: str | None) -> Any:
        if name not in pages:
            context = browser.new_context(
                base_url=live_server.url, viewport=DESKTOP, color_scheme="light"
            )
            page = context.new_page()
            page.set_default_timeout(30_000)
            if name:
                sign_in(page, name)
            pages[name] = page
        return pages[name]

    yield page_of
    for page in pages.values():
        page.context.close()


def ask(page: Any, question: str) -> None:
    # An empty ask page: the page shows the tab's last answer again when there is one.
    page.goto("/")
    page.evaluate("sessionStorage.clear()")
    page.goto("/")
    page.get_by_role("textbox", name="Your question").fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()
    page.wait_for_selector(".answer, .nonanswer")


def test_sign_in_page_and_its_error(page_as: Callable[[str | None], Any]) -> None:
    page = page_as(None)
    page.goto("/login")
    assert page.get_by_role("button", name="Sign in").is_visible()
    check_page(page, "login")
    page.get_by_label("User name").fill("nobody-at-all")  # no other test's lockout count
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    assert "Wrong user name or password" in page.inner_text(".alert-error")
    check_page(page, "login-error")


def test_ask_page_empty(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    page.goto("/")
    assert page.inner_text("h1") == "Ask about a policy"
    check_page(page, "ask-empty")


def test_an_answer(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    ask(page, ANSWERED)
    assert "three days" in page.inner_text(".answer-text")
    check_page(page, "ask-answer")
    page.get_by_role("button", name="This answered it").click()
    page.wait_for_selector(".feedback [aria-pressed='true']")
    check_page(page, "ask-answer-marked", shots=False)


def test_an_answer_from_a_past_version(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    ask(page, PAST_VERSION)
    assert "30 euros" in page.inner_text(".answer-text")
    assert page.locator(".citations .badge-superseded").count() >= 1
    check_page(page, "ask-answer-past-version")
    page.locator(".citation.status-superseded .citation-link").first.click()
    page.wait_for_selector("article.passage .alert-warn")
    assert "Superseded." in page.inner_text(".alert-warn")
    check_page(page, "passage-superseded")
    page.get_by_role("link", name="Read the passage that replaced it").click()
    page.wait_for_selector("article.passage .badge-current")
    assert "45 euros" in page.inner_text(".passage-text")


def test_the_passage_an_answer_cites(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    ask(page, ANSWERED)
    page.locator(".citation-link").first.click()
    page.wait_for_selector("article.passage mark")
    assert "Working from home" in page.inner_text(".heading-path")
    check_page(page, "passage")


def test_a_non_answer_whose_answer_is_probably_here(
    page_as: Callable[[str | None], Any],
) -> None:
    page = page_as("ada")
    ask(page, PROBABLY_HERE)
    assert page.locator(".nonanswer.tier-probably_here").count() == 1
    assert page.locator(".closest .excerpt").count() >= 1
    check_page(page, "ask-probably-here")


def test_a_non_answer_the_documents_do_not_cover(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    ask(page, NOT_COVERED)
    assert page.locator(".nonanswer.tier-not_covered").count() == 1
    assert page.get_by_role("button", name="Ask a person").is_visible()
    check_page(page, "ask-not-covered")
    page.get_by_role("button", name="Ask a person").click()
    page.wait_for_selector(".alert-ok")
    check_page(page, "ask-handed-off")


def test_handoffs_of_the_owner(
    page_as: Callable[[str | None], Any], live_server: LiveServer
) -> None:
    ada = {"Authorization": f"Bearer {live_server.tokens['ada']}"}
    with httpx.Client(base_url=live_server.url, headers=ada, timeout=60) as client:
        asked = client.post("/api/ask", json={"question": HANDED_OFF}).json()
        assert asked["outcome"] != "answered"
        sent = client.post("/api/handoffs", json={"trace_id": asked["trace_id"]})
        assert sent.status_code == 201, sent.text
    page = page_as("eddie")
    page.goto("/handoffs")
    card = page.locator(".handoff", has_text=HANDED_OFF)
    assert card.count() == 1
    assert card.get_by_role("button", name="Send reply").is_visible()
    check_page(page, "handoffs")
    card.get_by_label("Reply to ada").fill("Parrots stay off camera; see the video-call guide.")
    card.get_by_role("button", name="Send reply").click()
    card.wait_for(state="detached")
    page.goto("/handoffs?state=closed")
    closed = page.locator(".handoff", has_text=HANDED_OFF)
    assert "Parrots stay off camera" in closed.inner_text()
    check_page(page, "handoffs-closed")


def test_handoffs_of_an_asker(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("ada")
    page.goto("/handoffs?state=all")
    assert page.inner_text("h1") == "Handoffs"
    check_page(page, "handoffs-asker")


def test_content_gaps(page_as: Callable[[str | None], Any], live_server: LiveServer) -> None:
    ada = {"Authorization": f"Bearer {live_server.tokens['ada']}"}
    asked = httpx.post(
        f"{live_server.url}/api/ask", headers=ada, json={"question": NOT_COVERED}, timeout=60
    )
    assert asked.json()["outcome"] == "insufficient_evidence"
    page = page_as("eddie")
    page.goto("/gaps")
    assert page.locator("tr", has_text=NOT_COVERED).count() == 1
    check_page(page, "gaps")


def test_documents(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("eddie")
    page.goto("/documents")
    assert page.locator("#documents-table").get_by_role("link", name="Remote Work Policy").count()
    assert page.get_by_role("button", name="Upload and ingest").is_visible()
    check_page(page, "documents")


def test_an_upload_that_fails(page_as: Callable[[str | None], Any], tmp_path: Path) -> None:
    # A refused file and one whose job fails: the upload's red states, and no new document
    # in the corpus the other browser tests ask.
    (tmp_path / "minutes.docx").write_bytes(b"PK\x03\x04 not really a word file")
    (tmp_path / "setup.exe").write_bytes(b"MZ")
    page = page_as("eddie")
    page.goto("/documents")
    page.set_input_files("#files", [str(tmp_path / "minutes.docx"), str(tmp_path / "setup.exe")])
    page.get_by_role("button", name="Upload and ingest").click()
    page.wait_for_selector(".upload-job .badge-job-failed")
    assert "setup.exe" in page.inner_text(".rejected")
    assert page.locator(".upload-job .job-file-error").count() == 1
    check_page(page, "documents-upload-failed")


def test_one_document(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("eddie")
    page.goto("/documents")
    page.locator("#documents-table").get_by_role("link", name="Remote Work Policy").click()
    page.wait_for_selector(".chunk")
    assert "three days per week" in page.inner_text(".chunks")
    check_page(page, "document")


def test_jobs(page_as: Callable[[str | None], Any], live_server: LiveServer) -> None:
    folder = live_server.services.settings.data_dir / "a11y-jobs"
    folder.mkdir(exist_ok=True)
    (folder / "agenda.docx").write_bytes(b"PK\x03\x04 not really a word file")
    ingestor = live_server.services.ingestor
    failed = ingestor.submit([folder / "agenda.docx"], root=folder, created_by="otto")
    ingestor.run(failed)
    page = page_as("otto")
    page.goto("/jobs")
    page.locator(f'article[data-job="{failed}"] .job-file-error').wait_for()
    assert page.locator("#jobs .badge-job-succeeded").count() >= 1
    check_page(page, "jobs")


@pytest.mark.parametrize(
    ("who", "path", "status", "title"),
    [
        ("ada", "/jobs", 403, "You don't have access to this"),
        ("ada", "/no-such-page", 404, "We can't find that page"),
        (None, "/no-such-page", 404, "We can't find that page"),
    ],
    ids=["403", "404", "404-anonymous"],
)
def test_error_pages(
    page_as: Callable[[str | None], Any], who: str | None, path: str, status: int, title: str
) -> None:
    page = page_as(who)
    response = page.goto(path)
    assert response.status == status
    assert page.inner_text("h1") == title
    check_page(page, f"error-{status}" + ("" if who else "-anonymous"))


def test_history_with_a_reply(page_as: Callable[[str | None], Any]) -> None:
    # After test_handoffs_of_the_owner: eddie's reply to ada's handed-off question.
    page = page_as("ada")
    page.goto("/history")
    item = page.locator(".history-item", has_text=HANDED_OFF)
    assert item.count() == 1 and "Parrots stay off camera" in item.inner_text()
    assert "the asker" not in page.inner_text("#history-list")  # words for the asker
    check_page(page, "history")


def test_feedback_per_document(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("eddie")
    page.goto("/feedback")
    assert page.inner_text("h1") == "Feedback per document"
    check_page(page, "feedback")


def test_users_one_user_and_the_audit_log(page_as: Callable[[str | None], Any]) -> None:
    page = page_as("admin")
    page.goto("/users")
    assert page.locator("tr", has_text="ada").count() >= 1
    # The admin's nav is the longest: at 1280 px every item is in sight, none cut off.
    nav = page.locator(".mainnav")
    assert nav.evaluate("n => n.scrollWidth - n.clientWidth") <= 0
    assert nav.get_by_role("link", name="Users").is_visible()
    check_page(page, "users")
    page.goto("/users/ada")
    assert "ada" in page.inner_text("h1").lower()
    check_page(page, "users-ada")
    page.goto("/audit")
    assert page.inner_text("h1") == "Audit log"
    check_page(page, "audit")
