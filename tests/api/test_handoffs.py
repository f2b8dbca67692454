"""Handoffs: routed to the closest document's owner, announced on a real webhook, seen and
closed by their owners; content gaps ranked by frequency; nothing above clearance leaks
(which questions are gaps at all: tests/api/test_gaps.py)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from datetime import datetime, timedelta

from api.gaps import record_gap
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv, WebhookServer
from tests.api.corpus import SECRET, TestUser, add_test_user


def non_answer(env: ApiEnv, who: str, question: str) -> dict:
    body = env.post(who, "/api/ask", json={"question": question}).json()
    assert body["outcome"] == "insufficient_evidence", body
    return body


def handoff_ids(env: ApiEnv, who: str, state: str | None = None) -> set[int]:
    params = {"state": state} if state else {}
    return {h["id"] for h in env.get(who, "/api/handoffs", params=params).json()["handoffs"]}


def test_a_non_answer_is_handed_to_the_owner_of_the_closest_document(
    env: ApiEnv, webhook: WebhookServer
) -> None:
    question = "How many dogs may I bring on home working days?"
    body = non_answer(env, "ada", question)
    assert body["handoff"] == {"owner": "People Ops", "source": "remote-work.md"}
    before = len(webhook.received)
    response = env.post("ada", "/api/handoffs", json={"trace_id": body["trace_id"]})
    assert response.status_code == 201, response.text
    handoff = response.json()
    assert handoff["routed_to"] == "People Ops"
    assert handoff["question"] == question and handoff["outcome"] == "insufficient_evidence"
    assert handoff["closest_sources"][0] == "remote-work.md"
    assert "severance.md" not in handoff["closest_sources"]
    assert handoff["webhook_status"] == "sent: HTTP 200"
    # Times carry their UTC offset on every database (SQLite hands them back naive).
    assert datetime.fromisoformat(handoff["created_at"]).utcoffset() == timedelta(0)
    # The webhook got a Slack/Teams-shaped message: question, route, source names only.
    message = webhook.received[before]
    assert set(message) == {"text"}
    assert question in message["text"] and "People Ops" in message["text"]
    assert "remote-work.md" in message["text"]
    assert "three days" not in message["text"]  # no document text

    # The owners (the People Ops group) see it and close it; others cannot.
    assert handoff["id"] in handoff_ids(env, "eddie", "open")
    assert handoff["id"] not in handoff_ids(env, "otto")
    refused = env.post("otto", f"/api/handoffs/{handoff['id']}/close", json={})
    assert refused.status_code == 404
    asker_close = env.post("ada", f"/api/handoffs/{handoff['id']}/close", json={})
    assert asker_close.status_code == 404  # the asker sees it but does not own it
    closed = env.post(
        "eddie", f"/api/handoffs/{handoff['id']}/close", json={"resolution": "Dogs: no."}
    )
    assert closed.status_code == 200
    assert closed.json()["state"] == "closed" and closed.json()["closed_by"] == "eddie"
    assert datetime.fromisoformat(closed.json()["closed_at"]).utcoffset() == timedelta(0)
    again = env.post("eddie", f"/api/handoffs/{handoff['id']}/close", json={})
    assert again.status_code == 409
    mine = env.get("ada", "/api/handoffs").json()["handoffs"]
    assert any(h["id"] == handoff["id"] and h["resolution"] == "Dogs: no." for h in mine)


def test_an_owner_below_the_questions_clearance_sees_no_details(
    env: ApiEnv, webhook: WebhookServer
) -> None:
    body = non_answer(env, "cy", "What percentage of severance do contractors in Brazil get?")
    before = len(webhook.received)
    handoff = env.post("cy", "/api/handoffs", json={"trace_id": body["trace_id"]}).json()
    assert handoff["routed_to"] == "People Ops"
    assert handoff["closest_sources"][0] == "severance.md"
    assert SECRET not in webhook.received[before]["text"]
    as_eddie = {h["id"]: h for h in env.get("eddie", "/api/handoffs").json()["handoffs"]}
    withheld = as_eddie[handoff["id"]]
    assert withheld["details_withheld"] is True
    assert withheld["question"] is None and withheld["closest_sources"] == []
    as_carla = {h["id"]: h for h in env.get("carla", "/api/handoffs").json()["handoffs"]}
    assert as_carla[handoff["id"]]["question"].startswith("What percentage of severance")
    page = env.get("eddie", "/handoffs", headers={"Accept": "text/html"})
    assert "contractors in Brazil" not in page.text and "above your clearance" in page.text


def test_a_handoff_needs_your_own_trace(env: ApiEnv) -> None:
    theirs = non_answer(env, "cy", "What percentage of severance is taxed in Ireland?")["trace_id"]
    response = env.post("ada", "/api/handoffs", json={"trace_id": theirs})
    assert response.status_code == 404
    assert "Ireland" not in response.text
    made_up = env.post("ada", "/api/handoffs", json={"trace_id": "not-a-trace"})
    assert made_up.status_code == 404
    empty = env.post("ada", "/api/handoffs", json={})
    assert empty.status_code == 400


def test_without_a_trace_it_goes_to_the_default_queue(env: ApiEnv) -> None:
    response = env.post(
        "ada", "/api/handoffs", json={"question": "Who runs the book club?", "note": "urgent"}
    )
    handoff = response.json()
    assert response.status_code == 201
    assert handoff["routed_to"] == "docs-team" and handoff["closest_sources"] == []
    assert "Note: urgent" in handoff["question"]
    assert handoff["id"] in handoff_ids(env, "admin")
    assert handoff["id"] not in handoff_ids(env, "eddie")


def test_gaps_are_ranked_by_frequency_and_filtered_by_clearance(env: ApiEnv) -> None:
    for _ in range(3):
        non_answer(env, "ada", "Is there a parking garage?")
    non_answer(env, "ada", "Does the company pay for my home internet?")
    with session_scope(env.services.sessions) as db:  # its closest document is confidential
        record_gap(
            db,
            "Who decides severance for executives?",
            "insufficient_evidence",
            ["severance.md"],
            env.services.settings.access_levels,
        )
    gaps = env.get("eddie", "/api/gaps").json()["gaps"]
    questions = [g["question"] for g in gaps]
    often = questions.index("Is there a parking garage?")
    once = questions.index("Does the company pay for my home internet?")
    assert often < once and gaps[often]["count"] >= 3
    assert not any("executives" in q for q in questions)  # confidential, eddie is not
    assert any("executives" in g["question"] for g in env.get("carla", "/api/gaps").json()["gaps"])
    page = env.get("eddie", "/gaps", headers={"Accept": "text/html"})
    assert "parking garage" in page.text and "executives" not in page.text


def test_a_gaps_latest_missing_text_is_shown_only_to_who_may_read_what_was_retrieved(
    env: ApiEnv,
) -> None:
    """Each text is judged by the trace of the ask it came from: cy's ask retrieved
    severance.md, so its words are carla's to read and not eddie's (the rule, with a model
    that quotes what it was given: tests/api/test_handoff_missing_text.py)."""
    question = "Will the notice period formula change next year?"
    asked = env.post("cy", "/api/ask", json={"question": "How much severance pay?"}).json()
    assert {r["source"] for r in asked["retrieved"]} == {"severance.md"}, asked["retrieved"]
    # An editor who may read all cy may (her trace names the candidates cut too).
    env.tokens["lena"] = add_test_user(
        env.services, TestUser("lena", "confidential", ("editor",), ("legal",))
    )
    with session_scope(env.services.sessions) as db:
        for missing in ("An older note.", "Whether the severance.md formula changes."):
            record_gap(
                db,
                question,
                "insufficient_evidence",
                ["remote-work.md"],
                env.services.settings.access_levels,
                reason="model_abstained",
                missing=missing,
                retrieved_sources=["remote-work.md", "severance.md"],
                missing_trace_id=asked["trace_id"],
            )
    seen = {
        who: next(g for g in env.get(who, "/api/gaps").json()["gaps"] if g["question"] == question)
        for who in ("eddie", "lena")
    }
    assert seen["lena"]["last_missing"] == "Whether the severance.md formula changes."
    assert seen["lena"]["last_reason"] == "model_abstained" and seen["lena"]["count"] == 2
    # eddie may read remote-work.md (so sees the gap) but not severance.md
    assert seen["eddie"]["last_missing"] is None and seen["eddie"]["missing_withheld"]
    page = env.get("eddie", "/gaps", headers={"Accept": "text/html"}).text
    assert "withheld" in page and "severance.md formula" not in page


def test_a_webhook_that_does_not_answer_does_not_lose_the_handoff(
    make_env: Callable[..., ApiEnv],
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    env = make_env(handoff_webhook_url=f"http://127.0.0.1:{port}/hook")
    response = env.post("ada", "/api/handoffs", json={"question": "Anyone there?"})
    assert response.status_code == 201
    assert response.json()["webhook_status"].startswith("failed: ")
