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


def make_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
    templates.env.filters["when"] = _when
    templates.env.filters["status_label"] = _status_label
    # Cache-busting query for the static files: their newest modification time.
    stamps = [p.stat().st_mtime for p in STATIC_DIR.iterdir() if p.is_file()]
    templates.env.globals["static_version"] = str(int(max(stamps, default=0)))
    return templates
