"""Process health, readiness of what we depend on, and Prometheus metrics.

``/healthz`` and ``/readyz`` stay open (probes carry no credentials) and say nothing but
``ok`` or ``unavailable`` (with 200 or 503); what each check found (which service is down,
its error class, timings) goes only to the monitoring system's token or an operator, like
``/metrics`` (``api.deps.operations_reader``)."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

from api.deps import ServicesDep, open_endpoint, operations_reader, reads_operations
from docent.wiring import Services

router = APIRouter(tags=["ops"])


@router.get("/healthz", summary="The process is up", dependencies=[Depends(open_endpoint)])
def healthz() -> dict[str, str]:
    return {"status": "ok"}


def _check_database(services: Services) -> str:
    with services.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
    return "ok"


def _check_index(services: Services) -> str:
    services.index.count()
    return "ok"


def _check_broker(services: Services) -> str:
    url = services.settings.broker_url
    if not url:
        return "inline (no broker configured)"
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
    try:
        client.ping()
    finally:
        client.close()
    return "ok"


CHECKS = {"database": _check_database, "index": _check_index, "broker": _check_broker}


@router.get(
    "/readyz",
    summary="Database, index and broker reachable",
    responses={503: {"description": "something is down (named to the metrics token)"}},
    dependencies=[Depends(open_endpoint)],
)
async def readyz(request: Request, services: ServicesDep) -> JSONResponse:
    body, status = await run_in_threadpool(_readiness, services)
    if not await reads_operations(request, services):
        body = {"status": body["status"]}
    return JSONResponse(body, status_code=status)


def _readiness(services: Services) -> tuple[dict[str, Any], int]:
    results: dict[str, Any] = {}
    down: list[str] = []
    for name, check in CHECKS.items():
        start = time.perf_counter()
        try:
            state = check(services)
        except Exception as exc:  # readiness reports any failure by name, never raises
            state = f"down: {type(exc).__name__}"
            down.append(name)
        results[name] = {"status": state, "ms": round((time.perf_counter() - start) * 1000, 1)}
    body = {"status": "ok" if not down else "unavailable", "down": down, "checks": results}
    return body, 503 if down else 200


@router.get(
    "/metrics",
    summary="Prometheus metrics (the metrics token or an operator)",
    response_class=Response,
    dependencies=[Depends(operations_reader)],
)
def metrics(request: Request) -> Response:
    return Response(request.app.state.metrics.render(), media_type=CONTENT_TYPE_LATEST)
