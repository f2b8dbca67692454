"""Sign in (web form, signed HttpOnly SameSite=Lax cookie, CSRF-checked), sign out, who am I."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from api.deps import AnyUserDep, DbDep, PublicDep, SettingsDep, session_data
from api.security import SESSION_COOKIE, SessionData, csrf_matches, new_csrf_token
from api.users import check_password
from docent.settings import Settings

router = APIRouter(tags=["auth"])


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
    _user: PublicDep,
    username: Annotated[str, Form(max_length=200)],
    password: Annotated[str, Form(max_length=500)],
    csrf_token: Annotated[str, Form(max_length=200)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> Response:
    data = session_data(request)
    templates = request.app.state.templates
    if data is None or not csrf_matches(data.csrf, csrf_token):
        fresh = SessionData(csrf=new_csrf_token())
        response: Response = templates.TemplateResponse(
            request,
            "login.html",
            {
                "user": None,
                "csrf": fresh.csrf,
                "next": safe_next(next),
                "error": "Your sign-in form expired. Please try again.",
            },
            status_code=403,
        )
        set_session(response, request, settings, fresh)
        return response
    user = check_password(db, username.strip(), password)
    if user is None:
        refused: Response = templates.TemplateResponse(
            request,
            "login.html",
            {
                "user": None,
                "csrf": data.csrf,
                "next": safe_next(next),
                "error": "Wrong user name or password.",
                "username": username,
            },
            status_code=401,
        )
        return refused
    # A new CSRF token at sign-in: a token planted before login is worthless after it.
    redirect = RedirectResponse(safe_next(next), status_code=303)
    set_session(
        redirect, request, settings, SessionData(csrf=new_csrf_token(), username=user.username)
    )
    return redirect


@router.post("/logout", include_in_schema=False)
def logout(request: Request, settings: SettingsDep, _user: AnyUserDep) -> Response:
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
