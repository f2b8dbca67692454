"""Each person's own history: their last questions with the answer (or "handed back") and a
handoff's reply; nobody reads another's, by list or by id, whatever their role; an answer
that drew on a document raised above the asker since is no longer shown."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from sqlalchemy import select

from docent.db.models import Document
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv
from tests.api.corpus import SECRET

HOME = "How many days per week may employees work from home? (history)"


def ask(env: ApiEnv, who: str, question: str) -> dict:
    response = env.post(who, "/api/ask", json={"question": question})
    assert response.status_code == 200, response.text
    body: dict = response.json()
    return body


def asks_of(env: ApiEnv, who: str) -> list[dict]:
    response = env.get(who, "/api/history")
    assert response.status_code == 200, response.text
    items: list[dict] = response.json()["asks"]
    return items


@contextmanager
def raised(env: ApiEnv, source: str, level: str) -> Iterator[None]:
    with session_scope(env.services.sessions) as db:
        doc = db.execute(select(Document).where(Document.source == source)).scalar_one()
        before, doc.access_level = doc.access_level, level
    try:
        yield
    finally:
        with session_scope(env.services.sessions) as db:
            doc = db.execute(select(Document).where(Document.source == source)).scalar_one()
            doc.access_level = before


def test_the_history_lists_ones_own_questions_newest_first(env: ApiEnv) -> None:
    answered = ask(env, "ada", HOME)
    handed_back = ask(env, "ada", "How many goats may I bring on home working days?")
    items = asks_of(env, "ada")
    ids = [a["trace_id"] for a in items]
    assert ids.index(handed_back["trace_id"]) < ids.index(answered["trace_id"])
    first = items[ids.index(answered["trace_id"])]
    assert (
        first["question"] == HOME and first["tier"] == "answer" and first["outcome"] == "answered"
    )
    assert "three days" in first["answer"] and first["citations"][0]["source"] == "remote-work.md"
    # With its offset, as the other views' times (SQLite hands the stored time back naive).
    assert datetime.fromisoformat(first["asked_at"]).utcoffset() == timedelta(0)
    back = items[ids.index(handed_back["trace_id"])]
    assert back["answer"] is None and back["tier"] == handed_back["tier"]
    assert back["handoff"] is None  # not passed to a person
    one = env.get("ada", f"/api/history/{answered['trace_id']}").json()
    assert one == first
    page = env.get("ada", "/history", headers={"Accept": "text/html"}).text
    assert "Your questions" in page and "three days" in page and "Handed back" not in page
    # A user pass: "Handed back" read as passed to someone; this one was not.
    item = page.split(f'data-trace="{handed_back["trace_id"]}"', 1)[1].split("</li>", 1)[0]
    assert "Not answered" in item and "Passed to" not in item, item
    assert f"[{answered['citations'][0]['id']}]" not in page  # markers as numbers: "[1]"


def test_nobody_reads_anothers_history_by_list_or_by_id(env: ApiEnv) -> None:
    secret = ask(env, "cy", "What severance does programme ZEPHYR-17 pay? (cy's own)")
    theirs = secret["trace_id"]
    for who in ("ada", "eddie", "admin", "pubby"):
        assert theirs not in [a["trace_id"] for a in asks_of(env, who)]
        one = env.get(who, f"/api/history/{theirs}")
        made_up = env.get(who, "/api/history/no-such-trace")
        assert one.status_code == made_up.status_code == 404
        assert "ZEPHYR" not in one.text and "severance" not in one.text
        page = env.get(who, "/history", headers={"Accept": "text/html"}).text
        assert "cy's own" not in page and SECRET not in page
    # The trace itself: only its asker (or an admin) reads it.
    assert env.get("ada", f"/api/traces/{theirs}").status_code == 404
    assert env.get("cy", f"/api/history/{theirs}").status_code == 200
    # No history for those who do not ask; no list longer than the bound.
    assert env.get("carla", "/api/history").status_code == 403
    assert env.get("carla", "/history", headers={"Accept": "text/html"}).status_code == 403
    assert env.get(None, "/api/history").status_code == 401
    assert env.get("ada", "/api/history", params={"limit": 0}).status_code in (400, 422)


def test_an_answer_on_a_document_raised_since_is_withheld(env: ApiEnv) -> None:
    answered = ask(env, "ada", "What is the daily meal allowance for travel? (history)")
    assert answered["outcome"] == "answered" and "45 euros" in answered["answer"]
    with raised(env, "travel.md", "confidential"):
        item = env.get("ada", f"/api/history/{answered['trace_id']}").json()
        assert item["withheld"] and item["answer"] is None and item["citations"] == []
        assert item["question"].startswith("What is the daily meal allowance")
        page = env.get("ada", "/history", headers={"Accept": "text/html"}).text
        assert "45 euros" not in page and "may no longer read" in page
    item = env.get("ada", f"/api/history/{answered['trace_id']}").json()
    assert not item["withheld"] and "45 euros" in item["answer"]
