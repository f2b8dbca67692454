"""Which list item a nested item sits under, and which item a later paragraph belongs to,
read from a chunk's display text.

Chunking writes a list item as ``"  " * depth + "- " + text`` (``ingest/chunking.py``), so
the nesting is in the indentation. A nested item is often meaningless alone: "setting up
my laptop" is a step of "18F Hiring / Onboarding - #1241: ... includes:", and a question
about the step names the parent's words. Ingest embeds such an item under its parents and
the answerer counts their words as the item's context, as a table row is read under its
header.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# A list item line of a chunk's text: its indentation and its text. Ingest's units read
# items with it too (``ingest.units.split_units``).
ITEM_LINE = re.compile(r"^(\s*)[-*+]\s+(.*)$")


def item_parents(text: str) -> dict[str, tuple[str, ...]]:
    """Each nested list item of ``text`` (whitespace runs made single, as the chunk's units
    are) mapped to the items it sits under, outermost first, each with its later
    paragraphs. Top-level items, and items whose parent is not in ``text`` (a long list
    split across chunks), are left out; an item written twice keeps its first parents."""
    return dict(_read(text).parents)


def item_leads(text: str) -> dict[str, str]:
    """Each later paragraph of a list item in ``text`` (whitespace runs made single) mapped
    to the item's own first line: "New employee onboarding activities … should also be
    billed here." means the item "18F Hiring / Onboarding - #1241: …" by "here"."""
    return dict(_read(text).leads)


def item_lines(text: str) -> frozenset[str]:
    """Every list item line of ``text``, as the chunk's units read it (whitespace runs made
    single)."""
    return _read(text).items


@dataclass(frozen=True)
class _Lists:
    parents: dict[str, tuple[str, ...]]
    leads: dict[str, str]
    items: frozenset[str]


@lru_cache(maxsize=4096)  # the answerer asks of the same few passages many times a question
def _read(text: str) -> _Lists:
    """One walk over ``text``'s lines: the items open above each line, from the outermost
    in, as (indent, first line, first line and later paragraphs)."""
    parents: dict[str, tuple[str, ...]] = {}
    leads: dict[str, str] = {}
    items: set[str] = set()
    open_items: list[tuple[int, str, str]] = []
    for line in text.splitlines():
        match = ITEM_LINE.match(line)
        if match is None:
            if line.strip() and not line.startswith(" "):
                open_items.clear()  # a paragraph or table row ends the list
            elif line.strip():
                _continue_item(open_items, line, leads)
            continue
        indent, item = len(match.group(1)), " ".join(match.group(2).split())
        items.add(item)
        while open_items and open_items[-1][0] >= indent:
            open_items.pop()
        if open_items and item and item not in parents:
            parents[item] = tuple(whole for _, _, whole in open_items)
        open_items.append((indent, item, item))
    return _Lists(parents, leads, frozenset(items))


def _continue_item(
    open_items: list[tuple[int, str, str]], line: str, leads: dict[str, str]
) -> None:
    """An indented line that is no item is a later paragraph of the item whose text it is
    under ("New employee onboarding … Those include:" under "18F Hiring / Onboarding -
    #1241: …"): the sub-items after it read under both, and the paragraph means that item."""
    indent = len(line) - len(line.lstrip(" "))
    while open_items and open_items[-1][0] >= indent:
        open_items.pop()
    if open_items:
        at, first, whole = open_items[-1]
        paragraph = " ".join(line.split())
        leads.setdefault(paragraph, first)
        open_items[-1] = (at, first, f"{whole} {paragraph}")
