"""YAML front matter at the top of a Markdown file: read it, then hand on the body alone."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping

import yaml

from ingest.elements import PROPERTY_KEYS
from ingest.errors import BadMetadata

_FRONT_MATTER = re.compile(
    r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.DOTALL
)
_EMPTY_FRONT_MATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)")


def split_front_matter(text: str, source: str) -> tuple[dict[str, object], str]:
    """(front matter mapping, body). No front matter → ({}, text). Front matter that is not
    valid YAML, or not a mapping, is bad metadata for this file."""
    empty = _EMPTY_FRONT_MATTER.match(text)
    if empty:
        return {}, text[empty.end() :]
    match = _FRONT_MATTER.match(text)
    if not match:
        return {}, text
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise BadMetadata(source, "front_matter", f"front matter is not valid YAML{where}") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise BadMetadata(source, "front_matter", "front matter is not a mapping of fields")
    # Keep the line count of the body unchanged, so line numbers still mean something.
    body = "\n" * match.group(0).count("\n") + text[match.end() :]
    return {str(k): v for k, v in data.items()}, body


def _as_text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.date().isoformat()
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, list | tuple | set):
        parts = [p for p in (_as_text(v) for v in value) if p]
        return ", ".join(parts) if parts else None
    if isinstance(value, dict):
        return None
    text = str(value).strip()
    return text or None


def normalise_key(key: str) -> str:
    """ "Effective-Date", "effectiveDate", "EffectiveDate" → "effective_date"."""
    key = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key.strip().lstrip("/"))
    return re.sub(r"[\s\-]+", "_", key).lower()


def known_properties(raw: Mapping[str, object]) -> dict[str, str]:
    """The metadata fields we resolve, as strings (lists joined with ", ", dates ISO)."""
    out: dict[str, str] = {}
    for key, value in raw.items():
        name = normalise_key(key)
        if name not in PROPERTY_KEYS:
            continue
        text = _as_text(value)
        if text is not None:
            out[name] = text
    return out
