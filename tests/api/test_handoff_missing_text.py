"""The answer stage's own words about what is missing travel into handoffs and content
gaps, where other people read them. With the OpenAI-compatible backend those words are the
model's and may quote any passage it was given, not only the three closest documents a
handoff names: they are shown only to a reader who may read everything that ask retrieved
(levels and groups, as the registry is now). The provider is faked at its HTTP transport."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.gaps import record_gap
from api.routes.ask import closest_sources
from docent.db.session import session_scope
from docent.wiring import Services
from tests.api.conftest import ApiEnv, build_settings
from tests.api.corpus import (
    SECRET,
    TestUser,
    add_test_user,
    ingest_corpus,
    make_users,
    write_corpus,
)
from tests.ingest.hashing_embedder import HashingEmbedder

HOLD = "suspends the deletion of every record"  # litigation-hold.md: the legal group's only
QUESTION = "Severance pay, litigation hold scope, Team plan price, per diem and home working?"


def quoting_every_passage(request: httpx.Request) -> httpx.Response:
    """A model that abstains and, in its ``missing`` words, quotes every passage it was sent."""
    prompt = "\n".join(m["content"] for m in json.loads(request.content)["messages"])
    passages = re.findall(r"<doc [^>]*>(.*?)</doc>", prompt, flags=re.S)
    said = " / ".join(" ".join(p.split()) for p in passages)
    reply = {
        "kind": "insufficient_evidence",
        "answer": None,
        "citations": None,
        "missing": f"The documents say: {said}; none of it says which applies.",
        "readings": None,
        "clarifying_question": None,
        "reason_code": "model_abstained",
    }
    content = json.dumps(reply)
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}
    return httpx.Response(200, json=body)


@pytest.fixture
def llm_env(tmp_path: Path) -> Iterator[ApiEnv]:
    settings = build_settings(
        tmp_path / "data",
        generator="openai",
        llm_base_url="http://llm.test/v1",
        top_k=10,
        relevance_threshold=0.0,
    )
    services = Services(
        settings,
        embedder=HashingEmbedder(256),
        llm_transport=httpx.MockTransport(quoting_every_passage),
    )
    try:
        ingest_corpus(services, write_corpus(tmp_path / "corpus"))
        tokens = make_users(services)
        app = create_app(services)
        yield ApiEnv(
            services, app, TestClient(app, raise_server_exceptions=False), tokens, tmp_path
        )
    finally:
        services.close()


def shown_to(env: ApiEnv, who: str, handoff_id: int) -> dict:
    listed = env.get(who, "/api/handoffs").json()["handoffs"]
    return next(h for h in listed if h["id"] == handoff_id)


def test_the_missing_words_need_every_document_the_ask_retrieved(llm_env: ApiEnv) -> None:
    asked = llm_env.post("cy", "/api/ask", json={"question": QUESTION}).json()
    assert asked["outcome"] == "insufficient_evidence", asked
    retrieved = {r["source"] for r in asked["retrieved"]}
    assert {"severance.md", "litigation-hold.md"} <= retrieved, retrieved
    # cy may read all of it, so she is shown the model's words (the test can fail both ways).
    assert SECRET in asked["missing"] and HOLD in asked["missing"]

    made = llm_env.post("cy", "/api/handoffs", json={"trace_id": asked["trace_id"]})
    assert made.status_code == 201
    handoff = made.json()
    assert SECRET in handoff["missing"]
    # The admin reads every level but is not in the legal group: litigation-hold.md's text
    # must not reach them through the handoff, whatever three documents it names.
    as_admin = shown_to(llm_env, "admin", handoff["id"])
    assert as_admin["missing"] is None and as_admin["missing_withheld"] is True
    page = llm_env.get("admin", "/handoffs", headers={"Accept": "text/html"}).text
    assert HOLD not in page and "withheld (it may quote documents you cannot read)" in page

    gap = llm_env.post("admin", f"/api/handoffs/{handoff['id']}/gap", json={})
    assert gap.status_code in (200, 201), gap.text
    for who in ("carla", "eddie", "otto", "admin"):
        for shown in (
            llm_env.get(who, "/api/gaps").text,
            llm_env.get(who, "/gaps", headers={"Accept": "text/html"}).text,
        ):
            assert SECRET not in shown and HOLD not in shown, who


def test_a_gap_shows_the_missing_words_to_who_may_read_its_ask(llm_env: ApiEnv) -> None:
    # An editor who also asks, cleared for confidential documents but not the legal group.
    llm_env.tokens["cass"] = add_test_user(
        llm_env.services, TestUser("cass", "confidential", ("asker", "editor"))
    )
    asked = llm_env.post("cass", "/api/ask", json={"question": QUESTION}).json()
    assert SECRET in asked["missing"] and HOLD not in asked["missing"]
    with session_scope(llm_env.services.sessions) as db:
        record_gap(
            db,
            QUESTION,
            asked["outcome"],
            closest_sources(asked),
            llm_env.services.settings.access_levels,
            reason=asked["reason_code"],
            missing=asked["missing"],
            retrieved_sources=[r["source"] for r in asked["retrieved"]],
            trace_id=asked["trace_id"],
        )
    for who in ("cass", "carla"):  # both may read everything cass's ask retrieved
        gaps = llm_env.get(who, "/api/gaps").json()["gaps"]
        assert SECRET in next(g for g in gaps if g["question"] == QUESTION)["last_missing"]
    # eddie may not read severance.md: the gap is left out or its words withheld.
    gaps = llm_env.get("eddie", "/api/gaps").json()["gaps"]
    assert all(g["last_missing"] is None for g in gaps if g["question"] == QUESTION)
    assert SECRET not in llm_env.get("eddie", "/gaps", headers={"Accept": "text/html"}).text


def test_words_with_no_trace_to_judge_them_by_are_withheld(llm_env: ApiEnv) -> None:
    question = "Is the canteen open on Sundays?"
    with session_scope(llm_env.services.sessions) as db:
        record_gap(
            db,
            question,
            "insufficient_evidence",
            ["remote-work.md"],
            llm_env.services.settings.access_levels,
            missing="Words from some ask whose trace is gone.",
            retrieved_sources=["remote-work.md"],
        )
    gap = next(
        g for g in llm_env.get("carla", "/api/gaps").json()["gaps"] if g["question"] == question
    )
    assert gap["last_missing"] is None and gap["missing_withheld"] is True
