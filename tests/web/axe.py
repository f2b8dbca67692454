"""The accessibility check of the browser tests: axe-core (the npm package pinned in
tests/web/package.json, installed by ``make axe``; ``make test`` runs it) injected into the
page from the local file, never fetched by the page.

Use it in any browser test once the page shows what it is about::

    from tests.web.axe import assert_no_serious_violations, check_page

    page.goto("/handoffs")
    assert_no_serious_violations(page, "handoffs")  # light and dark, at the page's size
    check_page(page, "handoffs")  # the same at 1280 and 390 px, then the four screenshots

It runs axe's WCAG 2 A and AA rules on the whole document in the light and in the dark
colour scheme (the CSS has a ``prefers-color-scheme: dark`` palette, so contrast differs),
leaves the page in the scheme it found, and fails listing every violation of impact serious
or critical: the rule id, axe's help text, and the offending nodes' selectors with axe's
summary of what to fix. Minor and moderate findings do not fail (``axe_violations`` returns
them all). Text axe leaves undecided because it sits on a background gradient (the edge
shadows of a table that scrolls sideways) is measured against the colour under the
gradient, and fails as a ``color-contrast`` violation when below axe's required ratio.
About 0.3-1 s per scheme on the app's pages."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.screenshots import save_screenshots

AXE_JS = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
WCAG_TAGS = ("wcag2a", "wcag2aa")
FAILING_IMPACTS = frozenset({"serious", "critical"})
SCHEMES = ("light", "dark")
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}

# The function evaluated in the page: axe.run, and its result cut to what a message shows.
_RUN = (Path(__file__).resolve().parent / "axe_run.js").read_text()


def _inject(page: Any) -> None:
    if page.evaluate("typeof window.axe !== 'undefined'"):
        return
    if not AXE_JS.is_file():
        pytest.fail(f"axe-core is not installed ({AXE_JS} is missing): run `make axe`")
    page.add_script_tag(path=str(AXE_JS))


def axe_violations(page: Any, tags: tuple[str, ...] = WCAG_TAGS) -> list[dict[str, Any]]:
    """Every violation axe reports on the page as it is now (any impact), in the colour
    scheme the page is in."""
    _inject(page)
    violations: list[dict[str, Any]] = page.evaluate(_RUN, list(tags))
    return violations


def _describe(scheme: str, violation: dict[str, Any]) -> str:
    lines = [f"[{scheme}] {violation['impact']}: {violation['id']} - {violation['help']}"]
    for node in violation["nodes"]:
        summary = " ".join(node["summary"].split())
        lines.append(f"    {node['target']}  ({summary})")
    lines.append(f"    see {violation['helpUrl']}")
    return "\n".join(lines)


def _scheme_of(page: Any) -> str:
    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    return "dark" if dark else "light"


def assert_no_serious_violations(page: Any, name: str, schemes: tuple[str, ...] = SCHEMES) -> None:
    """Fail when axe finds a serious or critical WCAG 2 A/AA violation on ``page`` in any of
    ``schemes`` (both by default). ``name`` says which page it was in the failure message."""
    found = _scheme_of(page)
    failures: list[str] = []
    try:
        for scheme in schemes:
            page.emulate_media(color_scheme=scheme)
            failures += [
                _describe(scheme, violation)
                for violation in axe_violations(page)
                if violation["impact"] in FAILING_IMPACTS
            ]
    finally:
        page.emulate_media(color_scheme=found)
    if failures:
        pytest.fail(
            f"axe-core: {len(failures)} serious or critical violation(s) on {name}:\n"
            + "\n".join(failures),
            pytrace=False,
        )


def check_page(page: Any, name: str, *, shots: bool = True) -> None:
    """``assert_no_serious_violations`` at desktop width and at a phone's (390 px), then (with
    ``shots``) ``save_screenshots``; the page is left at desktop width."""
    page.set_viewport_size(DESKTOP)
    assert_no_serious_violations(page, name)
    page.set_viewport_size(PHONE)
    try:
        assert_no_serious_violations(page, f"{name} at 390 px")
    finally:
        page.set_viewport_size(DESKTOP)
    if shots:
        save_screenshots(page, name)
