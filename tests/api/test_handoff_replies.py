"""The handoff loop closed: an owner replies in words (and may link the document that answers
it, or record the question as a content gap); the asker gets a badge until they read it, the
reply in their history, an e-mail through a real SMTP server on 127.0.0.1, and the webhook
hears of it. Nothing names or quotes a document above the asker."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from sqlalchemy import select

from api.app import create_app
from docent.db.models import Document
from docent.db.session import session_scope
from docent.wiring import Services
from tests.api.conftest import ApiEnv, WebhookServer, build_settings
from tests.api.corpus import SECRET, ingest_corpus, make_users, write_corpus
from tests.smtp_sink import SmtpSink, smtp_sink

DOGS = "How many dogs may I bring on home working days?"
WINTER = "How many dogs may I bring on home working days in winter?"


@pytest.fixture(scope="module")
def sink() -> Iterator[SmtpSink]:
    with smtp_sink() as running:
        yield running


@pytest.fixture(scope="module")
def mail_env(
    tmp_path_factory: pytest.TempPathFactory,
    bundled_embedder: Any,
    webhook: WebhookServer,
    sink: SmtpSink,
) -> Iterator[ApiEnv]:
    """The API tests' corpus and users, with e-mail to ``<name>@example.com`` set up."""
    root = tmp_path_factory.mktemp("replies")
    settings = build_settings(
        root / "data",
        handoff_webhook_url=webhook.url,
        smtp_host=sink.host,
        smtp_port=sink.port,
        smtp_from="docent@example.com",
        smtp_starttls=False,
        smtp_recipient_domain="example.com",
    )
    services = Services(settings, embedder=bundled_embedder)
    corpus = write_corpus(root / "corpus")
    ingest_corpus(services, corpus)
    tokens = make_users(services)
    with TestClient(create_app(services), raise_server_exceptions=False) as client:
        yield ApiEnv(services, client.app, client, tokens, corpus)  # type: ignore[arg-type]
    services.close()


def hand_off(env: ApiEnv, who: str, question: str, **extra: Any) -> dict[str, Any]:
    body = env.post(who, "/api/ask", json={"question": question}).json()
    assert body["outcome"] != "answered", body
    made = env.post(who, "/api/handoffs", json={"trace_id": body["trace_id"], **extra})
    assert made.status_code == 201, made.text
    return {"trace_id": body["trace_id"], **made.json()}


def unread(env: ApiEnv, who: str) -> int:
    count: int = env.get(who, "/api/handoffs").json()["unread_replies"]
    return count


@contextmanager
def raised(env: ApiEnv, source: str, level: str) -> Iterator[None]:
    """The document's level raised in the registry for the block's length."""
    with session_scope(env.services.sessions) as db:
        doc = db.execute(select(Document).where(Document.source == source)).scalar_one()
        before, doc.access_level = doc.access_level, level
    try:
        yield
    finally:
        with session_scope(env.services.sessions) as db:
            doc = db.execute(select(Document).where(Document.source == source)).scalar_one()
            doc.access_level = before


def test_the_reply_reaches_the_asker_by_badge_history_mail_and_webhook(
    mail_env: ApiEnv, sink: SmtpSink, webhook: WebhookServer
) -> None:
    env = mail_env
    handoff = hand_off(env, "ada", DOGS, note="We have a puppy.")
    queue = env.get("eddie", "/api/handoffs", params={"box": "queue", "state": "open"}).json()
    mine = next(h for h in queue["handoffs"] if h["id"] == handoff["id"])
    assert mine["can_close"] and mine["age_seconds"] >= 0 and not mine["reply_unread"]
    before = unread(env, "ada")
    heard = len(webhook.received)
    reply = "No dogs at home-working desks.\nSee the office guide for guide dogs."
    closed = env.post(
        "eddie",
        f"/api/handoffs/{handoff['id']}/close",
        json={"resolution": reply, "answer_source": "remote-work.md"},
    )
    assert closed.status_code == 200, closed.text
    assert closed.json()["email_status"] == "sent"
    assert closed.json()["answer_document"]["source"] == "remote-work.md"
    assert unread(env, "ada") == before + 1

    # The history: the reply beside the question, with the document that answers it.
    item = next(
        a
        for a in env.get("ada", "/api/history").json()["asks"]
        if a["trace_id"] == handoff["trace_id"]
    )
    assert item["question"] == DOGS and item["tier"] in ("probably_here", "not_covered")
    assert item["answer"] is None and not item["withheld"]
    assert item["handoff"]["resolution"] == reply and item["handoff"]["reply_unread"]
    assert item["handoff"]["answer_document"] == {
        "source": "remote-work.md",
        "title": "Remote Work Policy",
        "chunk_id": item["handoff"]["answer_document"]["chunk_id"],
    }
    assert item["handoff"]["email_status"] is None  # the asker is not the one who answers

    # The e-mail: to ada, from the configured sender, the reply and the document's name.
    (mail,) = sink.to("ada@example.com")
    text = mail.get_content()
    assert mail["From"] == "docent@example.com" and f"#{handoff['id']}" in mail["Subject"]
    assert "No dogs at home-working desks." in text and "guide dogs" in text
    assert DOGS in text and "Remote Work Policy (remote-work.md)" in text and "/history" in text
    assert "puppy" not in text  # the question as asked, the note stays in the handoff
    assert "three days" not in text and "manager's agreement" not in text  # no document text
    assert SECRET not in text and "severance" not in text.lower()
    # The webhook hears it was answered; the reply's words stay out of the channel.
    notice = webhook.received[heard]["text"]
    assert f"#{handoff['id']}" in notice and "answered by eddie" in notice
    assert "No dogs" not in notice

    # Reading the reply clears the badge; only the asker may mark it read.
    assert env.post("eddie", f"/api/handoffs/{handoff['id']}/read").status_code == 404
    assert env.post("ada", f"/api/handoffs/{handoff['id']}/read").status_code == 200
    assert unread(env, "ada") == before


def test_the_history_page_shows_the_badge_until_the_reply_is_opened(mail_env: ApiEnv) -> None:
    env = mail_env
    handoff = hand_off(env, "ada", "Which colour are the canteen chairs?")
    env.post("admin", f"/api/handoffs/{handoff['id']}/close", json={"resolution": "Blue ones."})
    html = {"Accept": "text/html"}
    ask_page = env.get("ada", "/", headers=html).text
    assert 'class="nav-badge"' in ask_page and "unread repl" in ask_page
    history = env.get("ada", "/history", headers=html).text
    assert "Blue ones." in history and "New reply" in history
    assert 'class="nav-badge"' not in history  # opened: read from now on
    assert 'class="nav-badge"' not in env.get("ada", "/", headers=html).text
    assert "Your questions passed to a person" in env.get("ada", "/handoffs", headers=html).text


def test_a_linked_document_must_be_one_the_asker_may_read(mail_env: ApiEnv, sink: SmtpSink) -> None:
    env = mail_env
    handoff = hand_off(env, "ada", "Do the severance rules cover dogs working from home?")
    path = f"/api/handoffs/{handoff['id']}/close"
    sent = len(sink.messages)
    # carla (confidential, People Ops) may read severance.md; ada may not: refused, and ada
    # hears nothing of it.
    refused = env.post(
        "carla", path, json={"resolution": "See severance.", "answer_source": "severance.md"}
    )
    assert (
        refused.status_code == 400
        and "ada may not read severance.md" in refused.json()["error"]["message"]
    )
    # A document the replier may not read is as unknown as a made-up name.
    hidden = env.post(
        "carla", path, json={"resolution": "x", "answer_source": "litigation-hold.md"}
    )
    unknown = env.post("carla", path, json={"resolution": "x", "answer_source": "nope.md"})
    assert hidden.status_code == unknown.status_code == 404
    assert (
        hidden.json()["error"]["message"].replace("litigation-hold.md", "nope.md")
        == unknown.json()["error"]["message"]
    )
    assert len(sink.messages) == sent
    mine = env.get("ada", f"/api/history/{handoff['trace_id']}").json()["handoff"]
    assert mine["state"] == "open" and mine["answer_document"] is None  # nothing was kept

    # Linked, then raised above ada: no longer named to her, on the page or in the API. (A
    # document among the handoff's closest would withhold the whole handoff: another rule.)
    titles = {
        "pricing.md": "Pricing",
        "travel.md": "Travel Policy",
        "travel-2022.md": "Travel Policy 2022",
        "parking-2099.md": "Parking Policy 2099",
    }
    link = next(s for s in titles if s not in handoff["closest_sources"])
    ok = env.post("carla", path, json={"resolution": "Other rules apply.", "answer_source": link})
    assert ok.status_code == 200, ok.text
    with raised(env, link, "confidential"):
        item = env.get("ada", f"/api/history/{handoff['trace_id']}").json()
        assert item["handoff"]["answer_document"] is None
        assert item["handoff"]["resolution"] == "Other rules apply."
        page = env.get("ada", "/history", headers={"Accept": "text/html"}).text
        assert "Other rules apply." in page and link not in page and titles[link] not in page
        assert link not in str(env.get("ada", "/api/handoffs").json())
        theirs = env.get("carla", "/api/handoffs").json()["handoffs"]
        assert any((h["answer_document"] or {}).get("source") == link for h in theirs)
    again = env.get("ada", f"/api/history/{handoff['trace_id']}").json()["handoff"]
    assert again["answer_document"]["source"] == link


def test_an_owner_turns_a_handoff_into_a_content_gap(mail_env: ApiEnv) -> None:
    env = mail_env
    handoff = hand_off(env, "ada", WINTER, note="asap")
    path = f"/api/handoffs/{handoff['id']}/gap"
    assert env.post("otto", path).status_code == 404  # not theirs to answer
    assert env.post("ada", path).status_code == 404  # the asker does not own it
    made = env.post("eddie", path)
    assert made.status_code == 200, made.text
    assert made.json()["gap"]["question"] == WINTER
    assert made.json()["gap"]["last_reason"] == "handed_off"
    assert made.json()["handoff"]["gap_id"] == made.json()["gap"]["id"]
    assert made.json()["handoff"]["state"] == "open"  # still waits for a reply
    assert env.post("eddie", path).status_code == 409
    gaps = env.get("eddie", "/api/gaps").json()["gaps"]
    assert any(g["id"] == made.json()["gap"]["id"] for g in gaps)
    # An owner who may not read the question cannot file it.
    theirs = hand_off(env, "cy", "What percentage of severance do contractors in Brazil get?")
    assert theirs["routed_to"] == "People Ops"
    refused = env.post("eddie", f"/api/handoffs/{theirs['id']}/gap")
    assert refused.status_code == 403 and "Brazil" not in refused.text


def test_the_queue_is_oldest_first_and_ones_own_newest_first(mail_env: ApiEnv) -> None:
    env = mail_env
    first = hand_off(env, "ada", "How many cats may I bring on home working days?")
    second = hand_off(env, "ada", "How many parrots may I bring on home working days?")
    queue = [
        h["id"]
        for h in env.get("eddie", "/api/handoffs", params={"box": "queue"}).json()["handoffs"]
    ]
    assert queue.index(first["id"]) < queue.index(second["id"])
    asked = [
        h["id"] for h in env.get("ada", "/api/handoffs", params={"box": "asked"}).json()["handoffs"]
    ]
    assert asked.index(second["id"]) < asked.index(first["id"])
    ages = {h["id"]: h["age_seconds"] for h in env.get("eddie", "/api/handoffs").json()["handoffs"]}
    assert ages[first["id"]] >= ages[second["id"]]
    page = env.get("eddie", "/handoffs", headers={"Accept": "text/html"}).text
    assert "passed to you or your team" in page and "waiting " in page
    assert page.index("many cats may") < page.index("many parrots may")
    assert 'for="reply-' in page and "Reply to ada" in page and "How was it resolved" not in page
    # Only documents eddie and ada may both read are offered to link.
    assert 'value="remote-work.md"' in page and 'value="severance.md"' not in page
    ada_page = env.get("ada", "/handoffs", headers={"Accept": "text/html"}).text
    assert (
        "Your questions passed to a person" in ada_page
        and "passed to you or your team" not in ada_page
    )
    assert "Reply to" not in ada_page


def test_a_mail_server_that_does_not_answer_keeps_the_reply(
    make_env: Any, webhook: WebhookServer
) -> None:
    with smtp_sink() as gone:
        port = gone.port  # free again once the sink stops
    env = make_env(
        smtp_host="127.0.0.1",
        smtp_port=port,
        smtp_from="d@example.com",
        smtp_starttls=False,
        smtp_recipient_domain="example.com",
    )
    made = env.post("ada", "/api/handoffs", json={"question": "Who runs the book club?"}).json()
    closed = env.post("admin", f"/api/handoffs/{made['id']}/close", json={"resolution": "Sam."})
    assert closed.status_code == 200 and closed.json()["email_status"].startswith("failed: ")
    assert unread(env, "ada") == 1


def test_mail_logs_in_when_a_user_is_set_and_needs_an_address(make_env: Any) -> None:
    with smtp_sink(login=("docent", "s3cret-pass")) as sink:
        common = {
            "smtp_host": sink.host,
            "smtp_port": sink.port,
            "smtp_from": "d@example.com",
            "smtp_starttls": False,
            "smtp_user": "docent",
            "smtp_password": "s3cret-pass",
        }
        env = make_env(**common, smtp_recipient_domain="corp.example")
        made = env.post("ada", "/api/handoffs", json={"question": "Who runs the chess club?"})
        path = f"/api/handoffs/{made.json()['id']}/close"
        assert env.post("admin", path, json={"resolution": "Kim."}).json()["email_status"] == "sent"
        assert sink.logins == [("docent", "s3cret-pass")]
        assert sink.envelopes == [("d@example.com", ["ada@corp.example"])]
        # No recipient domain: "ada" is no address, so no mail is tried.
        bare = make_env(**common)
        made = bare.post("ada", "/api/handoffs", json={"question": "Who runs the choir?"})
        closed = bare.post("admin", f"/api/handoffs/{made.json()['id']}/close", json={})
        assert closed.json()["email_status"] == "skipped: no e-mail address for ada"
        assert len(sink.messages) == 1


def test_smtp_settings_that_cannot_work_are_refused(tmp_path: Any) -> None:
    for bad in (
        {"smtp_host": "mail.example.com"},  # no sender
        {"smtp_host": "mail.example.com", "smtp_from": "not-an-address"},
        {"smtp_host": "mail.example.com", "smtp_from": "d@example.com", "smtp_user": "u"},
        {"smtp_port": 0},
    ):
        with pytest.raises(ValidationError):
            build_settings(tmp_path, **bad)


def test_the_mail_leaves_out_a_reply_whose_handoff_rose_above_the_asker(
    mail_env: ApiEnv, sink: SmtpSink
) -> None:
    env = mail_env
    question = "How many dogs may I bring on home working days in spring?"
    handoff = hand_off(env, "ada", question)
    assert handoff["closest_sources"][0] == "remote-work.md"
    assert env.post("ada", f"/api/handoffs/{handoff['id']}/read").status_code == 409  # no reply
    sent = len(sink.to("ada@example.com"))
    # Its closest document raised above ada before the reply: the reply may quote it, so
    # neither the mail nor her history carries the reply or the question's details.
    with raised(env, "remote-work.md", "confidential"):
        path = f"/api/handoffs/{handoff['id']}/close"
        closed = env.post("carla", path, json={"resolution": "Remote Work rule 7b says no."})
        assert closed.status_code == 200 and closed.json()["email_status"] == "sent"
        text = sink.to("ada@example.com")[sent].get_content()
        assert "carla replied to a question you passed to a person." in text
        assert "rule 7b" not in text and question not in text and "remote-work" not in text
        mine = env.get("ada", f"/api/history/{handoff['trace_id']}").json()["handoff"]
        assert mine["details_withheld"] and mine["resolution"] is None
    assert unread(env, "ada") >= 1


def test_a_user_name_is_an_address_or_needs_the_domain() -> None:
    from api.mail import address_of
    from web import _age, _cite_numbers

    assert address_of("ada", "example.com") == "ada@example.com"
    assert address_of("ada", "@example.com") == "ada@example.com"
    assert address_of("ada@corp.example", "example.com") == "ada@corp.example"
    assert address_of("ada", None) is None
    assert [_age(s) for s in (5, 60, 7200, 86400, 3 * 86400)] == [
        "just now",
        "1 min",
        "2 h",
        "1 day",
        "3 days",
    ]
    cited = [{"id": "a.md#0"}, {"id": "b.md#2"}]
    assert _cite_numbers("X [a.md#0]. Y [b.md#2] [c.md#1].", cited) == "X [1]. Y [2] [c.md#1]."


def test_handoffs_closed_before_the_follow_ups_start_read(database_url: str) -> None:
    from alembic import command
    from sqlalchemy import text

    from api.handoff_replies import unread_replies
    from docent.db.models import HandoffFollowUp
    from docent.db.session import alembic_config, make_engine, migrate, session_factory

    command.upgrade(alembic_config(database_url), "0004")
    engine = make_engine(database_url)
    insert = text(
        "INSERT INTO handoffs (id, created_at, question, asker, outcome, routed_to,"
        " closest_sources, state, closed_at) VALUES (:id, :at, 'q', 'ada',"
        " 'insufficient_evidence', 'docs-team', '[]', :state, :closed)"
    )
    at = "2026-01-01 10:00:00+00:00"
    try:
        with engine.begin() as conn:
            conn.execute(insert, {"id": 1, "at": at, "state": "closed", "closed": at})
            conn.execute(insert, {"id": 2, "at": at, "state": "open", "closed": None})
        migrate(database_url)
        with session_scope(session_factory(engine)) as db:
            rows = db.execute(select(HandoffFollowUp)).scalars().all()
            assert [(r.handoff_id, r.reply_read_at is not None) for r in rows] == [(1, True)]
            assert unread_replies(db, "ada") == 0  # old news: no badge
    finally:
        engine.dispose()
