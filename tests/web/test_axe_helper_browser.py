"""The accessibility check itself (tests/web/axe.py) fails where it must: on a page with a
nameless button and faint text, on text that is faint in the dark scheme only, and on faint
text over a background gradient that axe alone leaves undecided; and it passes a clean
page. Static pages set into a blank tab: no server. About 2 s."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.axe import assert_no_serious_violations

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html lang="en"><head><title>Check</title><style>{style}</style></head>
<body><main><h1>Check</h1>{body}</main></body></html>"""
CLEAN = "<p>Readable text.</p><button>Send</button>"


@pytest.fixture(scope="module")
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(color_scheme="light")
    try:
        yield context.new_page()
    finally:
        context.close()


def failure(page: Any, body: str, style: str = "") -> str:
    page.set_content(PAGE.format(style=style, body=body))
    with pytest.raises(pytest.fail.Exception) as failed:
        assert_no_serious_violations(page, "the test page")
    return str(failed.value)


def test_a_clean_page_passes_and_keeps_its_scheme(page: Any) -> None:
    page.set_content(PAGE.format(style="", body=CLEAN))
    assert_no_serious_violations(page, "a clean page")
    assert page.evaluate("matchMedia('(prefers-color-scheme: light)').matches")


def test_a_nameless_button_and_faint_text_fail_with_their_selectors(page: Any) -> None:
    message = failure(
        page,
        '<button id="bare"></button><p id="faint" class="faint">Faint text.</p>',
        ".faint { color: #bbb; background: #fff; }",
    )
    assert "on the test page" in message
    assert "critical: button-name" in message and "#bare" in message
    assert "serious: color-contrast" in message and "#faint" in message
    assert message.count("[light]") == 2 and message.count("[dark]") == 2


def test_text_faint_in_the_dark_scheme_only_fails_there(page: Any) -> None:
    style = (
        ".t { color: #222; background: #fff; }"
        "@media (prefers-color-scheme: dark) { .t { color: #333; background: #111; } }"
    )
    message = failure(page, '<p class="t">Dark trouble.</p>', style)
    assert "[dark] serious: color-contrast" in message and "[light]" not in message


def test_faint_text_on_a_background_gradient_is_measured(page: Any) -> None:
    style = (
        ".scroll { background: linear-gradient(to right, #fff, transparent) local, #fff; }"
        ".scroll td { color: #c8c8c8; }"
    )
    body = '<div class="scroll"><table><tr><td>Faint cell</td></tr></table></div>'
    message = failure(page, body, style)
    assert "color-contrast" in message and "background gradient" in message
    page.set_content(PAGE.format(style=style.replace("#c8c8c8", "#333"), body=body))
    assert_no_serious_violations(page, "a readable table on a gradient")
