"""The API's own documents, for signed-in people (``DOCENT_API_DOCS_PUBLIC=true`` serves
FastAPI's open ones instead): the OpenAPI schema and its Swagger UI and ReDoc pages. Like
every other page, an anonymous browser is sent to sign in and an API client gets 401."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse

from api.deps import AnyUserDep

router = APIRouter(include_in_schema=False)
OPENAPI_URL = "/openapi.json"


@router.get(OPENAPI_URL)
def openapi(request: Request, user: AnyUserDep) -> JSONResponse:
    return JSONResponse(request.app.openapi())


@router.get("/docs")
def swagger_ui(request: Request, user: AnyUserDep) -> HTMLResponse:
    return get_swagger_ui_html(openapi_url=OPENAPI_URL, title=f"{request.app.title} - API")


@router.get("/redoc")
def redoc(request: Request, user: AnyUserDep) -> HTMLResponse:
    return get_redoc_html(openapi_url=OPENAPI_URL, title=f"{request.app.title} - API")
