"""The app served by a real uvicorn on 127.0.0.1 (in a thread, over a temporary data dir and
the API tests' corpus), and Debian's Chromium driven by Playwright (never a downloaded
browser). Screenshots go to test-output/screenshots/."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from api.app import create_app
from docent.wiring import Services
from tests.api.conftest import build_settings
from tests.api.corpus import USERS, ingest_corpus, make_users, write_corpus

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class LiveServer:
    url: str
    services: Services
    tokens: dict[str, str]
    shots: Path


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(services: Services) -> Iterator[str]:
    """The app over ``services`` on a free port of 127.0.0.1, in a thread; yields its URL."""
    port = _free_port()
    config = uvicorn.Config(
        create_app(services), host="127.0.0.1", port=port, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


SHOTS = Path(__file__).resolve().parents[2] / "test-output" / "screenshots"


@pytest.fixture(scope="session")
def live_server(
    tmp_path_factory: pytest.TempPathFactory, bundled_embedder: Any
) -> Iterator[LiveServer]:
    root = tmp_path_factory.mktemp("web")
    services = Services(build_settings(root / "data"), embedder=bundled_embedder)
    ingest_corpus(services, write_corpus(root / "corpus"))
    tokens = make_users(services)
    SHOTS.mkdir(parents=True, exist_ok=True)
    try:
        with serving(services) as url:
            yield LiveServer(url, services, tokens, SHOTS)
    finally:
        services.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "Debian chromium is missing: apt-get install -y chromium chromium-driver"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def new_page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """Opens pages in fresh browser contexts (each its own cookies); closes them after."""
    contexts: list[Any] = []

    def make(viewport: dict[str, int] | None = None, color_scheme: str = "light") -> Any:
        context = browser.new_context(
            base_url=live_server.url,
            viewport=viewport or {"width": 1200, "height": 860},
            color_scheme=color_scheme,
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(30_000)
        return page

    yield make
    for context in contexts:
        context.close()


def sign_in(page: Any, name: str) -> None:
    page.goto("/login")
    page.get_by_label("User name").fill(name)
    page.get_by_label("Password").fill(USERS[name].password)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_selector(".userchip")
