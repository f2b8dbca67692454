"""The one place errors become HTTP: every ``DocentError`` (its ``http_status`` and ``code``),
the framework's own errors, and the vendor errors that can escape an adapter, all rendered
as ``{"error": {"code", "message", "request_id"}}``.

Vendor messages are never passed through (they can hold URLs with passwords, paths, hosts or
SQL): a 5xx ``DocentError`` shows ``docent.errors.public_message`` (a fixed text per class),
a vendor error names the service, and the original text is logged with the request id.
Browser page requests get an HTML page (or the login page on 401); a 4xx page keeps the
nav and the user chip of whoever is signed in (``install_error_handlers``'s ``page_user``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx
import kombu.exceptions
import redis.exceptions
import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.context import request_id_var
from api.nav import nav_for
from api.users import CurrentUser
from docent.errors import INTERNAL_MESSAGE, DocentError, InvalidInput, public_message

log = logging.getLogger("docent.api")

# Vendor errors that mean "a service we depend on did not answer" -> 503, with the service named.
VENDOR_ERRORS: tuple[tuple[type[Exception], str], ...] = (
    (sqlalchemy.exc.OperationalError, "database"),
    (sqlalchemy.exc.InterfaceError, "database"),
    (sqlalchemy.exc.TimeoutError, "database"),
    (redis.exceptions.ConnectionError, "broker"),
    (redis.exceptions.TimeoutError, "broker"),
    (kombu.exceptions.OperationalError, "broker"),
    (httpx.TransportError, "upstream service"),
)

_HTTP_CODES = {
    400: "invalid_input",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "too_large",
    415: "unsupported_type",
    422: "invalid_input",
    429: "too_many_requests",
    503: "unavailable",
}


class Unauthenticated(DocentError):
    """No valid credentials: no or a bad cookie or token, or an unknown or disabled user."""

    http_status = 401
    code = "unauthenticated"


class TooManySignIns(DocentError):
    """Too many failed sign-ins for the account name or from the client address: 429, with
    ``Retry-After`` (seconds). The same for a name that exists and one that does not."""

    http_status = 429
    code = "too_many_attempts"
    retry_after_s = 60

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


def status_for(exc: BaseException) -> tuple[int, str, str]:
    """(HTTP status, stable code, message safe to show) for any exception."""
    if isinstance(exc, DocentError):
        return exc.http_status, exc.code, public_message(exc)
    if isinstance(exc, StarletteHTTPException):
        return exc.status_code, _HTTP_CODES.get(exc.status_code, "error"), str(exc.detail)
    if isinstance(exc, RequestValidationError):
        return 422, "invalid_input", _validation_message(exc)
    for vendor, service in VENDOR_ERRORS:
        if isinstance(exc, vendor):
            return 503, "unavailable", f"the {service} did not answer; try again shortly"
    return 500, "internal_error", INTERNAL_MESSAGE


def _validation_message(exc: RequestValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where or 'request'}: {err.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def error_body(status: int, code: str, message: str, details: object = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, "request_id": request_id_var.get()}
    if isinstance(details, list | dict):
        error["details"] = details
    return {"error": error}


def _wants_html(request: Request) -> bool:
    path = request.url.path
    if path.startswith("/api/") or path in ("/healthz", "/readyz", "/metrics"):
        return False
    return "text/html" in request.headers.get("accept", "")


def render_error(request: Request, exc: BaseException, user: CurrentUser | None = None) -> Response:
    status, code, message = status_for(exc)
    if status >= 500 or message != getattr(exc, "message", message):
        # The vendor's text stays here, in the log, beside the request id the caller got.
        log.error(
            "request failed",
            extra={
                "code": code,
                "error_type": type(exc).__name__,
                "path": request.url.path,
                "detail": str(exc),
            },
            exc_info=status == 500,
        )
    extra_headers = (
        {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, TooManySignIns) else {}
    )
    if _wants_html(request):
        if status == 401:
            target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            return RedirectResponse(f"/login?next={quote(target)}", status_code=303)
        return _error_page(request, status, code, message, user, extra_headers)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else extra_headers
    details = exc.detail if isinstance(exc, InvalidInput) else None
    body = error_body(status, code, message, details)
    return JSONResponse(body, status_code=status, headers=headers)


def _error_page(
    request: Request,
    status: int,
    code: str,
    message: str,
    user: CurrentUser | None,
    headers: dict[str, str],
) -> Response:
    context = {
        "status": status,
        "code": code,
        "message": None if _is_phrase(status, message) else message,
        "user": user,
        "nav": nav_for(user) if user else [],
        "active": "",
        "csrf": (user.csrf or "") if user else "",
    }
    templates = request.app.state.templates
    page: Response = templates.TemplateResponse(
        request, "error.html", context, status_code=status, headers=headers
    )
    page.headers["Cache-Control"] = "no-store"
    return page


def _is_phrase(status: int, message: str) -> bool:
    """The framework's own words for a status ("Not Found"): they add nothing to the page's."""
    try:
        return message == HTTPStatus(status).phrase
    except ValueError:
        return False


PageUser = Callable[[Request], Awaitable[CurrentUser | None]]


def install_error_handlers(app: FastAPI, page_user: PageUser | None = None) -> None:
    """``page_user`` finds who is signed in, for a 4xx HTML page's nav and user chip."""

    async def handle(request: Request, exc: Exception) -> Response:
        user = None
        status = status_for(exc)[0]
        if page_user and status != 401 and 400 <= status < 500 and _wants_html(request):
            user = await page_user(request)
        return render_error(request, exc, user)

    app.add_exception_handler(DocentError, handle)
    app.add_exception_handler(StarletteHTTPException, handle)
    app.add_exception_handler(RequestValidationError, handle)
    for vendor, _ in VENDOR_ERRORS:
        app.add_exception_handler(vendor, handle)
    app.add_exception_handler(Exception, handle)
