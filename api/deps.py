"""FastAPI dependencies as ``Annotated`` aliases: settings, services, a DB session, the caller,
and the role each endpoint declares.

Who is calling, in order: an ``Authorization: Bearer`` API token; in proxy mode (off by
default) the user header, only from a trusted proxy address; the signed session cookie.
An unknown or disabled user is 401. Cookie-authenticated writes must carry the session's
CSRF token (header or form field). Every route declares a role through one of the role
dependencies below; ``create_app`` refuses to start with a route that declares none.

Operations data (``/metrics``, the details of ``/readyz``) is for the monitoring system's
``DOCENT_METRICS_TOKEN`` (checked before anything else, so it needs no database) or a
signed-in operator.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from api.errors import Unauthenticated
from api.security import CSRF_FIELD, CSRF_HEADER, SESSION_COOKIE, SessionData, csrf_matches
from api.users import (
    GAP_READERS,
    CurrentUser,
    active_user,
    current_user_of,
    session_current,
    user_for_token,
)
from docent.db.session import session_scope
from docent.errors import PermissionDenied
from docent.settings import Settings, split_commas
from docent.wiring import Services

log = logging.getLogger("docent.api")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
ROLE_ATTR = "docent_role"


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def get_app_settings(services: ServicesDep) -> Settings:
    return services.settings


SettingsDep = Annotated[Settings, Depends(get_app_settings)]


def get_db(services: ServicesDep) -> Iterator[Session]:
    with session_scope(services.sessions) as session:
        yield session


# Committed before the response is sent ("function" scope): FastAPI's default ends a yield
# dependency after the response, so a client acting on a 200 (a page reloading after
# closing a handoff) could read the state from before the write, and a failed commit
# would follow a 200 the client already had.
DbDep = Annotated[Session, Depends(get_db, scope="function")]


def session_data(request: Request) -> SessionData | None:
    signer = request.app.state.session_signer
    data: SessionData | None = signer.loads(request.cookies.get(SESSION_COOKIE))
    return data


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    if header:
        raise Unauthenticated("the Authorization header must be 'Bearer <token>'")
    return None


def _resolve(request: Request, services: Services) -> CurrentUser | None:
    settings = services.settings
    token = _bearer(request)
    with session_scope(services.sessions) as db:
        if token is not None:
            user = user_for_token(db, token)
            if user is None:
                raise Unauthenticated("the API token is unknown or revoked")
            return current_user_of(user, via="token")
        client = request.client.host if request.client else None
        if settings.proxy_auth and client in settings.trusted_proxies:
            name = request.headers.get(settings.proxy_user_header)
            if name:
                user = active_user(db, name.strip())
                if user is None:
                    raise Unauthenticated(f"user {name.strip()!r} is unknown or disabled")
                raw = request.headers.get(settings.proxy_groups_header, "")
                groups = split_commas(raw)
                return current_user_of(user, via="proxy", groups=groups)
        data = session_data(request)
        if data is None or data.username is None:
            return None
        user = active_user(db, data.username)
        if user is None:
            raise Unauthenticated("your session's user is unknown or disabled; sign in again")
        if not session_current(user, data.issued):
            # Signed out, or a new password since: no session, so the sign-in page works.
            return None
        resolved = current_user_of(user, via="session")
        return CurrentUser(**{**resolved.__dict__, "csrf": data.csrf})


def _cross_site(request: Request) -> bool:
    """Whether a browser sent this request from another site: its ``Sec-Fetch-Site``, else
    its ``Origin`` (or ``Referer``) naming a host other than the one it was sent to (as the
    app sees it, or as the proxy forwarded it). A client that sends none is no browser."""
    site = request.headers.get("sec-fetch-site")
    if site is not None:
        return site not in ("same-origin", "none")
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source:
        return False
    hosts = {request.headers.get("host"), request.headers.get("x-forwarded-host")}
    return urlsplit(source).netloc not in hosts


async def _check_csrf(request: Request, user: CurrentUser) -> None:
    if request.method in SAFE_METHODS:
        return
    if user.via == "proxy":
        # The proxy signs in every request the browser sends through it, from any site's
        # page too: a form posted from another site would act as the user (a red-team
        # read retired a document that way). There is no session token to check.
        if _cross_site(request):
            raise PermissionDenied("a request from another site; open Docent itself and try again")
        return
    if user.via != "session":
        return
    given = request.headers.get(CSRF_HEADER)
    ctype = request.headers.get("content-type", "")
    if not given and ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        form = await request.form()
        value = form.get(CSRF_FIELD)
        given = value if isinstance(value, str) else None
    if user.csrf is None or not csrf_matches(user.csrf, given):
        raise PermissionDenied("missing or wrong CSRF token; reload the page and try again")


async def optional_user(request: Request, services: ServicesDep) -> CurrentUser | None:
    # Off the event loop: resolving a user reads (and at most once a minute writes) the
    # database, and on SQLite a write waits up to 30 s for the lock. Waiting on the loop's
    # own thread froze every request, including the ones whose commit would have freed the
    # lock: 30 s later all of them failed together (benchmarks/load.py).
    user = await run_in_threadpool(_resolve, request, services)
    if user is not None:
        request.state.username = user.username
        request.state.user = user  # for an error page's nav and user chip
        await _check_csrf(request, user)
    return user


OptionalUserDep = Annotated[CurrentUser | None, Depends(optional_user)]


async def current_user(user: OptionalUserDep) -> CurrentUser:
    if user is None:
        raise Unauthenticated("sign in, or send 'Authorization: Bearer <token>'")
    return user


CurrentUserDep = Annotated[CurrentUser, Depends(current_user)]


def require_role(role: str) -> Callable[..., Awaitable[Any]]:
    """A dependency that admits callers holding ``role`` (or admin); ``any`` = signed in."""

    async def check(user: CurrentUserDep) -> CurrentUser:
        if role != "any" and not user.has_role(role):
            raise PermissionDenied(f"this needs the {role!r} role")
        return user

    check.__name__ = f"require_{role}"
    setattr(check, ROLE_ATTR, role)
    return check


def require_any_role(*roles: str) -> Callable[..., Awaitable[Any]]:
    """A dependency that admits callers holding one of ``roles`` (or admin)."""

    async def check(user: CurrentUserDep) -> CurrentUser:
        if not any(user.has_role(role) for role in roles):
            wanted = " or ".join(repr(role) for role in roles)
            raise PermissionDenied(f"this needs the {wanted} role")
        return user

    check.__name__ = "require_" + "_or_".join(roles)
    setattr(check, ROLE_ATTR, "|".join(roles))
    return check


async def public_endpoint(user: OptionalUserDep) -> CurrentUser | None:
    """Declares a route open to everyone (the user, if any, is still resolved)."""
    return user


setattr(public_endpoint, ROLE_ATTR, "public")


async def open_endpoint() -> None:
    """Declares a route open to everyone without looking at credentials (health, metrics)."""


setattr(open_endpoint, ROLE_ATTR, "public")


def _metrics_token_given(request: Request, settings: Settings) -> bool:
    expected = settings.metrics_token.get_secret_value().encode() if settings.metrics_token else b""
    scheme, _, given = request.headers.get("authorization", "").partition(" ")
    if not expected or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), expected)


async def operations_reader(request: Request, services: ServicesDep) -> None:
    """Declares a route for the monitoring system: the metrics token, or an operator."""
    if _metrics_token_given(request, services.settings):
        return
    user = await optional_user(request, services)
    if user is None:
        raise Unauthenticated("send 'Authorization: Bearer <DOCENT_METRICS_TOKEN>', or sign in")
    if not user.has_role("operator"):
        raise PermissionDenied("this needs the 'operator' role or the metrics token")


setattr(operations_reader, ROLE_ATTR, "operator")


async def reads_operations(request: Request, services: Services) -> bool:
    """Whether the caller may read operations data, never raising: an open route (``/readyz``)
    shows its details only then, also when the database it would check the caller in is down."""
    if _metrics_token_given(request, services.settings):
        return True
    try:
        user = await optional_user(request, services)
    except Exception:  # noqa: BLE001 - bad credentials or a database down: the anonymous view
        return False
    return user is not None and user.has_role("operator")


async def page_user(request: Request) -> CurrentUser | None:
    """The signed-in user an HTML error page is for (its nav and user chip): the one this
    request already resolved, else resolved now. ``None`` when there is none or it cannot be
    known: an error page must render whatever the credentials or the database do."""
    known: CurrentUser | None = getattr(request.state, "user", None)
    if known is not None:
        return known
    try:
        return await run_in_threadpool(_resolve, request, get_services(request))
    except Exception:  # noqa: BLE001 - the page shows no nav rather than failing again
        log.debug("error page: the caller could not be resolved", exc_info=True)
        return None


PublicDep = Annotated[CurrentUser | None, Depends(public_endpoint)]
AnyUserDep = Annotated[CurrentUser, Depends(require_role("any"))]
AskerDep = Annotated[CurrentUser, Depends(require_role("asker"))]
EditorDep = Annotated[CurrentUser, Depends(require_role("editor"))]
OperatorDep = Annotated[CurrentUser, Depends(require_role("operator"))]
AdminDep = Annotated[CurrentUser, Depends(require_role("admin"))]
GapReaderDep = Annotated[CurrentUser, Depends(require_any_role(*GAP_READERS))]


def declared_roles(dependant: Any) -> set[str]:
    """Roles a route's dependency tree declares (used by the default-deny startup check)."""
    found: set[str] = set()
    stack = [dependant]
    while stack:
        dep = stack.pop()
        role = getattr(dep.call, ROLE_ATTR, None) if dep.call is not None else None
        if role:
            found.add(role)
        stack.extend(dep.dependencies)
    return found
