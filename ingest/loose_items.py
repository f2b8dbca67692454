"""A list item written as paragraphs (``<li><p>Hiring activity includes:</p><ul>…``, or
``<li><p>Step one.</p><p>More on it.</p>``) has its first paragraph made the item's own
text. unstructured reads a ``<li>`` holding more than one block as body text and its blocks,
so the item was no list item and its sub-items had no parent; a sole paragraph it adopts
itself. One rewrite of the parsed tree for both markups: Python-Markdown's tree
(``markdown_source.LooseItemText``) and an HTML page's (``loose_items_in_html``); both trees
speak ElementTree's API.
"""

from __future__ import annotations

from typing import Any

import lxml.etree
import lxml.html


def first_paragraphs_as_item_text(root: Any) -> int:
    """Rewrite every loose ``<li>`` under ``root`` in place; how many were rewritten."""
    rewritten = 0
    for item in root.iter("li"):
        if len(item) < 2 or item[0].tag != "p" or (item.text or "").strip():
            continue
        first = item[0]
        inline = list(first)
        item.remove(first)
        item.text = first.text
        for n, child in enumerate(inline):
            item.insert(n, child)
        if inline:
            inline[-1].tail = (inline[-1].tail or "") + (first.tail or "")
        else:
            item.text = (item.text or "") + (first.tail or "")
        rewritten += 1
    return rewritten


def loose_items_in_html(text: str) -> str:
    """``text`` (an HTML page) with its loose list items rewritten; as it was when it holds
    none, or when lxml cannot read it (unstructured then reads it as before)."""
    try:
        root = lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError):
        return text
    if not first_paragraphs_as_item_text(root):
        return text
    return str(lxml.html.tostring(root, encoding="unicode"))
