"""The four journeys in a real browser: an employee asks and opens a citation; an abstention
offers a person and hands the question over; an editor uploads, watches the job finish and
the list update; an operator retries a failed job (only one a retry can fix). Each screen is
kept as a screenshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from docent.db.session import session_scope
from ingest import jobs
from ingest.faults import DB_DOWN
from tests.api.corpus import FILES, SECRET
from tests.web.conftest import LiveServer, sign_in

pytestmark = pytest.mark.browser


def shot(page: Any, server: LiveServer, name: str) -> None:
    page.screenshot(path=str(server.shots / f"{name}.png"), full_page=True)


def test_login_page(new_page: Any, live_server: LiveServer) -> None:
    page = new_page()
    page.goto("/")
    assert page.url.endswith("/login?next=/")
    shot(page, live_server, "01-login")
    page.get_by_label("User name").fill("ada")
    page.get_by_label("Password").fill("wrong")
    page.get_by_role("button", name="Sign in").click()
    assert "Wrong user name or password" in page.inner_text(".alert-error")


def test_guessing_a_password_meets_a_wait_on_the_sign_in_form(
    new_page: Any, live_server: LiveServer
) -> None:
    page = new_page()
    page.goto("/login")
    for i in range(5):  # a name no other test signs in with: its lockout stays its own
        page.get_by_label("User name").fill("mallory")
        page.get_by_label("Password").fill(f"guess-{i}")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_selector(".alert-error")
    alert = page.inner_text(".alert-error")
    assert alert.startswith("Too many failed sign-ins. Try again in ") and "seconds" in alert
    assert page.get_by_label("User name").input_value() == "mallory"  # the form, ready again
    shot(page, live_server, "01b-login-locked")


def test_an_employee_asks_and_opens_a_citation(new_page: Any, live_server: LiveServer) -> None:
    page = new_page()
    sign_in(page, "ada")
    shot(page, live_server, "02-ask-empty")
    # Keyboard only: the question box is focusable, Enter asks.
    page.get_by_label("Your question").focus()
    page.keyboard.type("How many days per week may employees work from home?")
    page.keyboard.press("Enter")
    page.wait_for_selector(".answer")
    assert "three days" in page.inner_text(".answer-text")
    markers = page.locator(".answer-text .cite")
    assert markers.count() >= 1 and markers.first.inner_text() == "1"
    assert "remote-work.md" in page.inner_text(".citations")
    assert SECRET not in page.content()
    shot(page, live_server, "03-ask-answer")
    page.locator(".citation-link").first.click()
    page.wait_for_selector("article.passage")
    assert "Working from home" in page.inner_text(".heading-path")
    assert "manager's agreement" in page.inner_text("mark")
    assert page.inner_text(".badge-current") == "Current"
    shot(page, live_server, "04-passage")
    page.go_back()
    page.wait_for_selector(".answer")  # the answer is restored, not lost


def test_an_answer_on_a_phone(new_page: Any, live_server: LiveServer) -> None:
    page = new_page({"width": 390, "height": 844})
    sign_in(page, "ada")
    page.get_by_label("Your question").fill("What is the daily meal allowance for travel?")
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector(".answer")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing overflows sideways
    shot(page, live_server, "05-ask-answer-phone")


def test_an_abstention_offers_a_person_and_hands_it_over(
    new_page: Any, live_server: LiveServer
) -> None:
    page = new_page()
    sign_in(page, "ada")
    page.get_by_label("Your question").fill("How many dogs may I bring on home working days?")
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector(".nonanswer")
    # A passage on home working matched, but no sentence of it says anything about dogs:
    # the card says so, points at the passage to read, and offers a person.
    card = page.inner_text(".nonanswer")
    assert "Not clear enough to quote as the answer." in card
    assert "No sentence of the passages found matches the question closely enough" in card
    closest = page.locator(".closest a").first
    assert closest.inner_text().startswith("Remote Work Policy › ")
    assert "remote-work.md" in (closest.get_attribute("href") or "")
    # Each passage shows its sentence nearest the question, marked as no checked answer.
    assert "not a checked answer" in page.inner_text(".nonanswer")
    excerpt = " ".join(page.locator(".closest .excerpt").first.inner_text().split())
    assert excerpt and excerpt in " ".join(FILES["remote-work.md"].split())
    assert "People Ops" in page.inner_text(".handoff-offer")
    shot(page, live_server, "06-abstention")
    page.get_by_role("button", name="Ask a person").click()
    page.wait_for_selector(".alert-ok")
    assert "People Ops" in page.inner_text(".alert-ok")
    shot(page, live_server, "07-handoff-sent")

    owner = new_page()
    sign_in(owner, "eddie")
    owner.goto("/handoffs")
    card = owner.locator(".handoff", has_text="dogs may I bring")
    assert card.count() == 1
    shot(owner, live_server, "08-handoffs-owner")
    card.get_by_label("Reply to ada").fill("No pets at home-working desks; see the office guide.")
    with owner.expect_response(
        lambda r: "/close" in r.url and r.request.method == "POST", timeout=60_000
    ) as closing:
        card.get_by_role("button", name="Send reply").click()
    assert closing.value.status == 200, closing.value.text()
    owner.locator(".handoff", has_text="dogs may I bring").wait_for(
        state="detached", timeout=60_000
    )
    owner.goto("/handoffs?state=closed")
    assert "No pets" in owner.inner_text("#handoff-list")


def test_an_editor_uploads_a_document_and_watches_the_job(
    new_page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    doc = tmp_path / "canteen.md"
    doc.write_text(
        "# Canteen\n\n## Opening hours\n\nThe canteen serves lunch from 12:00 to 14:30.\n"
    )
    bad = tmp_path / "virus.exe"
    bad.write_bytes(b"MZ")
    page = new_page()
    sign_in(page, "eddie")
    page.goto("/documents")
    shot(page, live_server, "09-documents")
    page.set_input_files("#files", [str(doc), str(bad)])
    page.get_by_label("Owner").fill("Facilities")
    page.get_by_label("Effective date").fill("2025-03-01")
    page.get_by_role("button", name="Upload and ingest").click()
    page.wait_for_selector(".upload-job .job")
    assert "virus.exe" in page.inner_text(".rejected")
    page.wait_for_selector(".upload-job .badge-job-succeeded", timeout=60_000)
    assert "canteen.md" in page.inner_text(".upload-job")
    # The list updates itself when the job ends: no reload (the job card is still there).
    listed = page.locator("#documents-table").get_by_role("link", name="Canteen")
    listed.wait_for()
    assert "The list below is up to date" in page.inner_text("#upload-status")
    assert page.locator(".upload-job .job").count() == 1
    shot(page, live_server, "10-upload-finished")
    listed.click()
    page.wait_for_selector(".chunk")
    assert "12:00 to 14:30" in page.inner_text(".chunks")
    shot(page, live_server, "11-document-chunks")


def test_an_operator_retries_only_what_a_retry_can_fix(
    new_page: Any, live_server: LiveServer
) -> None:
    folder = live_server.services.settings.data_dir / "ops"
    folder.mkdir(exist_ok=True)
    (folder / "broken.docx").write_bytes(b"PK\x03\x04 not really a word file")
    (folder / "lockers.md").write_text("# Lockers\n\n## Keys\n\nReception holds spare keys.\n")
    ingestor = live_server.services.ingestor
    broken = ingestor.submit([folder / "broken.docx"], root=folder, created_by="otto")
    ingestor.run(broken)
    assert ingestor.job_status(broken)["state"] == "failed"
    # lockers.md failed as it does when the database drops mid-write (``ingest.faults``):
    # nothing wrong with the file, so a retry can ingest it.
    lockers = ingestor.submit([folder / "lockers.md"], root=folder, created_by="otto")
    with session_scope(live_server.services.sessions) as db:
        (file_id,) = jobs.pending_file_ids(db, lockers)
        jobs.claim_file(db, file_id)
        jobs.finish_file(db, file_id, state="failed", error=DB_DOWN, retryable=True)
        assert jobs.finish_job_if_done(db, lockers) == "failed"

    # A job that indexed one file of two is "partly failed", not just "failed".
    (folder / "bins.md").write_text("# Bins\n\n## Recycling\n\nPaper goes in the blue bin.\n")
    (folder / "broken2.docx").write_bytes(b"PK\x03\x04 not really a word file either")
    partial = ingestor.submit(
        [folder / "bins.md", folder / "broken2.docx"], root=folder, created_by="otto"
    )
    ingestor.run(partial)

    page = new_page()
    sign_in(page, "otto")
    page.goto("/jobs")
    half = page.locator(f'article[data-job="{partial}"] .badge-job-failed')
    half.wait_for()
    assert half.inner_text() == "partly failed · 1 of 2 in"
    corrupt = page.locator(f'article[data-job="{broken}"]')
    corrupt.wait_for()
    assert "broken.docx" in corrupt.inner_text() and corrupt.locator(".job-file-error").count() == 1
    assert corrupt.get_by_role("button", name="Retry failed").count() == 0
    assert corrupt.locator(".badge-job-failed").inner_text() == "failed"
    assert "correct the file and upload it again" in corrupt.inner_text()
    card = page.locator(f'article[data-job="{lockers}"]')
    assert DB_DOWN in card.inner_text()
    shot(page, live_server, "12-jobs-failed")
    card.get_by_role("button", name="Retry failed").click()
    page.wait_for_function(
        "() => document.getElementById('jobs-status').textContent.includes('Retrying')"
    )
    card.locator(".badge-job-succeeded").wait_for(timeout=30_000)
    assert ingestor.job_status(lockers)["files"][0]["attempts"] == 2
    shot(page, live_server, "13-jobs-after-retry")


def test_gaps_page_for_editors(new_page: Any, live_server: LiveServer) -> None:
    question = "Which colour are the canteen chairs?"
    asked = httpx.post(
        f"{live_server.url}/api/ask",
        headers={"Authorization": f"Bearer {live_server.tokens['ada']}"},
        json={"question": question},
        timeout=60,
    )
    assert asked.status_code == 200 and asked.json()["outcome"] == "insufficient_evidence"
    page = new_page()
    sign_in(page, "eddie")
    page.goto("/gaps")
    page.wait_for_selector("h1")
    row = page.locator("tr", has_text=question)
    assert row.count() == 1
    assert asked.json()["missing"] in row.inner_text()
    assert asked.json()["reason_code"].replace("_", " ") in row.inner_text()
    shot(page, live_server, "14-gaps")
