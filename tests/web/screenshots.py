"""Screenshots of a page as people see it: at desktop width (1280 px) and at a phone's
(390 px), in the light and the dark colour scheme, saved as
``test-output/screenshots/<name>-<width>-<scheme>.png``::

    from tests.web.screenshots import save_screenshots

    save_screenshots(page, "handoffs")  # four files: handoffs-1280-light.png, ...

The page is resized and its scheme switched in place (no reload, so what a test typed or
asked stays on it), then given back at the size and scheme it had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.web.conftest import SHOTS

WIDTHS = {1280: 860, 390: 844}  # width -> the viewport's height at that width
SCHEMES = ("light", "dark")


def save_screenshots(page: Any, name: str) -> list[Path]:
    """Save ``page`` at each width in each scheme; return the files written."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    dark = page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches")
    written: list[Path] = []
    try:
        for width, height in WIDTHS.items():
            page.set_viewport_size({"width": width, "height": height})
            for scheme in SCHEMES:
                page.emulate_media(color_scheme=scheme)
                # From the top, the pointer off the page: no hover state, the sticky bar home.
                page.mouse.move(0, 0)
                page.evaluate("window.scrollTo(0, 0)")
                path = SHOTS / f"{name}-{width}-{scheme}.png"
                page.screenshot(path=str(path), full_page=True)
                written.append(path)
    finally:
        page.set_viewport_size(size)
        page.emulate_media(color_scheme="dark" if dark else "light")
    return written
