"""Markdown as authors write it (CommonMark, as GitHub renders it) rewritten into what
Python-Markdown, the parser under ``unstructured``, reads the same way.

Three differences lose structure without these rewrites (measured on ../shared/corpora,
whose 18F handbook writes its lists two spaces in): Python-Markdown starts a list, a table or
a quote only after a blank line; it nests a list only four spaces in; and it reads "#1810."
at a line's start as a heading. All are plain text rewrites before parsing, and fenced code
is left as written. One more fix is made to the parsed tree (``LooseItemText``):
unstructured reads a list item written as paragraphs as body text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from ingest.loose_items import first_paragraphs_as_item_text

# A bullet item, or an ordered list starting at 1 (CommonMark lets only those interrupt a
# paragraph), at most three spaces in: deeper lines belong to the item above.
_LIST_START = re.compile(r"^ {0,3}(?:[-*+]|1[.)])[ \t]+\S")
_THEMATIC_BREAK = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# Any list item: its indent, marker, the spaces after the marker, and its text.
_ITEM = re.compile(r"^( *)([-*+]|\d{1,9}[.)])( +|$)(.*)$")
_FENCE = ("```", "~~~")
# "#1810" or "#hashtag" at the start of a line or of a list item's text: CommonMark's
# heading needs a space after the #s.
_HASH_WORD = re.compile(r"^( *(?:(?:[-*+]|\d{1,9}[.)]) +)?)(#{1,6}[^#\s])")
# Python-Markdown nests a block inside a list item only this many spaces in.
_NEST = 4


def markdown_as_commonmark(body: str) -> str:
    """Every rewrite below, in the order they build on."""
    return nest_lists_four_spaces(blank_line_before_blocks(escape_hash_words(body)))


def escape_hash_words(body: str) -> str:
    """A line "#1810. (See below.)" (a Tock code ending a sentence) or an item
    "- #tts-handbook" (a Slack channel) stays text: Python-Markdown reads any line or item
    starting with "#" as a heading, which cut the 18F Tock page's "Extended Out of Office"
    item off from the item above it."""
    lines = (line if fenced else _HASH_WORD.sub(r"\1\\\2", line) for line, fenced in _fenced(body))
    return "\n".join(lines)


def _fenced(body: str) -> Iterator[tuple[str, bool]]:
    """Each line, and whether it is in fenced code (an opening fence counts as in, a
    closing one as out)."""
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith(_FENCE):
            fenced = not fenced
        yield line, fenced


def _starts_list(line: str) -> bool:
    return bool(_LIST_START.match(line)) and not _THEMATIC_BREAK.match(line)


def _opens(mark: str, line: str, previous: str) -> bool:
    return line.lstrip().startswith(mark) and not previous.lstrip().startswith(mark)


def blank_line_before_blocks(body: str) -> str:
    """Python-Markdown (under ``unstructured``) starts a table, a quote or a list only after
    a blank line; authors, and CommonMark, do not need one: "For example:" straight above a
    table, "> **Example:** …" right under a numbered step, or "We have a few rules:"
    straight above "* You must be age 13 or older." Without the blank line the block is
    read as part of that paragraph: a list's items run together into one sentence
    ("machine accounts: * A machine account …"), a quote keeps its ">". An item right under
    another item's lines needs none: Python-Markdown reads those as one list."""
    out: list[str] = []
    in_item = False  # the lines since the last blank line began with a list item
    for line, fenced in _fenced(body):
        previous = out[-1] if out else ""
        if not previous.strip():
            in_item = _starts_list(line)
        elif not fenced:
            table_or_quote = any(_opens(mark, line, previous) for mark in ("|", ">"))
            # Also below an item's second paragraph ("    More of the rule above." then
            # "  * next rule"), which CommonMark ends and Python-Markdown would not.
            items = _starts_list(line) and not in_item
            if table_or_quote or items:
                out.append("")
                in_item = items
        out.append(line)
    return "\n".join(out)


def _indent(line: str) -> tuple[int, str]:
    """The line's indentation in columns (a tab to the next multiple of four), and its text."""
    text = line.lstrip(" \t")
    return len(line[: len(line) - len(text)].expandtabs(_NEST)), text


def nest_lists_four_spaces(body: str) -> str:
    """Re-indent every list so that each nesting level sits four spaces in, as
    Python-Markdown needs. CommonMark nests whatever starts at the item's text column:
    "  - Interviews," under "- Hiring activity includes:" is a sub-item there, while
    Python-Markdown reads it as a sibling, and a sub-item's own "    - …" items as text of
    the item above (the 18F handbook writes its lists two spaces in). A line after a blank
    line that starts left of every open item's text ends the list; a line right under an
    item's text is its continuation (CommonMark's lazy lines). Text indented past the
    item's column keeps the extra (an indented code block stays one). Fenced code in an item
    ends the list and moves to the margin: Python-Markdown's fences work only there (in an
    item its text ran into the item's: "… your email address: sh ssh-keygen -t …")."""
    out: list[str] = []
    open_items: list[int] = []  # each open item's text column in the source, outermost first
    fence_shift: int | None = None  # inside fenced code: the shift of its opening line
    previous_blank = True
    for line in body.splitlines():
        column, text = _indent(line)
        if fence_shift is not None:
            out.append(_shifted(column, text, fence_shift))
            if text.startswith(_FENCE):  # the closing fence: a blank line ends the block
                out.append("")
                fence_shift, previous_blank = None, True
            continue
        if not text:
            out.append("")
            previous_blank = True
            continue
        if text.startswith(_FENCE) and (open_items or column <= 3):
            if open_items and not previous_blank:
                out.append("")
            open_items.clear()
            fence_shift = -column
            out.append(text)
            previous_blank = False
            continue
        item = None if _THEMATIC_BREAK.match(line) else _ITEM.match(" " * column + text)
        if item is not None and (open_items or (previous_blank and column <= 3)):
            while open_items and open_items[-1] > column:
                open_items.pop()
            marker, spaces, rest = item.group(2), item.group(3), item.group(4)
            out.append(f"{' ' * (_NEST * len(open_items))}{marker} {rest}".rstrip())
            width = len(spaces) if 0 < len(spaces) <= 4 else 1
            open_items.append(column + len(marker) + width)
        elif open_items:
            if previous_blank:
                while open_items and open_items[-1] > column:
                    open_items.pop()
            if open_items:
                extra = max(0, column - open_items[-1])
                new_column = _NEST * len(open_items) + extra
                out.append(" " * new_column + text)
            else:
                out.append(line)
        else:
            out.append(line)
        previous_blank = False
    return "\n".join(out)


def _shifted(column: int, text: str, shift: int) -> str:
    """A line of fenced code moved as far left as its fence was, never into its own text."""
    return " " * max(0, column + shift) + text if text else ""


class _FirstParagraphAsItemText(Treeprocessor):  # type: ignore[misc]  # Markdown is untyped
    def run(self, root: Any) -> None:
        first_paragraphs_as_item_text(root)


class LooseItemText(Extension):  # type: ignore[misc]  # Markdown is untyped
    """A list item of paragraphs has its first paragraph made the item's own text
    (``ingest/loose_items.py``): "18F Hiring / Onboarding - #1241: …" was no list item and
    its sub-items had no parent."""

    def extendMarkdown(self, md: Any) -> None:  # noqa: N802  (Markdown's name)
        md.treeprocessors.register(_FirstParagraphAsItemText(md), "loose_item_text", 5)
