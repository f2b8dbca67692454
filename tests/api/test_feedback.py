"""Askers' feedback over the real app: only on one's own ask, only on a passage the ask offered
and the asker may read now (a refusal reads the same as a made-up id), a second click
replaces the first; and the export writes it as cases the eval loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from api.users import add_user, find_user, issue_token
from docent.db.feedback import feedback_on
from docent.db.models import Feedback
from docent.db.session import session_scope
from docent.settings import get_settings
from evals.cases import load_cases
from evals.cli import register as register_evals
from tests.api.conftest import ApiEnv
from tests.api.corpus import FILES
from tests.api.test_auth import login

ANSWERED_Q = "How many days per week may employees work from home?"
NOT_COVERED_Q = "How many dogs may I bring on home working days?"


def ask(env: ApiEnv, who: str, question: str, tier: str) -> dict[str, Any]:
    body: dict[str, Any] = env.post(who, "/api/ask", json={"question": question}).json()
    assert body["tier"] == tier, body
    return body


def feedback(env: ApiEnv, who: str, **fields: Any) -> Any:
    return env.post(who, "/api/feedback", json=fields)


def error_of(response: Any) -> dict[str, Any]:
    error: dict[str, Any] = dict(response.json()["error"])
    error.pop("request_id")
    return error


def test_an_asker_marks_an_answer_and_a_second_click_replaces_it(env: ApiEnv) -> None:
    trace = ask(env, "ada", ANSWERED_Q, "answer")["trace_id"]
    first = feedback(env, "ada", trace_id=trace, verdict="answered")
    assert first.status_code == 200, first.text
    assert first.json()["verdict"] == "answered" and first.json()["chunk_id"] is None
    again = feedback(env, "ada", trace_id=trace, verdict="not_answered", comment="  wrong  ")
    assert again.status_code == 200
    with session_scope(env.services.sessions) as db:
        (only,) = feedback_on(db, trace)
    assert (only.user_id, only.verdict, only.comment) == ("ada", "not_answered", "wrong")


def test_someone_elses_ask_is_as_missing_as_a_made_up_one(env: ApiEnv) -> None:
    trace = ask(env, "ada", ANSWERED_Q, "answer")["trace_id"]
    # eddie may read everything ada's answer shows; the trace is still not his.
    theirs = feedback(env, "eddie", trace_id=trace, verdict="not_answered")
    missing = feedback(env, "eddie", trace_id=trace[:-4] + "0000", verdict="not_answered")
    assert theirs.status_code == missing.status_code == 404
    assert error_of(theirs) == {**error_of(missing), "message": f"no trace {trace!r}"}
    with session_scope(env.services.sessions) as db:
        assert feedback_on(db, trace) == []


def test_a_passage_must_be_one_the_non_answer_offered(env: ApiEnv) -> None:
    body = ask(env, "ada", NOT_COVERED_Q, "probably_here")
    trace, offered = body["trace_id"], body["closest"][0]["id"]
    hidden = next(c.chunk_id for c in env.services.index.chunks_of("severance.md"))
    not_offered = next(c.chunk_id for c in env.services.index.chunks_of("pricing.md"))
    refusals = [
        feedback(env, "ada", trace_id=trace, verdict="answered", chunk_id=chunk)
        for chunk in (hidden, not_offered, "remote-work.md#999")
    ]
    assert [r.status_code for r in refusals] == [404, 404, 404]
    assert {error_of(r)["code"] for r in refusals} == {"not_found"}
    # A non-answer is answered by a passage, never as a whole.
    whole = feedback(env, "ada", trace_id=trace, verdict="answered")
    assert whole.status_code == 400 and "chunk_id" in whole.json()["error"]["message"]
    ok = feedback(env, "ada", trace_id=trace, verdict="answered", chunk_id=offered)
    assert ok.status_code == 200 and ok.json()["chunk_id"] == offered
    none = feedback(env, "ada", trace_id=trace, verdict="not_answered")  # "None of these"
    assert none.status_code == 200
    # An answer offers no closest passage: a chunk id on it is refused too.
    answer = ask(env, "ada", ANSWERED_Q, "answer")
    cited = answer["citations"][0]["id"]
    on_answer = feedback(
        env, "ada", trace_id=answer["trace_id"], verdict="answered", chunk_id=cited
    )
    assert on_answer.status_code == 404
    with session_scope(env.services.sessions) as db:
        given = {(v.chunk_id, v.verdict) for v in feedback_on(db, trace)}
        assert given == {(offered, "answered"), (None, "not_answered")}
        assert feedback_on(db, answer["trace_id"]) == []


def test_a_passage_the_asker_may_no_longer_read_is_refused(env: ApiEnv) -> None:
    with session_scope(env.services.sessions) as db:
        levels = env.services.settings.access_levels
        add_user(db, "fbcy", clearance="confidential", levels=levels, roles=("asker",))
        env.tokens["fbcy"] = issue_token(db, "fbcy", "tests")
    body = ask(
        env, "fbcy", "What percentage of severance do contractors in Brazil get?", "probably_here"
    )
    trace = body["trace_id"]
    severance = next(r["id"] for r in body["closest"] if r["source"] == "severance.md")
    ok = feedback(env, "fbcy", trace_id=trace, verdict="answered", chunk_id=severance)
    assert ok.status_code == 200
    with session_scope(env.services.sessions) as db:
        user = find_user(db, "fbcy")
        assert user is not None
        user.clearance = "employee"  # lowered since the ask
    now_hidden = feedback(env, "fbcy", trace_id=trace, verdict="not_answered", chunk_id=severance)
    made_up = feedback(env, "fbcy", trace_id=trace, verdict="not_answered", chunk_id="x.md#0")
    assert now_hidden.status_code == made_up.status_code == 404
    assert error_of(now_hidden)["code"] == error_of(made_up)["code"] == "not_found"
    assert "ZEPHYR" not in now_hidden.text
    with session_scope(env.services.sessions) as db:
        (kept,) = feedback_on(db, trace)
    assert kept.verdict == "answered"  # the refused click replaced nothing


def test_a_signed_in_browser_sends_the_csrf_token(env: ApiEnv) -> None:
    trace = ask(env, "ada", ANSWERED_Q, "answer")["trace_id"]
    browser = TestClient(env.app, raise_server_exceptions=False)
    csrf = login(browser, "ada")
    body = {"trace_id": trace, "verdict": "answered"}
    assert browser.post("/api/feedback", json=body).status_code == 403
    sent = browser.post("/api/feedback", json=body, headers={"X-CSRF-Token": csrf})
    assert sent.status_code == 200
    assert env.client.post("/api/feedback", json=body).status_code == 401  # no credentials


def test_feedback_is_bounded(env: ApiEnv) -> None:
    trace = ask(env, "ada", ANSWERED_Q, "answer")["trace_id"]
    long = feedback(env, "ada", trace_id=trace, verdict="answered", comment="x" * 1001)
    odd = feedback(env, "ada", trace_id=trace, verdict="maybe")
    assert long.status_code == odd.status_code == 422
    with session_scope(env.services.sessions) as db:
        count = db.execute(select(Feedback).where(Feedback.trace_id == trace)).all()
    assert count == []


def run_export(env: ApiEnv, out: Path, *args: str) -> str:
    app = typer.Typer()
    register_evals(app)
    data_dir = str(env.services.settings.data_dir)
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(
            app,
            ["eval", "cases-from-feedback", "--out", str(out), *args],
            env={"DOCENT_DATA_DIR": data_dir, "DOCENT_ENV": "test"},
        )
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    return result.stdout


def test_feedback_is_exported_as_cases_the_eval_loads(env: ApiEnv, tmp_path: Path) -> None:
    right = ask(env, "ada", ANSWERED_Q, "answer")["trace_id"]
    wrong = ask(env, "ada", "What is the daily meal allowance for travel?", "answer")
    probable = ask(env, "ada", NOT_COVERED_Q, "probably_here")
    passage = probable["closest"][0]
    for fields in (
        {"trace_id": right, "verdict": "answered"},
        {"trace_id": wrong["trace_id"], "verdict": "not_answered", "comment": "I asked abroad"},
        {"trace_id": probable["trace_id"], "verdict": "answered", "chunk_id": passage["id"]},
    ):
        assert feedback(env, "ada", **fields).status_code == 200
    out = tmp_path / "feedback.jsonl"
    printed = run_export(env, out)
    assert f"to {out}" in printed and "confidential as the documents" in printed
    assert out.stat().st_mode & 0o777 == 0o600
    cases = {c.qid: c for c in load_cases(out, env.services.settings.access_levels)}
    raw = {json.loads(line)["qid"]: json.loads(line) for line in out.read_text().splitlines()}

    answered = cases[f"feedback.{right}"]
    assert (answered.stratum, answered.expect) == ("answerable", ("three days",))
    assert [str(g) for g in answered.gold] == [
        "remote-work.md#Remote Work Policy > Working from home"
    ]
    assert (answered.user_access, answered.fact) == ("employee", f"feedback.{right}")
    assert (answered.phrasing, answered.split) == ("scenario", None)

    not_it = cases[f"feedback.{wrong['trace_id']}"]
    assert (not_it.stratum, not_it.expect, not_it.gold) == ("out_of_corpus", (), ())
    note = raw[not_it.qid]["note"]
    assert wrong["citations"][0]["quote"] in note and "travel.md" in note
    assert raw[not_it.qid]["comment"] == "I asked abroad"

    from_passage = cases[f"feedback.{probable['trace_id']}.{passage['id']}"]
    assert from_passage.stratum == "answerable" and from_passage.q == NOT_COVERED_Q
    assert from_passage.gold[0].matches_section(passage["source"], passage["heading_path"])
    assert " ".join(from_passage.expect[0].split()) in " ".join(FILES[passage["source"]].split())

    later = run_export(env, tmp_path / "none.jsonl", "--since", "2999-01-01")
    assert later.startswith(f"wrote 0 cases from 0 verdicts to {tmp_path / 'none.jsonl'}")
