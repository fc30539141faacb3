"""The web app in accounts mode (``prioris ui --allow-remote``), on both engines: login for
a session cookie, a reader refused a delete, a writer's delete audited, the admin's audit
page, a revoked account logged out; and loopback use without accounts as before."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from interfaces.roles_from_docs import ORDER, WEB_GETS_ABOVE_READER, WEB_POSTS, below
from interfaces.web.web_helpers import text_pdf_bytes
from prioris.errors import ConfigurationError
from prioris.interfaces.permissions import WEB_POST_ROLES, RateLimiter, web_role
from prioris.interfaces.web.app import build_app, check_accounts, remote_policy

TOKEN = "csrf-token-of-the-test"
BASE = "http://127.0.0.1:8765"
CSRF = {"X-CSRF-Token": TOKEN}


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


@pytest.fixture
def lab(library: Any) -> Iterator[dict[str, Any]]:
    """The app in accounts mode over a library with one work and three accounts."""
    library.ingest_pdf_bytes(
        text_pdf_bytes("Alpine glaciers", ["Glacier moraine sediment records climate. " * 12]),
        filename="glaciers.pdf",
    )
    tokens = {role: library.add_account(f"{role}1", role) for role in ("reader", "writer", "admin")}
    app = build_app(library, csrf_token=TOKEN, accounts=True, allowed_hosts=("lab.example",))
    yield {"app": app, "library": library, "tokens": tokens}
    app.state.web.jobs.close()


def _login(app: Any, token: str, base: str = BASE) -> TestClient:
    client = TestClient(app, base_url=base)
    response = client.post("/login", json={"token": token}, headers=CSRF)
    assert response.status_code == 200, response.text
    return client


def test_every_web_post_route_has_a_role(lab: dict[str, Any]) -> None:
    posts = {
        route.path
        for route in lab["app"].routes
        if isinstance(route, Route) and "POST" in (route.methods or ())
    }
    assert posts == set(WEB_POST_ROLES), sorted(posts ^ set(WEB_POST_ROLES))
    assert web_role("POST", "/api/new-thing") == "admin"  # fail closed
    assert web_role("GET", "/audit") == "admin" and web_role("GET", "/library") == "reader"


def test_each_route_refuses_the_role_below_the_docs_one_and_lets_that_role_in(
    lab: dict[str, Any],
) -> None:
    """Route by route (tests/interfaces/roles_from_docs.py, written from docs/security.md):
    the role just below the one a route needs gets 403 ``forbidden`` naming that role (no
    session at all, below reader, gets 401) before the route runs, and the role itself
    gets past the check. Every GET not in the docs' short list is a read."""
    app = lab["app"]
    clients = {role: _login(app, token) for role, token in lab["tokens"].items()}
    clients["none"] = TestClient(app, base_url=BASE)
    gets = {
        route.path.replace("{job_id}", "no-such-job")
        for route in app.routes
        if isinstance(route, Route) and "GET" in (route.methods or ())
    }
    checks = [("POST", path, role) for path, (role, _) in WEB_POSTS.items() if role != "none"]
    checks += [
        ("GET", path, WEB_GETS_ABOVE_READER.get(path, ("reader", ""))[0])
        for path in sorted(gets - {"/login", "/favicon.ico"})
    ]

    def send(method: str, path: str, role: str) -> Any:
        client = clients[role]
        if method == "POST":
            return client.post(path, json={}, headers={**CSRF, "Accept": "application/json"})
        return client.get(path, headers={"Accept": "application/json"})

    for method, path, needed in checks:
        lower = below(needed)
        assert lower is not None
        refused = send(method, path, lower)
        if lower == "none":
            assert refused.status_code in (401, 303), (method, path, refused.status_code)
        else:
            assert refused.status_code == 403, (method, path, lower, refused.status_code)
            assert refused.json()["error"]["code"] == "forbidden"
            assert f"needs {needed}" in refused.json()["error"]["message"]
        for role in ORDER[ORDER.index(needed) :]:
            status = send(method, path, role).status_code
            assert status not in (401, 403), (method, path, role, status)
    assert lab["library"].status()["works"] == 1  # no refused write ran


def test_no_session_no_access(lab: dict[str, Any]) -> None:
    client = TestClient(lab["app"], base_url=BASE)
    page = client.get("/library", follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"] == "/login"
    api = client.get("/api/search?q=glacier")
    assert api.status_code == 401 and api.json()["error"]["code"] == "unauthorized"
    assert client.post("/api/delete", json={"ids": ["x"]}, headers=CSRF).status_code == 401
    login = client.get("/login")
    assert login.status_code == 200 and 'id="login-token"' in login.text
    assert client.get("/static/app.css").status_code == 200
    wrong = client.post("/login", json={"token": "nope.nope"}, headers=CSRF)
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    assert "set-cookie" not in wrong.headers
    no_csrf = client.post("/login", json={"token": lab["tokens"]["reader"]})
    assert no_csrf.status_code == 403  # CSRF as today, login included


def test_session_cookie_flags(lab: dict[str, Any]) -> None:
    client = TestClient(lab["app"], base_url=BASE)
    response = client.post("/login", json={"token": lab["tokens"]["reader"]}, headers=CSRF)
    cookie = response.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Secure" not in cookie
    assert lab["tokens"]["reader"] not in cookie
    secure = TestClient(lab["app"], base_url="https://lab.example")
    response = secure.post("/login", json={"token": lab["tokens"]["reader"]}, headers=CSRF)
    assert response.status_code == 200 and "Secure" in response.headers["set-cookie"]
    other = TestClient(lab["app"], base_url="http://elsewhere.example")
    assert other.get("/login").status_code == 421  # only the configured host besides loopback


def test_reader_reads_but_cannot_write(lab: dict[str, Any]) -> None:
    library = lab["library"]
    work_id = library.list_works()[0]["id"]
    reader = _login(lab["app"], lab["tokens"]["reader"])
    assert reader.get("/library").status_code == 200
    assert reader.get("/api/search?q=glacier").status_code == 200
    refused = reader.post("/api/delete", json={"ids": [work_id]}, headers=CSRF)
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden"
    assert library.status()["works"] == 1
    assert reader.get("/audit").status_code == 403
    assert library.audit() == []


def test_writer_write_is_audited_and_admin_reads_the_log(lab: dict[str, Any]) -> None:
    library = lab["library"]
    work_id = library.list_works()[0]["id"]
    writer = _login(lab["app"], lab["tokens"]["writer"])
    done = writer.post("/api/delete", json={"ids": [work_id]}, headers=CSRF)
    assert done.status_code == 200 and done.json() == {"deleted": [work_id]}
    assert library.status()["works"] == 0
    failed = writer.post("/api/delete", json={"ids": []}, headers=CSRF)
    assert failed.status_code == 400  # a refused write is not recorded
    (entry,) = library.audit()
    assert (entry["account"], entry["action"], entry["detail"]) == (
        "writer1",
        "POST /api/delete",
        "web",
    )
    assert work_id in entry["target"]
    assert writer.get("/audit").status_code == 403
    admin = _login(lab["app"], lab["tokens"]["admin"])
    page = admin.get("/audit")
    assert page.status_code == 200 and "writer1" in page.text and "/api/delete" in page.text
    as_json = admin.get("/audit", headers={"Accept": "application/json"}).json()
    assert as_json["entries"][0]["account"] == "writer1"


def test_revoke_and_logout_end_access(lab: dict[str, Any]) -> None:
    reader = _login(lab["app"], lab["tokens"]["reader"])
    assert reader.get("/api/search?q=glacier").status_code == 200
    lab["library"].revoke_account("reader1")
    assert reader.get("/api/search?q=glacier").status_code == 401
    relogin = reader.post("/login", json={"token": lab["tokens"]["reader"]}, headers=CSRF)
    assert relogin.status_code == 401
    writer = _login(lab["app"], lab["tokens"]["writer"])
    assert writer.post("/logout", headers=CSRF).status_code == 200
    assert writer.get("/api/search?q=glacier").status_code == 401


def test_login_attempts_are_bounded(lab: dict[str, Any]) -> None:
    client = TestClient(lab["app"], base_url=BASE)
    codes = [
        client.post("/login", json={"token": "a.b"}, headers=CSRF).status_code for _ in range(11)
    ]
    assert codes == [401] * 10 + [429]


def test_per_account_request_limit(library: Any) -> None:
    token = library.add_account("busy", "reader")
    now = [0.0]
    app = build_app(
        library,
        csrf_token=TOKEN,
        accounts=True,
        limiter=RateLimiter(per_minute=2, clock=lambda: now[0]),
    )
    try:
        client = _login(app, token)
        assert [client.get("/library").status_code for _ in range(2)] == [200, 200]
        refused = client.get("/library")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
        now[0] = 61.0
        assert client.get("/library").status_code == 200
    finally:
        app.state.web.jobs.close()


def test_per_account_upload_budget(library: Any) -> None:
    token = library.add_account("uploader", "writer")
    app = build_app(
        library,
        csrf_token=TOKEN,
        accounts=True,
        limiter=RateLimiter(per_minute=100, upload_bytes_per_hour=5_000),
    )
    try:
        client = _login(app, token)
        big = client.post("/api/upload?name=a.pdf", content=b"%PDF" + b"0" * 6_000, headers=CSRF)
        assert big.status_code == 429 and big.json()["error"]["code"] == "rate_limited"
        assert library.status()["works"] == 0
        assert library.audit() == []
    finally:
        app.state.web.jobs.close()


def test_loopback_without_accounts_needs_no_login(library: Any) -> None:
    library.add_account("someone", "admin")  # accounts exist, but no --allow-remote
    app = build_app(library, csrf_token=TOKEN)
    try:
        client = TestClient(app, base_url=BASE)
        assert client.get("/library").status_code == 200
        assert client.get("/login").status_code == 400  # nothing to log in to
        assert TestClient(app, base_url="http://lab.example").get("/").status_code == 421
    finally:
        app.state.web.jobs.close()


def test_bind_policy(library: Any) -> None:
    assert remote_policy("127.0.0.1", False) is False
    assert remote_policy("127.0.0.1", True) is True
    with pytest.raises(ConfigurationError, match="--allow-remote"):
        remote_policy("0.0.0.0", False)
    assert remote_policy("0.0.0.0", True) is True
    with pytest.raises(ConfigurationError, match="users add"):
        check_accounts(library)
    library.add_account("boss", "admin")
    check_accounts(library)
