"""Who is calling: API tokens, the signed session cookie with CSRF, the trusted-proxy mode;
unknown, disabled and revoked all get 401."""

from __future__ import annotations

import re
from collections.abc import Callable

from fastapi.testclient import TestClient

from api.admin import reset_password, revoke
from api.audit import Actor
from api.security import SESSION_COOKIE
from docent.db.session import session_scope
from tests.api.conftest import ApiEnv
from tests.api.corpus import USERS


def login(client: TestClient, name: str, password: str | None = None) -> str:
    """Sign in through the form; return the CSRF token of the new session."""
    page = client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert csrf is not None
    response = client.post(
        "/login",
        data={
            "username": name,
            "password": password or USERS[name].password,
            "csrf_token": csrf.group(1),
            "next": "/handoffs",
        },
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    assert response.headers["location"] == "/handoffs"
    home = client.get("/handoffs")
    token = re.search(r'<meta name="csrf-token" content="([^"]+)"', home.text)
    assert token is not None
    return token.group(1)


def test_session_cookie_is_httponly_and_samesite(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    page = env.client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    response = env.client.post(
        "/login",
        data={"username": "ada", "password": USERS["ada"].password, "csrf_token": csrf},
        follow_redirects=False,
    )
    header = response.headers["set-cookie"]
    assert header.startswith(f"{SESSION_COOKIE}=")
    assert "HttpOnly" in header and "samesite=lax" in header.lower() and "Path=/" in header
    assert "Secure" not in header  # only in prod (served over TLS)
    assert env.client.get("/api/me").json()["username"] == "ada"


def test_login_flow_and_csrf_on_writes(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    csrf = login(env.client, "ada")
    me = env.client.get("/api/me").json()
    assert me["username"] == "ada" and me["via"] == "session"
    body = {"question": "Who runs the book club?"}
    no_token = env.client.post("/api/handoffs", json=body)
    assert no_token.status_code == 403 and "CSRF" in no_token.json()["error"]["message"]
    wrong = env.client.post("/api/handoffs", json=body, headers={"X-CSRF-Token": "forged"})
    assert wrong.status_code == 403
    ok = env.client.post("/api/handoffs", json=body, headers={"X-CSRF-Token": csrf})
    assert ok.status_code == 201
    logout = env.client.post("/logout", data={"csrf_token": csrf}, follow_redirects=False)
    assert logout.status_code == 303
    assert env.client.get("/api/me").status_code == 401


def test_wrong_password_and_forged_login_form(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    page = env.client.get("/login")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    wrong = env.client.post(
        "/login", data={"username": "ada", "password": "nope", "csrf_token": csrf}
    )
    assert wrong.status_code == 401 and "Wrong user name or password" in wrong.text
    forged = TestClient(env.app).post(
        "/login", data={"username": "ada", "password": USERS["ada"].password, "csrf_token": "x"}
    )
    assert forged.status_code == 403 and "expired" in forged.text


def test_a_tampered_cookie_is_no_session(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    login(env.client, "ada")
    value = env.client.cookies.get(SESSION_COOKIE)
    assert value
    tampered = TestClient(env.app, cookies={SESSION_COOKIE: value[:-2] + "xx"})
    assert tampered.get("/api/me").status_code == 401


def test_next_never_redirects_off_site(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    page = env.client.get("/login", params={"next": "//evil.example/x"})
    assert 'name="next" value="/"' in page.text


def test_tokens_unknown_revoked_and_disabled(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    assert env.get("ada", "/api/me").json()["via"] == "token"
    bad = env.client.get("/api/me", headers={"Authorization": "Bearer dct_0000_nope"})
    assert bad.status_code == 401
    basic = env.client.get("/api/me", headers={"Authorization": "Basic YWRhOng="})
    assert basic.status_code == 401
    prefix = env.tokens["ada"].split("_")[1]
    with session_scope(env.services.sessions) as db:
        revoke(db, Actor.cli(), prefix)
    assert env.get("ada", "/api/me").status_code == 401
    csrf = login(env.client, "cy")
    assert csrf and env.client.get("/api/me").status_code == 200
    with session_scope(env.services.sessions) as db:
        revoke(db, Actor.cli(), "cy")  # disables the user: the live session stops working too
    assert env.get("cy", "/api/me").status_code == 401
    assert env.client.get("/api/me").status_code == 401
    fresh = TestClient(env.app)
    page = fresh.get("/login")
    csrf2 = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
    refused = fresh.post(
        "/login", data={"username": "cy", "password": USERS["cy"].password, "csrf_token": csrf2}
    )
    assert refused.status_code == 401


def test_proxy_headers_count_only_from_trusted_proxies(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env(proxy_auth=True, trusted_proxies="10.0.0.5")
    headers = {"X-Forwarded-User": "ada", "X-Forwarded-Groups": "legal, finance"}
    trusted = TestClient(env.app, client=("10.0.0.5", 4000))
    me = trusted.get("/api/me", headers=headers).json()
    assert me["username"] == "ada" and me["via"] == "proxy"
    assert me["groups"] == ["finance", "legal"]
    unknown = trusted.get("/api/me", headers={"X-Forwarded-User": "mallory"})
    assert unknown.status_code == 401
    untrusted = TestClient(env.app, client=("10.0.0.6", 4000))
    assert untrusted.get("/api/me", headers=headers).status_code == 401
    off = make_env()
    assert (
        TestClient(off.app, client=("10.0.0.5", 4000)).get("/api/me", headers=headers).status_code
        == 401
    )


def test_a_user_with_no_role_reaches_only_the_any_pages(make_env: Callable[..., ApiEnv]) -> None:
    env = make_env()
    home = env.get("norole", "/", headers={"Accept": "text/html"}, follow_redirects=False)
    assert home.status_code == 303 and home.headers["location"] == "/handoffs"
    page = env.get("norole", "/documents", headers={"Accept": "text/html"})
    assert page.status_code == 403 and "You don't have access to this" in page.text
    anon = env.client.get("/documents", headers={"Accept": "text/html"}, follow_redirects=False)
    assert anon.status_code == 303 and anon.headers["location"] == "/login?next=/documents"


def test_a_proxy_signed_request_from_another_site_changes_nothing(
    make_env: Callable[..., ApiEnv],
) -> None:
    """The proxy signs in whatever the browser sends through it, a form posted from another
    site's page included, and proxy mode has no session token to check: a write that a
    browser says came from another site is refused (a red-team read retired a confidential
    document with a cross-site form). Same-site writes and clients that are no browser (no
    such headers) work as before."""
    env = make_env(proxy_auth=True, trusted_proxies="10.0.0.5")
    proxy = TestClient(env.app, client=("10.0.0.5", 4000))
    carla = {"X-Forwarded-User": "carla"}
    upload = proxy.post(
        "/api/documents",
        headers=carla,
        files=[("files", ("pay.md", b"# Pay\n\n## Rates\n\nRates rise.\n", "text/markdown"))],
        data={"access_level": "confidential"},
    )
    assert upload.status_code == 202, upload.text
    env.wait_job(upload.json()["job_id"])
    [doc] = proxy.get("/api/documents", headers=carla).json()["documents"]
    retire = f"/api/documents/{doc['doc_id']}/retire"
    for forged in (
        {"Origin": "https://evil.example"},
        {"Referer": "https://evil.example/page"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},
    ):
        refused = proxy.post(retire, headers={**carla, **forged})
        assert refused.status_code == 403, forged
        assert "another site" in refused.json()["error"]["message"]
    assert proxy.get("/api/documents", headers=carla).json()["documents"] == [doc]
    same_site = proxy.post(retire, headers={**carla, "Origin": "http://testserver"})
    assert same_site.status_code == 200, same_site.text
    assert proxy.get("/api/documents", headers=carla).json()["documents"] == []


def test_signing_out_or_a_new_password_ends_a_copied_session(
    make_env: Callable[..., ApiEnv],
) -> None:
    """The cookie is signed, not kept on the server: a copy of it (another browser, a stolen
    one) outlived the sign-out and a password reset for its whole lifetime (a red-team read).
    Both now end every session of the user signed in before them."""
    env = make_env()
    csrf = login(env.client, "carla")
    copied = env.client.cookies.get(SESSION_COOKIE)
    other = TestClient(env.app, cookies={SESSION_COOKIE: copied})
    assert other.get("/api/me").json()["username"] == "carla"
    assert env.client.post("/logout", data={"csrf_token": csrf}).status_code == 200
    assert other.get("/api/me").status_code == 401
    assert "csrf_token" in other.get("/login").text  # it may sign in again

    login(env.client, "carla")  # signing in again works, and is a new session
    copied = env.client.cookies.get(SESSION_COOKIE)
    other = TestClient(env.app, cookies={SESSION_COOKIE: copied})
    assert other.get("/api/me").status_code == 200
    with session_scope(env.services.sessions) as db:
        reset_password(db, Actor("admin"), "carla", "a brand new horse battery")
    assert other.get("/api/me").status_code == 401
    assert env.client.get("/api/me").status_code == 401
    login(env.client, "carla", "a brand new horse battery")
    assert env.client.get("/api/me").json()["username"] == "carla"
    # Another user's sessions are theirs: ada's stays signed in throughout.
    ada = TestClient(env.app)
    login(ada, "ada")
    with session_scope(env.services.sessions) as db:
        reset_password(db, Actor("admin"), "carla", "yet another horse battery")
    assert ada.get("/api/me").json()["username"] == "ada"
