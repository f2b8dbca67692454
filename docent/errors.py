"""Faults shared by every stage. Each stage package has its own ``errors.py`` whose classes
derive from these; the API maps them to HTTP in one place using ``http_status``.

    DocentError (500)
    ├── ConfigError (500)            a setting is missing or contradicts another
    ├── InvalidInput (400)           the caller sent something we cannot use
    │   └── NotFound (404)           no such thing, or the caller may not see it (same answer)
    ├── PermissionDenied (403)       the caller's role does not allow the action
    ├── Conflict (409)               the action contradicts current state
    └── Unavailable (503)            a service we depend on (DB, Qdrant, broker, LLM) did not answer
"""

from __future__ import annotations


class DocentError(Exception):
    http_status = 500
    code = "internal_error"

    def __init__(self, message: str, *, detail: object | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class ConfigError(DocentError):
    code = "config_error"


class InvalidInput(DocentError):
    http_status = 400
    code = "invalid_input"


class NotFound(InvalidInput):
    http_status = 404
    code = "not_found"


class PermissionDenied(DocentError):
    http_status = 403
    code = "forbidden"


class Conflict(DocentError):
    http_status = 409
    code = "conflict"


class Unavailable(DocentError):
    http_status = 503
    code = "unavailable"
