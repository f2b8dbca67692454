"""Sign in (web form, signed HttpOnly SameSite=Lax cookie, CSRF-checked), sign out, who am I."""

from __future__ import annotations

import logging
import time
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from api.deps import AnyUserDep, DbDep, PublicDep, ServicesDep, SettingsDep, session_data
from api.errors import TooManySignIns
from api.security import SESSION_COOKIE, SessionData, csrf_matches, new_csrf_token
from api.signin_throttle import SignInThrottle, ThrottlePolicy, client_address
from api.users import active_user, check_password, end_sessions
from docent.settings import Settings

router = APIRouter(tags=["auth"])
log = logging.getLogger("docent.api.auth")


def get_signin_throttle(services: ServicesDep) -> SignInThrottle:
    """The failed-sign-in counter over the app's database (a test overrides this dependency
    with one on its own clock)."""
    settings = services.settings
    return SignInThrottle(
        services.sessions,
        ThrottlePolicy.from_settings(settings),
        settings.secret_key.get_secret_value(),
    )


SignInThrottleDep = Annotated[SignInThrottle, Depends(get_signin_throttle)]


def set_session(
    response: Response, request: Request, settings: Settings, data: SessionData
) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        request.app.state.session_signer.dumps(data),
        max_age=settings.session_max_age_s,
        httponly=True,
        samesite="lax",
        secure=settings.env == "prod",
        path="/",
    )


def safe_next(target: str | None) -> str:
    """Only same-site relative paths: never an open redirect."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    return target


def ensure_csrf(request: Request) -> SessionData:
    """The visitor's session (an anonymous one with a fresh CSRF token if none)."""
    return session_data(request) or SessionData(csrf=new_csrf_token())


@router.get("/login", include_in_schema=False)
def login_page(
    request: Request, user: PublicDep, settings: SettingsDep, next: str = "/"
) -> Response:
    if user is not None:
        return RedirectResponse(safe_next(next), status_code=303)
    data = ensure_csrf(request)
    response: Response = request.app.state.templates.TemplateResponse(
        request,
        "login.html",
        {"user": None, "csrf": data.csrf, "next": safe_next(next), "error": None},
    )
    set_session(response, request, settings, data)
    return response


@router.post("/login", include_in_schema=False)
def login(
    request: Request,
    db: DbDep,
    settings: SettingsDep,
    throttle: SignInThrottleDep,
    _user: PublicDep,
    username: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=500)],
    csrf_token: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    data = session_data(request)
    if data is None or not csrf_matches(data.csrf, csrf_token):
        fresh = SessionData(csrf=new_csrf_token())
        response = _login_page(
            request, fresh, next, "Your sign-in form expired. Please try again.", 403
        )
        set_session(response, request, settings, fresh)
        return response
    name = username.strip()
    address = client_address(
        request.client.host if request.client else None,
        request.headers.get("x-forwarded-for"),
        settings.trusted_proxies,
    )
    # Locked: the password is not even checked, so the right one waits too. A known and an
    # unknown name take the same steps throughout, and get the same answers.
    wait = throttle.wait_s(name, address)
    if wait:
        _log_attempt(db, "sign-in refused: locked", name, address, wait)
        return _throttled(request, data, next, name, wait)
    user = check_password(db, name, password)
    if user is None:
        wait = throttle.failed(name, address)
        _log_attempt(db, "sign-in failed" + (": now locked" if wait else ""), name, address, wait)
        if wait:
            return _throttled(request, data, next, name, wait)
        return _login_page(request, data, next, "Wrong user name or password.", 401, username)
    # Commit the rehash of an old password hash now: on SQLite it holds the write lock.
    db.commit()
    throttle.succeeded(name)
    # A new CSRF token at sign-in: a token planted before login is worthless after it.
    redirect = RedirectResponse(safe_next(next), status_code=303)
    signed_in = SessionData(csrf=new_csrf_token(), username=user.username, issued=time.time())
    set_session(redirect, request, settings, signed_in)
    return redirect


def _login_page(
    request: Request,
    data: SessionData,
    next: str,
    error: str,
    status: int,
    username: str | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    context = {"user": None, "csrf": data.csrf, "next": safe_next(next), "error": error}
    if username is not None:
        context["username"] = username
    page: Response = request.app.state.templates.TemplateResponse(
        request, "login.html", context, status_code=status, headers=headers
    )
    return page


def _throttled(request: Request, data: SessionData, next: str, name: str, wait: int) -> Response:
    """429 with ``Retry-After``: the sign-in form again for a browser, else the error body."""
    message = f"too many failed sign-ins; try again in {_how_long(wait)}"
    if "text/html" in request.headers.get("accept", ""):
        return _login_page(
            request,
            data,
            next,
            f"Too many failed sign-ins. Try again in {_how_long(wait)}.",
            429,
            name,
            {"Retry-After": str(wait)},
        )
    raise TooManySignIns(message, retry_after_s=wait)


def _log_attempt(db: Session, event: str, name: str, address: str, wait: int) -> None:
    # The name only when it is an account: a password typed into the name field stays out
    # of the log (and the log, read by operators only, may say which names exist).
    account = name if active_user(db, name) is not None else None
    log.log(
        logging.WARNING if wait else logging.INFO,
        event,
        extra={"account": account, "address": address, "retry_after_s": wait or None},
    )


def _how_long(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    return f"{-(-seconds // 60)} minutes"


@router.post("/logout", include_in_schema=False)
def logout(request: Request, settings: SettingsDep, user: AnyUserDep, db: DbDep) -> Response:
    # The cookie is signed, not kept: a copy of it would outlive a new one. Signing out
    # ends every session of the user, on every browser.
    if user.via == "session":
        row = active_user(db, user.username)
        if row is not None:
            end_sessions(row)
    response = RedirectResponse("/login", status_code=303)
    set_session(response, request, settings, SessionData(csrf=new_csrf_token()))
    return response


@router.get("/api/me", summary="The signed-in user")
def me(user: AnyUserDep) -> dict[str, Any]:
    return {
        "username": user.username,
        "display_name": user.display_name,
        "clearance": user.clearance,
        "groups": sorted(user.groups),
        "roles": sorted(user.roles),
        "via": user.via,
    }
