"""The FastAPI app. ``create_app(services)`` only wires what it is given: the heavy clients
live in ``Services`` (built once by ``docent serve``/``docent demo`` or by a test).

Default deny: every route must declare a role through ``api.deps``; the app refuses to
start when one does not. The API's own documents (``/docs``, ``/redoc``, ``/openapi.json``)
are routes like the others, for signed-in people, unless ``DOCENT_API_DOCS_PUBLIC``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles

from api.context import configure_logging
from api.deps import declared_roles, page_user
from api.errors import install_error_handlers
from api.jobs import resume_interrupted
from api.mail import mailer_for
from api.metrics import Metrics
from api.middleware import request_context_middleware
from api.security import SessionSigner
from docent.errors import ConfigError
from docent.wiring import Services
from web import STATIC_DIR, make_templates

log = logging.getLogger("docent.api")

OPENAPI_TAGS = [
    {"name": "ask", "description": "Ask a question; read the cited passages."},
    {"name": "handoffs", "description": "Questions the documents did not answer, for a person."},
    {"name": "feedback", "description": "Whether an answer answered the asker's question."},
    {"name": "history", "description": "My own questions, their answers and replies."},
    {"name": "documents", "description": "Upload, list, inspect and retire documents (editors)."},
    {"name": "jobs", "description": "Ingest jobs: progress, retry, cancel, reindex (operators)."},
    {"name": "admin", "description": "Users, their access and API tokens; the audit log."},
    {"name": "auth", "description": "Sign in and out; who am I."},
    {"name": "ops", "description": "Health, readiness and metrics."},
]


def create_app(services: Services) -> FastAPI:
    settings = services.settings
    open_docs = settings.api_docs_public
    configure_logging(settings.log_level)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Fresh workers each start: a lifespan may run more than once (the fuzz tests' ASGI
        # client restarts it), and the last stop shut the previous ones down.
        app.state.job_runner.shutdown(wait=False)
        app.state.http.close()
        app.state.job_runner = _job_runner()
        app.state.http = httpx.Client(follow_redirects=False)
        app.state.job_runner.submit(resume_interrupted, services)
        promoter = asyncio.create_task(_promote_due_hourly(app))
        try:
            yield
        finally:
            promoter.cancel()
            app.state.job_runner.shutdown(wait=False, cancel_futures=True)
            app.state.http.close()

    app = FastAPI(
        title="Docent",
        version="0.1.0",
        description=(
            "Answers policy questions from your own documents, with a citation on every "
            "claim; hands the question to a person when the documents do not hold the answer. "
            "Authenticate with `Authorization: Bearer <token>` (`docent users token NAME`)."
        ),
        openapi_tags=OPENAPI_TAGS,
        lifespan=lifespan,
        # FastAPI's own (open) documents only when the deployment wants them open.
        docs_url="/docs" if open_docs else None,
        redoc_url="/redoc" if open_docs else None,
        openapi_url="/openapi.json" if open_docs else None,
    )
    app.state.services = services
    app.state.templates = make_templates()
    app.state.session_signer = SessionSigner(
        settings.secret_key.get_secret_value(), settings.session_max_age_s
    )
    app.state.metrics = Metrics(lambda: services.sessions)
    app.state.http = httpx.Client(follow_redirects=False)
    app.state.mailer = mailer_for(settings)  # None: no DOCENT_SMTP_HOST, no e-mail
    # Inline (no broker) ingest jobs run here, one at a time, off the request thread.
    app.state.job_runner = _job_runner()

    app.middleware("http")(request_context_middleware)
    install_error_handlers(app, page_user)
    _include_routes(app, docs=not open_docs)
    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    check_every_route_declares_a_role(app)
    return app


def _job_runner() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="docent-ingest")


async def _promote_due_hourly(app: FastAPI) -> None:
    """A pending document becomes current on its effective date without a re-ingest: check
    at start and every hour, on the ingest thread (it writes the index)."""
    loop = asyncio.get_running_loop()
    while True:
        try:
            promoted = await loop.run_in_executor(
                app.state.job_runner, lambda: app.state.services.ingestor.promote_due()
            )
            if promoted:
                log.info("promoted", extra={"sources": promoted})
        except Exception:  # the server must keep serving; the next hour tries again
            log.exception("promoting due documents failed")
        await asyncio.sleep(3600)


def _include_routes(app: FastAPI, *, docs: bool) -> None:
    from api.routes import (
        admin,
        admin_pages,
        ask,
        auth,
        documents,
        feedback,
        handoffs,
        health,
        history,
        jobs,
        pages,
    )
    from api.routes import docs as api_docs

    modules = (
        *(health, auth, ask, handoffs, feedback, history, documents, jobs, admin),
        *(pages, admin_pages),
    )
    for module in modules:
        app.include_router(module.router)
    if docs:
        app.include_router(api_docs.router)


def api_routes(app: FastAPI) -> list[APIRoute]:
    """Every API route, including those of included routers (which newer FastAPI keeps
    behind a lazy wrapper in ``app.routes``)."""
    try:
        from fastapi.routing import iter_route_contexts
    except ImportError:  # older FastAPI: included routes are plain APIRoutes
        routes = list(app.routes)
    else:
        routes = [context.route for context in iter_route_contexts(app.routes)]
    return [route for route in routes if isinstance(route, APIRoute)]


def check_every_route_declares_a_role(app: FastAPI) -> None:
    missing = [
        f"{sorted(route.methods or ())} {route.path}"
        for route in api_routes(app)
        if not declared_roles(route.dependant)
    ]
    if missing:
        raise ConfigError(f"routes without a declared role (default deny): {missing}")
