"""Faults shared by every stage. Each stage package has its own ``errors.py`` whose classes
derive from these; the API maps them to HTTP in one place using ``http_status``.

    DocentError (500)
    ├── ConfigError (500)            a setting is missing or contradicts another
    ├── InvalidInput (400)           the caller sent something we cannot use
    │   └── NotFound (404)           no such thing, or the caller may not see it (same answer)
    ├── PermissionDenied (403)       the caller's role does not allow the action
    ├── Conflict (409)               the action contradicts current state
    └── Unavailable (503)            a service we depend on (DB, Qdrant, broker, LLM) did not answer

What leaves the process is ``public_message(exc)``: a 4xx message is ours (it describes the
caller's input); a 5xx message may quote a vendor (a path, a host and port, SQL, a payload),
so only a fixed text per class goes out and the message itself goes to the log.
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


# The service each ``Unavailable`` subclass names, by ``code``; a new subclass adds its code
# here (tests/docent/test_errors.py checks every one has an entry).
SERVICE_BY_CODE: dict[str, str] = {
    "unavailable": "a service we depend on",
    "index_unavailable": "the vector index",
    "index_locked": "the vector index",
    "keyword_index_unavailable": "the keyword index",
    "queue_unavailable": "the ingest queue",
    "llm_unavailable": "the language model endpoint",
    "trace_store_unavailable": "the trace store",
}
# Non-5xx faults whose message may still carry vendor or deployment detail.
FIXED_BY_CODE: dict[str, str] = {
    "embedding_model_mismatch": (
        "the vector index was built by another embedding model or version; an operator must reindex"
    ),
}
INTERNAL_MESSAGE = "something went wrong on our side; the error was logged"


def public_message(exc: DocentError) -> str:
    """The message of ``exc`` that may be shown outside the process (HTTP bodies, job views)."""
    if exc.code in FIXED_BY_CODE:
        return FIXED_BY_CODE[exc.code]
    if exc.http_status < 500:
        return exc.message
    if isinstance(exc, Unavailable):
        service = SERVICE_BY_CODE.get(exc.code, SERVICE_BY_CODE["unavailable"])
        return f"{service} did not answer; try again shortly"
    return INTERNAL_MESSAGE
