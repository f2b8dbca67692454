"""The docs team's feedback per document: verdicts counted under the documents they are about,
with the latest questions and comments; a document above the viewer is left out, and so is
every verdict on an ask that showed anything they may not read."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from api.users import add_user, issue_token
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv
from tests.api.corpus import SECRET

ANSWERED_Q = "How many days per week may employees work from home?"
SEVERANCE_Q = "How much severance pay do I get per year of service?"


def asked(env: ApiEnv, who: str, question: str) -> dict[str, Any]:
    body: dict[str, Any] = env.post(who, "/api/ask", json={"question": question}).json()
    return body


def judge(env: ApiEnv, who: str, body: dict[str, Any], verdict: str, comment: str) -> None:
    fields: dict[str, Any] = {"trace_id": body["trace_id"], "verdict": verdict, "comment": comment}
    if body["tier"] != "answer":
        fields["chunk_id"] = body["closest"][0]["id"]
        fields["verdict"] = "answered"
    response = env.post(who, "/api/feedback", json=fields)
    assert response.status_code == 200, response.text


def per_document(env: ApiEnv, who: str) -> dict[str, dict[str, Any]]:
    response = env.get(who, "/api/feedback/documents")
    assert response.status_code == 200, response.text
    return {d["source"]: d for d in response.json()["documents"]}


def test_the_docs_team_sees_feedback_per_document_only_what_they_may_read(env: ApiEnv) -> None:
    remote = asked(env, "ada", ANSWERED_Q)
    assert remote["tier"] == "answer"
    judge(env, "ada", remote, "not_answered", "Does this include Fridays?")
    with session_scope(env.services.sessions) as db:  # confidential, in no group
        levels = env.services.settings.access_levels
        add_user(db, "dfconf", clearance="confidential", levels=levels, roles=("asker",))
        env.tokens["dfconf"] = issue_token(db, "dfconf", "tests")
    severance = asked(env, "dfconf", SEVERANCE_Q)
    assert severance["tier"] in ("answer", "probably_here"), severance
    judge(env, "dfconf", severance, "answered", "Clear, thanks")

    seen = per_document(env, "eddie")
    row = seen["remote-work.md"]
    assert row["title"] == "Remote Work Policy" and row["not_answered"] >= 1
    latest = next(v for v in row["latest"] if v["comment"] == "Does this include Fridays?")
    assert (latest["question"], latest["verdict"], latest["on"]) == (
        ANSWERED_Q,
        "not_answered",
        "answer",
    )
    assert datetime.fromisoformat(latest["created_at"]).utcoffset() == timedelta(0)
    # eddie (employee) may not read severance.md: neither it nor that ask is shown to him.
    assert "severance.md" not in seen
    everything = env.get("eddie", "/api/feedback/documents").text
    assert SEVERANCE_Q not in everything and "Clear, thanks" not in everything
    assert SECRET not in everything
    page = env.get("eddie", "/feedback", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "Does this include Fridays?" in page.text
    assert "Clear, thanks" not in page.text and "severance.md" not in page.text

    carla = per_document(env, "carla")  # confidential: she reads both
    assert any(v["comment"] == "Clear, thanks" for v in carla["severance.md"]["latest"])
    for who in ("ada", "otto", "cy"):  # not the docs team
        assert env.get(who, "/api/feedback/documents").status_code == 403
        assert env.get(who, "/feedback", headers={"Accept": "text/html"}).status_code == 403
