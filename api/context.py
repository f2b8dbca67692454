"""Per-request context (the request id) and structured JSON logging that carries it.

Log lines hold ids, paths, timings and outcome types, never document text or questions.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from contextvars import ContextVar
from datetime import UTC, datetime

request_id_var: ContextVar[str | None] = ContextVar("docent_request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
_STD_ATTRS = set(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {"message"}

access_log = logging.getLogger("docent.access")


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
        }
        rid = request_id_var.get()
        if rid:
            out["request_id"] = rid
        for key, value in record.__dict__.items():
            if key not in _STD_ATTRS and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def configure_logging(level: str = "INFO") -> None:
    """JSON lines on stderr for the ``docent`` loggers (idempotent)."""
    root = logging.getLogger("docent")
    root.setLevel(level.upper())
    if not any(getattr(h, "_docent_json", False) for h in root.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        handler._docent_json = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    root.propagate = False


def incoming_request_id(value: str | None) -> str:
    """Keep a caller's id when it is a sane token, else mint one."""
    if value and _SAFE_ID.match(value):
        return value
    return uuid.uuid4().hex
