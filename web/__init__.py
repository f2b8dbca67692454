"""The small web UI: Jinja2 templates and static files served by the API (no build step,
no external CDN). ``make_templates`` builds the template environment with Docent's filters."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from fastapi.templating import Jinja2Templates

WEB_DIR = Path(__file__).resolve().parent
TEMPLATES_DIR = WEB_DIR / "templates"
STATIC_DIR = WEB_DIR / "static"

STATUS_LABELS = {"current": "Current", "superseded": "Superseded", "pending": "Not yet in force"}


def _when(value: object) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M UTC")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and value:
        return value.replace("T", " ")[:16]
    return "—"


def _status_label(value: object) -> str:
    return STATUS_LABELS.get(str(value), str(value).replace("_", " ").capitalize())


def _age(seconds: object) -> str:
    """How long a handoff has waited, in words: "just now", "5 min", "3 h", "2 days"."""
    value = int(seconds) if isinstance(seconds, int | float) else 0
    for unit, size, plural in (("day", 86400, "days"), ("h", 3600, "h"), ("min", 60, "min")):
        if value >= size:
            count = value // size
            return f"{count} {unit if count == 1 else plural}"
    return "just now"


def _cite_numbers(answer: object, citations: object) -> str:
    """An answer's ``[chunk id]`` markers as the numbers of its sources list ("[1]")."""
    text = str(answer or "")
    for number, cite in enumerate(citations if isinstance(citations, list) else [], 1):
        if isinstance(cite, dict) and cite.get("id"):
            text = text.replace(f"[{cite['id']}]", f"[{number}]")
    return text


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
    templates.env.filters["when"] = _when
    templates.env.filters["status_label"] = _status_label
    templates.env.filters["age"] = _age
    templates.env.filters["cite_numbers"] = _cite_numbers
    # Cache-busting query for the static files: their newest modification time.
    stamps = [p.stat().st_mtime for p in STATIC_DIR.iterdir() if p.is_file()]
    templates.env.globals["static_version"] = str(int(max(stamps, default=0)))
    return templates
