"""One retrieved chunk as a ``<doc …>…</doc>`` block of the prompt.

The block id is the chunk id (``<source>#<n>``): stable across asks, the same id the trace,
the citations and ``ask --json`` use, so nothing has to be mapped back after generation.

Document text is data, not markup: attribute values are XML-escaped, and inside the text
every ``<doc`` / ``</doc`` (any case) has its ``<`` escaped, so a document cannot close its
own block early or open a fake one.
"""

from __future__ import annotations

import re

from docent.contracts import Hit

_TAG_IN_TEXT = re.compile(r"<(/?\s*doc\b)", re.IGNORECASE)


def escape_attr(value: str) -> str:
    """An attribute value safe inside double quotes (``&``, ``"``, ``<``, ``>``, newlines)."""
    return (
        value.replace("&", "&amp;")
        .replace('"', "&quot;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\n", " ")
        .replace("\r", " ")
    )


def escape_text(text: str) -> str:
    """Block text with any ``<doc``/``</doc`` neutralised; everything else left as written."""
    return _TAG_IN_TEXT.sub(r"&lt;\1", text)


def render_block(hit: Hit) -> str:
    """``<doc id source heading effective status>`` + the chunk text + ``</doc>``."""
    chunk = hit.chunk
    effective = chunk.effective_date.isoformat() if chunk.effective_date else "unknown"
    attrs = (
        f'id="{escape_attr(chunk.chunk_id)}" '
        f'source="{escape_attr(chunk.source)}" '
        f'heading="{escape_attr(chunk.heading)}" '
        f'effective="{effective}" '
        f'status="{escape_attr(chunk.status)}"'
    )
    return f"<doc {attrs}>\n{escape_text(chunk.text.strip())}\n</doc>"
