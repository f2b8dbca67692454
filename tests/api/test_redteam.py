"""Red-team tests: try to read text above one's access through every door the API has —
ask JSON, traces, handoffs, content gaps, passages, documents, jobs, metrics, logs, error
bodies, forged credentials. Each test is an attack that must fail."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from api.admin import revoke
from api.audit import Actor
from api.users import add_user, issue_token
from docent.db.session import session_scope
from ingest.metadata import doc_id_for
from tests.api.conftest import ApiEnv, LogLines
from tests.api.corpus import SECRET, USERS, ingest_corpus, write_corpus
from tests.api.test_documents import upload

# Distinctive text of the hidden documents (tests/api/corpus.py).
SEVERANCE_TEXT = "two weeks of salary per year of service, under programme"
HOLD_TEXT = "suspends the deletion of every record named in the hold notice"
CANARIES = (SECRET, SEVERANCE_TEXT, HOLD_TEXT)
NO_LEGAL = "rt-nolegal"  # confidential asker and editor, no groups


def assert_clean(text: str, canaries: tuple[str, ...] = CANARIES) -> None:
    for canary in canaries:
        assert canary not in text, f"leaked {canary!r}"


@pytest.fixture
def rt_env(env: ApiEnv) -> ApiEnv:
    """The shared app plus one confidential user without the ``legal`` group."""
    if NO_LEGAL not in env.tokens:
        with session_scope(env.services.sessions) as db:
            add_user(
                db,
                NO_LEGAL,
                clearance="confidential",
                levels=env.services.settings.access_levels,
                roles=("asker", "editor"),
            )
            env.tokens[NO_LEGAL] = issue_token(db, NO_LEGAL, "redteam")
    return env


def quote_id(chunk_id: str) -> str:
    """A chunk id in a URL path: ``#`` would otherwise start the fragment."""
    return quote(chunk_id, safe="/")


def chunk_ids(env: ApiEnv, source: str) -> list[str]:
    ids = [c.chunk_id for c in env.services.index.chunks_of(source)]
    assert ids, f"{source} has no chunks in the index"
    return ids


# --- ask, trace, handoff, gaps, metrics, logs -----------------------------------------------


def test_word_for_word_question_from_an_employee_reveals_nothing_anywhere(
    rt_env: ApiEnv, docent_logs: LogLines
) -> None:
    env = rt_env
    question = "How many weeks of salary per year of service is severance pay under the programme?"
    response = env.post("ada", "/api/ask", json={"question": question})
    assert response.status_code == 200, response.text
    body = response.json()
    assert_clean(response.text)
    assert all(r["source"] not in ("severance.md", "litigation-hold.md") for r in body["retrieved"])
    # Nothing ada may read states it: a non-answer, handed to a document she may read.
    assert body["outcome"] == "insufficient_evidence", body
    assert body["handoff"]["source"] not in ("severance.md", "litigation-hold.md")

    trace = env.get("ada", f"/api/traces/{body['trace_id']}")
    assert trace.status_code == 200
    assert_clean(trace.text)
    assert "severance.md" not in trace.text

    made = env.post("ada", "/api/handoffs", json={"trace_id": body["trace_id"]})
    assert made.status_code == 201
    assert_clean(made.text)
    assert "severance.md" not in made.json()["closest_sources"]
    for who in ("ada", "eddie", "admin"):
        assert_clean(env.get(who, "/api/handoffs").text)
    for who in ("eddie", "carla", NO_LEGAL):
        assert_clean(env.get(who, "/api/gaps").text)
        assert_clean(env.get(who, "/gaps", headers={"Accept": "text/html"}).text)
    assert_clean(env.get("otto", "/metrics").text)
    assert_clean(env.get("otto", "/readyz").text)
    assert_clean("\n".join(docent_logs.lines))


def test_public_user_sees_no_employee_text(rt_env: ApiEnv) -> None:
    response = rt_env.post(
        "pubby", "/api/ask", json={"question": "How many days per week may I work from home?"}
    )
    assert response.status_code == 200
    assert "three days per week" not in response.text
    assert all(r["source"] == "pricing.md" for r in response.json()["retrieved"])


def test_confidential_without_the_group_cannot_reach_the_litigation_hold(
    rt_env: ApiEnv, docent_logs: LogLines
) -> None:
    env = rt_env
    question = "What does a litigation hold suspend for records named in the hold notice?"
    for who in (NO_LEGAL, "admin"):  # admin is restricted but not in ``legal``
        response = env.post(who, "/api/ask", json={"question": question})
        assert response.status_code == 200, response.text
        # Both may read severance.md (confidential, no groups); only the hold is theirs not.
        assert HOLD_TEXT not in response.text
        assert "litigation-hold.md" not in response.text
        trace = env.get(who, f"/api/traces/{response.json()['trace_id']}")
        assert HOLD_TEXT not in trace.text
        assert "litigation-hold.md" not in trace.text
    # The group member does get it (the test can fail the other way too).
    member = env.post("cy", "/api/ask", json={"question": question})
    assert "litigation-hold.md" in member.text
    # ... and that trace is not found for a reader outside the group, admin included.
    missing = env.get("admin", "/api/traces/no-such-trace")
    hidden = env.get("admin", f"/api/traces/{member.json()['trace_id']}")
    assert hidden.status_code == missing.status_code == 404
    assert HOLD_TEXT not in hidden.text
    assert HOLD_TEXT not in "\n".join(docent_logs.lines)


def test_a_legal_gap_and_handoff_show_outsiders_no_legal_source_or_text(rt_env: ApiEnv) -> None:
    """Gaps and handoffs are filtered by level (max_access_level); the group-only document a
    legal asker came near must still not show its name or text to readers outside ``legal``
    (the asker's own question may show: it is not document text — by design, see
    tests/api/test_handoffs.py)."""
    env = rt_env
    question = "Can a litigation hold be lifted early by the regional records officer?"
    body = env.post("cy", "/api/ask", json={"question": question}).json()
    assert body["outcome"] != "answered", body
    assert body["handoff"]["source"] == "litigation-hold.md", body
    handoff = env.post("cy", "/api/handoffs", json={"trace_id": body["trace_id"]}).json()
    assert handoff["closest_sources"][0] == "litigation-hold.md"
    for who in ("admin", NO_LEGAL, "carla", "eddie"):
        for path in ("/api/gaps", "/gaps", "/api/handoffs", "/handoffs"):
            page = env.get(who, path, headers={"Accept": "text/html"})
            assert page.status_code in (200, 403), (who, path)
            assert "litigation-hold.md" not in page.text and HOLD_TEXT not in page.text
    as_admin = {h["id"]: h for h in env.get("admin", "/api/handoffs").json()["handoffs"]}
    assert "litigation-hold.md" not in as_admin[handoff["id"]]["closest_sources"]
    assert env.get("cy", "/api/handoffs").json()["handoffs"][0]["closest_sources"][0] == (
        "litigation-hold.md"
    )


# --- passages, documents --------------------------------------------------------------------


def _normalised(response: Any, chunk_id: str) -> tuple[int, dict[str, Any]]:
    error = dict(response.json()["error"])
    error.pop("request_id")
    error["message"] = error["message"].replace(repr(chunk_id), "<id>")
    return response.status_code, error


def test_guessed_chunk_ids_are_the_same_404_as_missing_ones(rt_env: ApiEnv) -> None:
    env = rt_env
    missing = "no-such-document.md#0"
    expected = _normalised(env.get("ada", f"/api/passages/{quote_id(missing)}"), missing)
    assert expected[0] == 404
    hidden = [
        ("ada", chunk_ids(env, "severance.md")[0]),
        ("ada", "severance.md#0"),
        ("pubby", chunk_ids(env, "remote-work.md")[0]),
        (NO_LEGAL, chunk_ids(env, "litigation-hold.md")[0]),
        ("admin", chunk_ids(env, "litigation-hold.md")[0]),
    ]
    for who, cid in hidden:
        for highlight in (None, "two weeks", "suspends"):
            params = {"quote": highlight} if highlight else {}
            response = env.get(who, f"/api/passages/{quote_id(cid)}", params=params)
            assert _normalised(response, cid) == expected, (who, cid)
            assert_clean(response.text)
            page = env.get(who, f"/passages/{quote_id(cid)}", headers={"Accept": "text/html"})
            assert page.status_code == 404
            assert_clean(page.text)
    # The legitimate reader does get it.
    legal = quote_id(chunk_ids(env, "litigation-hold.md")[0])
    assert env.get("cy", f"/api/passages/{legal}").status_code == 200


def test_an_employee_editor_cannot_list_show_or_retire_a_confidential_document(
    rt_env: ApiEnv,
) -> None:
    env = rt_env
    for retired in ("false", "true"):
        listed = env.get("eddie", "/api/documents", params={"retired": retired})
        assert "severance.md" not in listed.text and "litigation-hold.md" not in listed.text
    assert "litigation-hold.md" not in env.get(NO_LEGAL, "/api/documents").text
    missing = env.get("eddie", "/api/documents/0000000000000000")
    for who, source in (("eddie", "severance.md"), (NO_LEGAL, "litigation-hold.md")):
        doc_id = doc_id_for(source)
        shown = env.get(who, f"/api/documents/{doc_id}")
        assert shown.status_code == missing.status_code == 404
        assert_clean(shown.text)
        page = env.get(who, f"/documents/{doc_id}", headers={"Accept": "text/html"})
        assert page.status_code == 404 and source not in page.text
        assert env.post(who, f"/api/documents/{doc_id}/retire").status_code == 404
    assert env.services.index.chunks_of("severance.md")  # still there


# --- uploads and jobs -----------------------------------------------------------------------


@pytest.fixture
def corpus_env(make_env: Callable[..., ApiEnv], tmp_path: Any) -> ApiEnv:
    """A private app over the corpus (hashing embedder) for attacks that write."""
    env = make_env()
    ingest_corpus(env.services, write_corpus(tmp_path / "corpus"))
    return env


def test_an_employee_editor_cannot_overwrite_a_confidential_document_by_its_name(
    corpus_env: ApiEnv,
) -> None:
    """Regression: uploading a file named like a hidden document replaced it (and lowered
    its level) although the uploader could not even see it."""
    env = corpus_env
    before = [c.text for c in env.services.index.chunks_of("severance.md")]
    response = upload(
        env,
        "eddie",
        [("severance.md", b"# Severance\n\nNothing to see.\n"), ("ok.md", b"# Ok\n\nFine.\n")],
    )
    assert response.status_code == 202, response.text
    body = response.json()
    assert [a["filename"] for a in body["accepted"]] == ["ok.md"]
    assert [r["filename"] for r in body["rejected"]] == ["severance.md"]
    assert_clean(response.text)
    env.wait_job(body["job_id"])
    after = env.services.index.chunks_of("severance.md")
    assert [c.text for c in after] == before
    assert {c.access_level for c in after} == {"confidential"}
    # A name alone, with nothing else accepted, is refused as a whole.
    only = upload(env, "eddie", [("litigation-hold.md", b"# Hold\n\nGone.\n")])
    assert only.status_code == 400
    assert_clean(only.text)
    # An editor who may read it may still replace it.
    replaced = upload(
        env,
        "carla",
        [("severance.md", b"# Severance\n\nNew text.\n")],
        access_level="confidential",
    )
    assert replaced.status_code == 202 and replaced.json()["rejected"] == []


def test_an_operator_below_the_upload_sees_neither_name_nor_error(corpus_env: ApiEnv) -> None:
    env = corpus_env
    secret_name = "juniper-restructuring.docx"
    response = upload(
        env, "carla", [(secret_name, b"PK\x03\x04 not a docx")], access_level="confidential"
    )
    job = env.wait_job(response.json()["job_id"])
    assert job["state"] == "failed"
    for path in (f"/api/jobs/{job['job_id']}", "/api/jobs", "/jobs"):
        seen = env.get("otto", path, headers={"Accept": "text/html"} if path == "/jobs" else {})
        assert seen.status_code == 200
        assert secret_name not in seen.text and "juniper" not in seen.text.lower()
        assert "damaged" not in seen.text and "ZIP" not in seen.text
    assert secret_name in env.get("admin", f"/api/jobs/{job['job_id']}").text


def test_an_upload_cannot_be_labelled_above_the_uploaders_clearance(corpus_env: ApiEnv) -> None:
    refused = upload(
        corpus_env, "eddie", [("x.md", b"# X\n\nText.\n")], access_level="confidential"
    )
    assert refused.status_code == 400 and "access_level" in refused.text


def test_an_empty_level_field_cannot_publish_a_confidential_document(
    corpus_env: ApiEnv,
) -> None:
    """Regression: the empty level field was sent as the default, so a Markdown file whose
    own front matter says ``confidential`` was indexed at ``employee`` for everyone."""
    env = corpus_env
    canary = "Project Larkspur buys the Porto office for eleven million euros"
    body = f"---\naccess_level: confidential\n---\n# Larkspur\n\n## Deal\n\n{canary}.\n"
    refused = upload(env, "eddie", [("larkspur.md", body.encode())])
    assert refused.status_code == 400 and "above your clearance" in refused.text
    accepted = upload(env, "carla", [("larkspur.md", body.encode())])
    assert accepted.status_code == 202, accepted.text
    assert [a["access_level"] for a in accepted.json()["accepted"]] == ["confidential"]
    env.wait_job(accepted.json()["job_id"])
    assert {c.access_level for c in env.services.index.chunks_of("larkspur.md")} == {"confidential"}
    for who in ("ada", "eddie"):
        asked = env.post(who, "/api/ask", json={"question": "What does Project Larkspur buy?"})
        assert asked.status_code == 200 and "Porto" not in asked.text
        assert "larkspur" not in env.get(who, "/api/documents").text.lower()


# --- credentials ----------------------------------------------------------------------------


def test_forged_credentials_reach_nothing(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(proxy_auth=True, trusted_proxies="10.0.0.5")
    headers = {"X-Forwarded-User": "admin", "X-Forwarded-Groups": "legal"}
    untrusted = TestClient(env.app, client=("10.0.0.9", 4000), raise_server_exceptions=False)
    assert untrusted.post("/api/ask", json={"question": "x"}, headers=headers).status_code == 401
    assert untrusted.get("/api/documents", headers=headers).status_code == 401
    # A real employee token plus proxy headers from an untrusted address stays the employee.
    me = untrusted.get("/api/me", headers={**headers, **env.as_user("ada")}).json()
    assert me["username"] == "ada" and me["groups"] == [] and me["clearance"] == "employee"
    # A token whose user was disabled, or that was revoked, is refused everywhere.
    with session_scope(env.services.sessions) as db:
        revoke(db, Actor.cli(), "cy")
        revoke(db, Actor.cli(), env.tokens["carla"].split("_")[1])
    for who in ("cy", "carla"):
        for method, path in (("post", "/api/ask"), ("get", "/api/gaps"), ("get", "/api/jobs")):
            kw: dict[str, Any] = {"json": {"question": "x"}} if method == "post" else {}
            assert getattr(env, method)(who, path, **kw).status_code == 401


def test_a_session_cookie_write_without_csrf_is_refused(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    page = env.client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    env.client.post(
        "/login",
        data={"username": "cy", "password": USERS["cy"].password, "csrf_token": csrf},
        follow_redirects=False,
    )
    assert env.client.get("/api/me").status_code == 200
    for path, kw in (
        ("/api/ask", {"json": {"question": "severance?"}}),
        ("/api/handoffs", {"json": {"question": "q"}}),
        ("/api/documents", {"files": [("files", ("a.md", b"# A\n\nB.\n", "text/markdown"))]}),
    ):
        assert env.client.post(path, **kw).status_code == 403, path
        forged = env.client.post(path, headers={"X-CSRF-Token": "guess"}, **kw)
        assert forged.status_code == 403, path
