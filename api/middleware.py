"""Request middleware: a request id on every request and response, one access log line each,
and a last-resort JSON error (with the request id) for anything unexpected."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import Response

from api.context import REQUEST_ID_HEADER, access_log, incoming_request_id, request_id_var
from api.errors import render_error


async def request_context_middleware(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    rid = incoming_request_id(request.headers.get(REQUEST_ID_HEADER))
    token = request_id_var.set(rid)
    request.state.request_id = rid
    start = time.perf_counter()
    status = 500
    try:
        try:
            response = await call_next(request)
        except Exception as exc:  # the error page must carry the request id too
            response = render_error(request, exc)
        status = response.status_code
        response.headers[REQUEST_ID_HEADER] = rid
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault("X-Frame-Options", "DENY")
        return response
    finally:
        access_log.info(
            "request",
            extra={
                "method": request.method,
                "path": request.url.path,
                "status": status,
                "ms": round((time.perf_counter() - start) * 1000, 1),
                "user": getattr(request.state, "username", None),
            },
        )
        request_id_var.reset(token)
