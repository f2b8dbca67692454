"""The handoff loop in a real browser: ada asks what the documents do not answer and hands it
off; eddie (People Ops, the owner) answers in the reply box and links the document that
answers it; ada sees the badge on the nav, opens her History and reads the reply beside her
question (the badge goes); the SMTP sink on 127.0.0.1 got the e-mail with the reply and no
text of a document ada may not read. The History and Handoffs pages are kept as screenshots
at desktop width and 390 px, light and dark."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from docent.wiring import Services
from tests.api.conftest import build_settings
from tests.api.corpus import FILES, SECRET, ingest_corpus, make_users, write_corpus
from tests.smtp_sink import SmtpSink, smtp_sink
from tests.web.conftest import SHOTS, LiveServer, serving, sign_in

pytestmark = pytest.mark.browser

QUESTION = "How many dogs may I bring on home working days?"
NOTE = "Mine is a small, quiet spaniel."
REPLY = "No dogs at home-working desks.\nGuide dogs are always welcome: tell your manager."
DESKTOP = {"width": 1200, "height": 860}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def sink() -> Iterator[SmtpSink]:
    with smtp_sink() as running:
        yield running


@pytest.fixture(scope="module")
def loop_server(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any, sink: SmtpSink
) -> Iterator[LiveServer]:
    """The browser tests' corpus and users, served with e-mail to ``<name>@example.com``."""
    root = tmp_path_factory.mktemp("loop")
    settings = build_settings(
        root / "data",
        smtp_host=sink.host,
        smtp_port=sink.port,
        smtp_from="docent@example.com",
        smtp_starttls=False,
        smtp_recipient_domain="example.com",
    )
    services = Services(settings, embedder=bundled_embedder)
    ingest_corpus(services, write_corpus(root / "corpus"))
    tokens = make_users(services)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        with serving(services) as url:
            yield LiveServer(url, services, tokens, SHOTS)
    finally:
        services.close()


@pytest.fixture
def open_page(browser: Any, loop_server: LiveServer) -> Iterator[Any]:
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None, color_scheme: str = "light") -> Any:
        context = browser.new_context(
            base_url=loop_server.url, viewport=viewport or DESKTOP, color_scheme=color_scheme
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        return page

    yield make
    for context in contexts:
        context.close()


def shot(page: Any, name: str) -> None:
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def hand_off_as_ada(open_page: Any) -> Any:
    page = open_page()
    sign_in(page, "ada")
    page.get_by_label("Your question").fill(QUESTION)
    page.get_by_role("button", name="Ask").click()
    page.wait_for_selector(".nonanswer")
    page.get_by_label("A note for them (optional)").fill(NOTE)
    page.get_by_role("button", name="Ask a person").click()
    page.wait_for_selector(".alert-ok")
    assert "People Ops" in page.inner_text(".alert-ok")
    page.goto("/handoffs")
    assert "Your questions passed to a person" in page.inner_text("main")
    assert "passed to you or your team" not in page.inner_text("main")
    mine = page.locator("#asked-list .handoff", has_text=QUESTION)
    assert "Waiting for a reply" in mine.inner_text()
    assert page.locator("form[data-reply]").count() == 0  # an asker gets no reply box
    return page


def reply_as_eddie(open_page: Any) -> None:
    owner = open_page()
    sign_in(owner, "eddie")
    owner.goto("/handoffs")
    assert "passed to you or your team" in owner.inner_text(".page-head")
    card = owner.locator("#handoff-list .handoff", has_text=QUESTION)
    assert re.search(r"waiting (just now|\d+ min)", card.inner_text())
    assert NOTE in card.inner_text()  # the asker's note reaches the person
    box = card.get_by_label("Reply to ada")
    assert box.evaluate("node => node.tagName") == "TEXTAREA"
    choices = card.get_by_label("Document that answers it (optional)")
    offered = choices.locator("option").all_inner_texts()
    assert "Remote Work Policy (remote-work.md)" in offered
    assert not any("severance" in o.lower() for o in offered)  # neither may read it
    shot(owner, "handoff-loop-handoffs-owner-desktop-light")
    box.fill(REPLY)
    choices.select_option("remote-work.md")
    with owner.expect_response(lambda r: r.url.endswith("/close")) as sent:
        card.get_by_role("button", name="Send reply").click()
    assert sent.value.status == 200, sent.value.text()
    owner.locator("#handoff-list .handoff", has_text=QUESTION).wait_for(state="detached")
    owner.goto("/handoffs?state=closed")
    answered = owner.locator("#handoff-list .handoff", has_text=QUESTION)
    assert "No dogs at home-working desks." in answered.inner_text()
    assert "remote-work.md" in answered.inner_text()


def test_ada_hands_off_eddie_replies_ada_reads_the_reply(
    open_page: Any, loop_server: LiveServer, sink: SmtpSink
) -> None:
    asker = hand_off_as_ada(open_page)
    shot(asker, "handoff-loop-handoffs-asker-desktop-light")
    assert asker.locator(".nav-badge").count() == 0
    reply_as_eddie(open_page)

    # The badge: on the nav, on every page, until she opens the reply.
    asker.goto("/")
    badge = asker.locator(".mainnav .nav-badge")
    assert badge.inner_text().startswith("1")
    assert asker.get_by_role("link", name="History 1 unread reply").count() == 1
    shot(asker, "handoff-loop-badge-desktop-light")
    asker.get_by_role("link", name="History 1 unread reply").click()
    asker.wait_for_url("**/history")
    item = asker.locator(".history-item", has_text=QUESTION)
    assert "Not answered" in item.inner_text() and "New reply" in item.inner_text()
    reply = item.locator(".history-reply")
    assert "passed to people ops" in reply.inner_text().lower()
    assert "Reply from eddie" in reply.inner_text()
    assert "Guide dogs are always welcome" in reply.inner_text()
    linked = reply.get_by_role("link", name="Remote Work Policy")
    assert "remote-work.md" in (linked.get_attribute("href") or "")
    assert asker.locator(".mainnav .nav-badge").count() == 0  # read now
    assert SECRET not in asker.content()
    shot(asker, "handoff-loop-history-desktop-light")
    asker.reload()
    assert "New reply" not in asker.locator(".history-item", has_text=QUESTION).inner_text()
    linked = asker.locator(".history-reply").get_by_role("link", name="Remote Work Policy")
    linked.click()
    asker.wait_for_selector("article.passage")
    assert "Remote Work Policy" in asker.inner_text("main")

    # The e-mail: to ada, with the reply, and no text of a document she may not read.
    (mail,) = sink.to("ada@example.com")
    text = mail.get_content()
    assert "No dogs at home-working desks." in text and "Guide dogs are always welcome" in text
    assert QUESTION in text and "Remote Work Policy (remote-work.md)" in text
    assert SECRET not in text and "Severance" not in text and "severance" not in text
    for line in FILES["remote-work.md"].splitlines()[1:]:
        assert not line.strip() or line.strip() not in text  # names the document, quotes none


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", ["desktop", "phone"])
def test_history_and_handoffs_pages_at_each_width_and_scheme(
    open_page: Any, loop_server: LiveServer, scheme: str, width: str
) -> None:
    viewport = DESKTOP if width == "desktop" else PHONE
    pages = (("ada", "/history", "history"), ("eddie", "/handoffs?state=all", "handoffs"))
    for who, path, name in pages:
        page = open_page(viewport, scheme)
        sign_in(page, who)
        page.goto(path)
        page.wait_for_selector("h1")
        heading = page.inner_text("h1")
        assert heading == ("Your questions" if who == "ada" else "Handoffs")
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
        assert dark is (scheme == "dark")
        shot(page, f"handoff-loop-{name}-{width}-{scheme}")
