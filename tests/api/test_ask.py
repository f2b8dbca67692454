"""Ask, passages and traces over the real chain, with the visibility rule tried from every side."""

from __future__ import annotations

from urllib.parse import quote

from tests.api.conftest import ApiEnv
from tests.api.corpus import SECRET

KEYS = {
    "outcome", "tier", "confidence", "answer", "citations", "missing", "readings",
    "clarifying_question", "reason_code", "handoff", "retrieved", "closest", "trace_id",
}  # fmt: skip


def ask(env: ApiEnv, who: str, question: str) -> dict:
    response = env.post(who, "/api/ask", json={"question": question})
    assert response.status_code == 200, response.text
    return response.json()


def first_chunk(env: ApiEnv, source: str) -> dict:
    chunk = env.services.index.chunks_of(source)[0]
    return {"id": chunk.chunk_id, "status": chunk.status}


def test_an_employee_gets_a_cited_answer(env: ApiEnv) -> None:
    body = ask(env, "ada", "How many days per week may employees work from home?")
    assert set(body) == KEYS
    assert body["outcome"] == "answered"
    assert "three days" in body["answer"]
    cited = body["citations"][0]
    assert cited["source"] == "remote-work.md"
    assert cited["heading_path"] == ["Remote Work Policy", "Working from home"]
    assert cited["status"] == "current" and cited["effective"] == "2024-09-01"
    assert body["trace_id"]


def test_the_confidential_document_never_reaches_an_employee(env: ApiEnv) -> None:
    body = ask(env, "ada", "How much severance pay per year of service?")
    assert SECRET not in str(body)
    assert all(r["source"] != "severance.md" for r in body["retrieved"])
    assert body["outcome"] != "answered" or "severance.md" not in str(body["citations"])


def test_confidential_clearance_reads_it(env: ApiEnv) -> None:
    body = ask(env, "cy", "How much severance pay per year of service?")
    assert body["outcome"] == "answered"
    assert body["citations"][0]["source"] == "severance.md"


def test_a_non_answer_offers_a_handoff_and_counts_as_a_gap(env: ApiEnv) -> None:
    question = "What colour should the office bicycles be painted?"
    body = ask(env, "ada", question)
    assert body["outcome"] == "insufficient_evidence"
    assert body["handoff"]["owner"]
    ask(env, "ada", question.upper() + "!!")  # the same question, spelled differently
    gaps = env.get("eddie", "/api/gaps").json()["gaps"]
    gap = next(g for g in gaps if "bicycles" in g["question"].lower())
    assert gap["count"] == 2
    assert body["reason_code"] in ("below_threshold", "model_abstained")
    assert gap["last_reason"] == body["reason_code"]
    assert gap["last_missing"] == body["missing"] and body["missing"]


def test_ask_validates_the_question(env: ApiEnv) -> None:
    response = env.post("ada", "/api/ask", json={"question": ""})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "invalid_input" and "question" in error["message"]
    assert error["request_id"] == response.headers["X-Request-ID"]


def test_passage_view_shows_the_passage_with_the_quote_marked(env: ApiEnv) -> None:
    text = "with their manager's agreement"
    chunk_id = first_chunk(env, "remote-work.md")["id"]
    response = env.get("ada", f"/api/passages/{quote(chunk_id)}?quote={quote(text)}")
    body = response.json()
    assert body["source"] == "remote-work.md"
    assert body["heading_path"][-1] == "Working from home"
    assert body["effective"] == "2024-09-01" and body["status"] == "current"
    marked = [part["text"] for part in body["highlight"] if part["mark"]]
    assert marked == [text]


def test_superseded_and_pending_passages_say_so(env: ApiEnv) -> None:
    old = first_chunk(env, "travel-2022.md")
    future = first_chunk(env, "parking-2099.md")
    assert old["status"] == "superseded" and future["status"] == "pending"
    page = env.get("ada", f"/passages/{quote(old['id'])}")
    assert page.status_code == 200
    assert "Superseded" in page.text and "travel.md" in page.text
    # It links the passage that replaced it: today's section of the same name.
    instead = env.get("ada", f"/api/passages/{quote(old['id'])}").json()["superseded_by_passage"]
    replaced_by = env.get("ada", f"/api/passages/{quote(instead)}").json()
    assert replaced_by["source"] == "travel.md" and replaced_by["status"] == "current"
    assert replaced_by["heading_path"][-1] == "Per diem" and "45 euros" in replaced_by["text"]
    assert f'href="/passages/{quote(instead, safe="/")}"' in page.text
    page = env.get("ada", f"/passages/{quote(future['id'])}")
    assert "Not yet in force" in page.text and "2099-01-01" in page.text


def test_a_hidden_passage_is_the_same_404_as_a_missing_one(env: ApiEnv) -> None:
    severance = quote(first_chunk(env, "severance.md")["id"])
    litigation = quote(first_chunk(env, "litigation-hold.md")["id"])
    hidden = env.get("ada", f"/api/passages/{severance}")
    missing = env.get("ada", f"/api/passages/{quote('no-such.md#0')}")
    group_only = env.get("carla", f"/api/passages/{litigation}")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["error"]["code"] == missing.json()["error"]["code"] == "not_found"
    assert SECRET not in hidden.text
    assert group_only.status_code == 403  # carla is an editor, not an asker
    assert env.get("cy", f"/api/passages/{litigation}").status_code == 200  # legal group
    assert env.get("eddie", f"/api/passages/{litigation}").status_code == 404  # no group
    page = env.get("ada", f"/passages/{severance}", headers={"Accept": "text/html"})
    assert page.status_code == 404 and SECRET not in page.text


def test_traces_belong_to_their_asker_and_admins_within_clearance(env: ApiEnv) -> None:
    mine = ask(env, "ada", "What does the Team plan cost?")["trace_id"]
    assert env.get("ada", f"/api/traces/{mine}").status_code == 200
    assert env.get("admin", f"/api/traces/{mine}").status_code == 200
    assert env.get("cy", f"/api/traces/{mine}").status_code == 404
    secret = ask(env, "cy", "How much severance pay per year of service?")["trace_id"]
    assert env.get("cy", f"/api/traces/{secret}").status_code == 200
    other = env.get("ada", f"/api/traces/{secret}")
    assert other.status_code == 404 and SECRET not in other.text


def test_metrics_count_outcomes_and_stage_latency(env: ApiEnv) -> None:
    assert ask(env, "ada", "What does the Team plan cost?")["reason_code"] is None
    refused = ask(env, "ada", "What colour are the office plants watered with?")
    text = env.get("otto", "/metrics").text
    assert 'docent_ask_outcomes_total{outcome="answered",reason="none"}' in text
    assert refused["outcome"] == "insufficient_evidence"
    label = f'{{outcome="insufficient_evidence",reason="{refused["reason_code"]}"}}'
    assert f"docent_ask_outcomes_total{label}" in text
    assert 'docent_ask_stage_seconds_count{stage="retrieval"}' in text
    assert "docent_documents_indexed" in text and "docent_chunks_indexed" in text
    assert 'docent_ingest_jobs{state="succeeded"}' in text
