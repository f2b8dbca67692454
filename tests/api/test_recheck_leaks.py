"""The API's second permission check, attacked with an answer stage that leaks every field
(tests/api/leaky_asker.py): for each role and each document that role may not read, ranked
first, no byte of that document's text, file name, title, heading or owner reaches anything
the asker is shown — the ask body and headers, the handoff made from it, their handoff list,
the trace — nor any log line written while they were served."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from api.gaps import record_gap
from api.routes.ask import closest_sources
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv, LogLines
from tests.api.leaky_asker import (
    ALWAYS_VISIBLE,
    ANSWERS,
    BY_SOURCE,
    HONEST,
    SCENARIOS,
    EveryLevelAsker,
    build_env,
    cases,
    leaks,
    principal,
    principals,
    raise_level,
)
from tests.ingest.hashing_embedder import HashingEmbedder


@pytest.fixture(scope="module")
def leak_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiEnv]:
    env = build_env(tmp_path_factory.mktemp("recheck"), HashingEmbedder(256))
    try:
        yield env
    finally:
        env.client.close()
        env.services.close()


@pytest.fixture
def log_lines(caplog: pytest.LogCaptureFixture, docent_logs: LogLines) -> LogLines:
    caplog.set_level(logging.DEBUG)
    return docent_logs


def seen(response: object) -> str:
    """What a response shows: its body and every header."""
    return f"{response.text}\n{dict(response.headers)!r}"  # type: ignore[attr-defined]


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize(("who", "first"), cases())
def test_nothing_the_asker_may_not_read_reaches_them(
    leak_env: ApiEnv,
    log_lines: LogLines,
    caplog: pytest.LogCaptureFixture,
    who: str,
    first: str,
    scenario: str,
) -> None:
    env, principal = leak_env, principals()[who]
    env.services.__dict__["asker"] = EveryLevelAsker(env.services, scenario, first)
    ask = env.post(who, "/api/ask", json={"question": "What are the rules here?"})
    shown = [seen(ask)]
    assert leaks(shown[0], principal) == []
    if scenario in ANSWERS:
        # Every answer here stands on something hidden: refused whole, as a fault.
        assert ask.status_code == 500, ask.text
        assert ask.json()["error"]["code"] == "answer_withheld"
    else:
        assert ask.status_code == 200, ask.text
        body = ask.json()
        # The test can fail the other way: the asker's own passage is still offered.
        assert ALWAYS_VISIBLE.source in {c["source"] for c in body["closest"]}, body
        assert ALWAYS_VISIBLE.sentence in {c["excerpt"] for c in body["closest"]}
        trace_id = body["trace_id"]
        made = env.post(who, "/api/handoffs", json={"trace_id": trace_id})
        assert made.status_code == 201, made.text
        shown += [seen(made), seen(env.get(who, "/api/handoffs"))]
        trace = env.get(who, f"/api/traces/{trace_id}")
        assert trace.status_code == 404  # it names chunks they may not read
        shown.append(seen(trace))
    logged = "\n".join(
        [*log_lines.lines, *(f"{r.getMessage()} {r.__dict__!r}" for r in caplog.records)]
    )
    # The log says that something was dropped, and which fields, but never what it was.
    assert "above the caller's clearance" in logged, logged
    assert leaks("\n".join(shown), principal) == []
    assert leaks(logged, principal) == []


def test_each_case_hides_something_and_shows_something(leak_env: ApiEnv) -> None:
    """The cases are not vacuous: every role has hidden documents among them, and the
    leaky stage really puts hidden names into a body (checked on what it builds)."""
    from api.ports import ask_json_of

    who_cases = {who for who, _ in cases()}
    assert who_cases == set(principals())
    for who, first in cases():
        stage = EveryLevelAsker(leak_env.services, "insufficient", first)
        raw = repr(ask_json_of(stage.ask("q", principals()[who])))
        assert leaks(raw, principals()[who]), (who, first)


@pytest.fixture(autouse=True)
def _real_asker_back(leak_env: ApiEnv) -> Iterator[None]:
    yield
    leak_env.services.__dict__.pop("asker", None)


# --- the other endpoints that return document-derived text ----------------------------------


def test_a_successor_or_predecessor_above_the_reader_is_not_named(leak_env: ApiEnv) -> None:
    """A readable document (or passage) names the one that replaces it, or that it replaces:
    the passage view, the document list and the document view show that name only to
    readers of it (the status still says ``superseded``)."""
    env = leak_env
    old = quote(env.services.index.chunks_of("parking-old.md")[0].chunk_id, safe="/")
    for who, may in (("ada", False), ("cy", True)):
        passage = env.get(who, f"/api/passages/{old}")
        assert passage.status_code == 200 and passage.json()["status"] == "superseded"
        assert passage.json()["superseded_by"] == ("parking-zircon.md" if may else None)
        instead = passage.json()["superseded_by_passage"]  # and links its passage likewise
        assert (instead or "").startswith("parking-zircon.md#") if may else instead is None
        page = env.get(who, f"/passages/{old}", headers={"Accept": "text/html"})
        assert page.status_code == 200 and ("parking-zircon.md" in page.text) is may
        assert ("Read the passage that replaced it" in page.text) is may
        if not may:
            assert leaks(seen(passage) + seen(page), principal(who)) == []
    for who, may in (("eddie", False), ("carla", True)):
        listed = env.get(who, "/api/documents")
        rows = {d["source"]: d for d in listed.json()["documents"]}
        assert rows["parking-old.md"]["superseded_by"] == ("parking-zircon.md" if may else None)
        assert rows["badge-rules.md"]["supersedes"] == (["badge-onyx.md"] if may else [])
        shown = [seen(listed), seen(env.get(who, "/documents", headers={"Accept": "text/html"}))]
        for source in ("parking-old.md", "badge-rules.md"):
            doc_id = rows[source]["doc_id"]
            one = env.get(who, f"/api/documents/{doc_id}")
            assert one.status_code == 200
            shown += [seen(one), seen(env.get(who, f"/documents/{doc_id}"))]
        if not may:
            assert leaks("\n".join(shown), principal(who)) == []


def test_a_document_raised_above_its_reader_takes_back_what_named_it(tmp_path: Path) -> None:
    """What a sound ask showed is rechecked against the registry as it is now: once the
    document is raised above the asker, their trace is not found, a handoff made from it
    goes to the default queue without the answer stage's words, and the handoff and the
    content gap made before withhold their details from readers below the new level."""
    env = build_env(tmp_path, HashingEmbedder(256))
    try:
        canteen = BY_SOURCE["canteen-slots.md"]
        secret = (canteen.sentence, canteen.title, canteen.heading, canteen.source)
        env.services.__dict__["asker"] = EveryLevelAsker(env.services, HONEST, canteen.source)
        body = env.post("ada", "/api/ask", json={"question": "When are lunch slots?"}).json()
        assert body["handoff"]["source"] == canteen.source, body
        trace_id = body["trace_id"]
        # The gap this ask makes had nothing matched for anyone (which asks are gaps:
        # tests/api/test_gaps.py), as the ask route records it.
        with session_scope(env.services.sessions) as db:
            record_gap(
                db,
                "When are lunch slots?",
                body["outcome"],
                closest_sources(body),
                env.services.settings.access_levels,
                missing=body["missing"],
                retrieved_sources=[r["source"] for r in body["retrieved"]],
                trace_id=trace_id,
            )
        made = env.post("ada", "/api/handoffs", json={"trace_id": trace_id}).json()
        # Before: all of it is theirs to see (so the test can fail the other way).
        assert canteen.sentence in made["missing"] and made["routed_to"] == canteen.owner
        assert canteen.sentence in env.get("ada", f"/api/traces/{trace_id}").text
        assert canteen.sentence in env.get("eddie", "/api/gaps").text

        raise_level(env, canteen.source, "confidential")
        trace = env.get("ada", f"/api/traces/{trace_id}")
        again = env.post("ada", "/api/handoffs", json={"trace_id": trace_id})
        assert trace.status_code == 404 and again.status_code == 201
        assert again.json()["routed_to"] == env.services.settings.default_handoff_queue
        assert again.json()["missing"] is None
        mine = {h["id"]: h for h in env.get("ada", "/api/handoffs").json()["handoffs"]}
        assert mine[made["id"]]["details_withheld"] is True
        shown = [
            trace.text,
            again.text,
            env.get("ada", "/api/handoffs").text,
            env.get("ada", "/handoffs", headers={"Accept": "text/html"}).text,
            env.get("eddie", "/api/gaps").text,
            env.get("eddie", "/gaps", headers={"Accept": "text/html"}).text,
        ]
        assert [n for n in secret if n in "\n".join(shown)] == []
        # A reader at the new level still sees the gap's detail: withheld, not lost.
        assert canteen.sentence in env.get("carla", "/api/gaps").text
    finally:
        env.client.close()
        env.services.close()
