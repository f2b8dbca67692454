"""An asker says, by keyboard, that an answer answered it; the verdict is stored."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from docent.db.feedback import feedback_on
from docent.db.models import TraceRecord
from docent.db.session import session_scope
from tests.web.conftest import LiveServer, sign_in

pytestmark = pytest.mark.browser
QUESTION = "How many days per week may employees work from home? (feedback)"


def test_an_asker_marks_an_answer_as_answering_it(new_page: Any, live_server: LiveServer) -> None:
    page = new_page()
    sign_in(page, "ada")
    page.get_by_label("Your question").fill(QUESTION)
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector(".answer")
    group = page.get_by_role("group", name="Did this answer your question?")
    group.get_by_label("Comment (optional)").fill("exactly what I needed")
    button = group.get_by_role("button", name="This answered it")
    button.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(".feedback-status:has-text('Thanks — noted.')")
    assert button.get_attribute("aria-pressed") == "true"
    assert group.get_by_role("button", name="It did not").get_attribute("aria-pressed") == "false"
    page.screenshot(path=str(live_server.shots / "09-answer-feedback.png"), full_page=True)
    with session_scope(live_server.services.sessions) as db:
        trace = db.execute(
            select(TraceRecord.id).where(TraceRecord.question == QUESTION.strip())
        ).scalar_one()
        (verdict,) = feedback_on(db, trace)
    assert (verdict.user_id, verdict.verdict, verdict.chunk_id) == ("ada", "answered", None)
    assert verdict.comment == "exactly what I needed"
