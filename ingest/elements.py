"""What partitioning hands to chunking: a flat, ordered list of typed elements per document."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

ElementKind = Literal["title", "text", "table", "list_item"]

# Property keys partitioning may report (front matter, DOCX core/custom properties, PDF
# metadata, HTML <title>/<meta>); metadata resolution reads exactly these.
PROPERTY_KEYS: tuple[str, ...] = (
    "title",
    "owner",
    "effective_date",
    "access_level",
    "groups",
    "superseded_by",
    "supersedes",
    "doc_type",
)


@dataclass(frozen=True)
class Element:
    """One block of a document in reading order.

    ``depth`` is the heading depth for titles (0 = top), the nesting level for list items,
    and for text a list item's later paragraph sits in, the level of that item's sub-items
    (0: not in a list); ``html`` is the table's HTML for tables (the rows and cells, kept
    whole)."""

    kind: ElementKind
    text: str
    depth: int = 0
    html: str | None = None


@dataclass(frozen=True)
class ParsedDocument:
    elements: tuple[Element, ...]
    properties: Mapping[str, str] = field(default_factory=dict)
