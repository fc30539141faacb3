"""The web app's alerts: the Alerts page (ranked candidates with score and why), triage
(dismiss remembered, accept through the fetch job), Run as a job, and the Atom feed at
``/alerts/NAME.atom`` (the same as ``Library.alerts_feed``, read by feedparser); in
accounts mode the feed is read with a session or a feed token, as its account, and a feed
token opens nothing else."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import feedparser
import pytest
from starlette.testclient import TestClient

from alerts.alert_fixtures import stock
from interfaces.web.web_helpers import ProviderStub, make_library, wait_for_jobs
from prioris.interfaces.web.app import build_app

TOKEN = "csrf-token-of-the-test"
BASE = "http://127.0.0.1:8765"
CSRF = {"X-CSRF-Token": TOKEN}


@pytest.fixture
def stub() -> Iterator[ProviderStub]:
    found = ProviderStub()
    yield found
    found.close()


@pytest.fixture
def local(data_dir: Path, tmp_path: Path, stub: ProviderStub) -> Iterator[dict[str, Any]]:
    library = make_library(data_dir, stub.env(api_key=False))
    stock(library, tmp_path)
    app = build_app(library, csrf_token=TOKEN)
    yield {"app": app, "library": library, "client": TestClient(app, base_url=BASE)}
    app.state.web.jobs.close()
    library.close()


def test_the_page_shows_each_candidate_with_score_and_why(local: dict[str, Any]) -> None:
    page = local["client"].get("/alerts")
    assert page.status_code == 200
    html = page.text
    assert 'data-alert="folding"' in html
    assert html.index("Denoising diffusion for protein backbones") < html.index(
        "Moraine sediments of alpine glaciers"
    )
    assert 'data-candidate="arxiv:2401.01234"' in html
    assert "Why: Near: Protein folding study" in html and "score 0." in html
    assert 'href="https://arxiv.org/abs/2401.01234"' in html
    assert 'href="/alerts/folding.atom"' in html


def test_the_feed_is_the_librarys_and_parses(local: dict[str, Any]) -> None:
    response = local["client"].get("/alerts/folding.atom")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    assert response.text == local["library"].alerts_feed("folding")
    feed = feedparser.parse(response.content)
    assert not feed.bozo and feed.feed.title == "Prioris alerts: folding"
    assert feed.entries[0].title == "Denoising diffusion for protein backbones"
    assert "score" in feed.entries[0].summary
    assert local["client"].get("/alerts/nothing.atom").status_code == 404


def test_dismiss_is_remembered_and_run_and_accept_are_jobs(
    local: dict[str, Any], stub: ProviderStub
) -> None:
    client, library, app = local["client"], local["library"], local["app"]
    gone = client.post(
        "/api/alerts/dismiss",
        json={"alert": "folding", "candidate": "doi:10.5555/moraine"},
        headers=CSRF,
    )
    assert gone.status_code == 200 and gone.json()["dismissed"] == "doi:10.5555/moraine"
    assert library.alerts_show("folding")["dismissed"] == ["doi:10.5555/moraine"]
    run = client.post("/api/alerts/run", json={"alert": "folding"}, headers=CSRF)
    assert run.status_code == 202 and run.json()["job"]["kind"] == "alerts"
    (job,) = wait_for_jobs(app.state.web.jobs)
    assert job["state"] == "done" and "2 result(s)" in job["items"][0]["message"]
    assert "Moraine sediments" not in client.get("/alerts").text  # not back after a run
    accepted = client.post(
        "/api/alerts/accept",
        json={"alert": "folding", "candidate": "arxiv:2401.01234"},
        headers=CSRF,
    )
    assert accepted.status_code == 202 and accepted.json()["job"]["kind"] == "fetch"
    jobs = wait_for_jobs(app.state.web.jobs)
    fetched = next(j for j in jobs if j["kind"] == "fetch")
    assert fetched["state"] == "done" and fetched["items"][0]["state"] == "ingested"
    work_id = fetched["items"][0]["work_id"]
    assert library.get_work(work_id).title == "Denoising diffusion for protein backbones"
    assert any(p.startswith("/arxiv/pdf/2401.01234") for p in stub.requests)
    shown = library.alerts_show("folding")
    assert shown["accepted"] == ["arxiv:2401.01234"]
    assert next(r for r in shown["results"] if r["id"] == "arxiv:2401.01234")["in_library"]
    missing = client.post(
        "/api/alerts/dismiss",
        json={"alert": "folding", "candidate": "arxiv:none"},
        headers={**CSRF, "Accept": "application/json"},
    )
    assert missing.status_code == 404
    bad = client.post("/api/alerts/run", json={}, headers=CSRF)
    assert bad.status_code == 400


def test_without_accounts_there_are_no_feed_tokens(local: dict[str, Any]) -> None:
    client = local["client"]
    page = client.get("/account")
    assert page.status_code == 200 and "without a token" in page.text
    assert "/alerts/folding.atom" in page.text
    refused = client.post("/api/feed-tokens", json={}, headers=CSRF)
    assert refused.status_code == 400


@pytest.fixture
def lab(data_dir: Path, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Accounts mode: ana's alert (its candidates file in an import folder), ben (another
    reader) and an admin."""
    library = make_library(data_dir, {"PRIORIS_MCP_ALLOWED_IMPORT_DIRS": str(tmp_path)})
    tokens = {
        n: library.add_account(n, r)
        for n, r in (("ana", "writer"), ("ben", "reader"), ("root", "admin"))
    }
    stock(library, tmp_path, account="ana")
    app = build_app(library, csrf_token=TOKEN, accounts=True)
    yield {"app": app, "library": library, "tokens": tokens}
    app.state.web.jobs.close()
    library.close()


def _login(app: Any, token: str) -> TestClient:
    client = TestClient(app, base_url=BASE)
    assert client.post("/login", json={"token": token}, headers=CSRF).status_code == 200
    return client


def test_a_feed_token_reads_its_accounts_feed_and_nothing_else(lab: dict[str, Any]) -> None:
    library, app = lab["library"], lab["app"]
    anon = TestClient(app, base_url=BASE)
    ana = library.add_feed_token("ana", "reader app")["token"]
    ben = library.add_feed_token("ben")["token"]
    assert anon.get("/alerts/folding.atom").status_code == 401  # no session, no token
    read = anon.get("/alerts/folding.atom", params={"token": ana})
    assert read.status_code == 200 and feedparser.parse(read.content).entries
    assert read.text == library.alerts_feed("folding", account="ana")
    assert anon.get("/alerts/folding.atom", params={"token": ben}).status_code == 404
    assert anon.get("/alerts/folding.atom", params={"token": ana[:-2]}).status_code == 401
    # a feed token opens no page, no API call, no other GET
    assert anon.get("/alerts", params={"token": ana}, follow_redirects=False).status_code == 303
    assert anon.get("/api/jobs", params={"token": ana}).status_code == 401
    posted = anon.post(
        "/api/alerts/dismiss",
        params={"token": ana},
        headers=CSRF,
        json={"alert": "folding", "candidate": "arxiv:2401.01234"},
    )
    assert posted.status_code == 401
    # nor does an account's own token in the query
    assert (
        anon.get("/alerts/folding.atom", params={"token": lab["tokens"]["ana"]}).status_code == 401
    )
    token_id = ana.partition(".")[0]
    library.revoke_feed_token(token_id)
    assert anon.get("/alerts/folding.atom", params={"token": ana}).status_code == 401
    # the admin reads every alert's feed; a session reads its own without a token
    root = library.add_feed_token("root")["token"]
    assert anon.get("/alerts/folding.atom", params={"token": root}).status_code == 200
    assert _login(app, lab["tokens"]["ana"]).get("/alerts/folding.atom").status_code == 200


def test_the_account_page_makes_and_revokes_feed_tokens(lab: dict[str, Any]) -> None:
    library, app = lab["library"], lab["app"]
    ana, ben = _login(app, lab["tokens"]["ana"]), _login(app, lab["tokens"]["ben"])
    made = ana.post("/api/feed-tokens", json={"label": "phone"}, headers=CSRF)
    assert made.status_code == 201
    token, token_id = made.json()["token"], made.json()["token_id"]
    page = ana.get("/account").text
    assert token_id in page and "phone" in page and token not in page
    assert "folding" in page  # the alert whose feed address the new token completes
    assert token_id not in ben.get("/account").text
    assert (
        ben.post(
            "/api/feed-tokens/revoke",
            json={"token_id": token_id},
            headers={**CSRF, "Accept": "application/json"},
        ).status_code
        == 404
    )
    assert (
        TestClient(app, base_url=BASE)
        .get("/alerts/folding.atom", params={"token": token})
        .status_code
        == 200
    )
    assert (
        ana.post("/api/feed-tokens/revoke", json={"token_id": token_id}, headers=CSRF).status_code
        == 200
    )
    assert library.feed_account(token) is None
    logged = [(e["account"], e["action"], e["target"]) for e in library.audit()]
    assert logged[:2] == [
        ("ana", "POST /api/feed-tokens/revoke", token_id),
        ("ana", "POST /api/feed-tokens", token_id),
    ]
    assert not any(token in str(e) for e in library.audit())
    # ben, a reader, sees no alert of ana's on the Alerts page and cannot triage them
    assert 'data-alert="folding"' not in ben.get("/alerts").text
    assert 'data-alert="folding"' in ana.get("/alerts").text
    refused = ben.post(
        "/api/alerts/dismiss",
        json={"alert": "folding", "candidate": "x"},
        headers={**CSRF, "Accept": "application/json"},
    )
    assert refused.status_code == 403


JSON = {**CSRF, "Accept": "application/json"}


def test_the_new_alert_form_makes_an_alert_and_remove_removes_it(
    local: dict[str, Any], tmp_path: Path
) -> None:
    """The page offers the library's collections; ``/api/alerts/add`` makes the alert the
    Library makes (listed on the page at once) and each bad input answers the Library's
    error, code and message, for the form to show; ``/api/alerts/remove`` removes it."""
    client, library = local["client"], local["library"]
    page = client.get("/alerts").text
    assert 'id="alert-form"' in page and '<option value="Folding">Folding</option>' in page
    assert "openalex-cites" in page  # the sources' help
    pool = tmp_path / "candidates.jsonl"
    made = client.post(
        "/api/alerts/add",
        json={"name": "fold2", "collection": "Folding", "search": "", "sources": f"jsonl:{pool}"},
        headers=CSRF,
    )
    assert made.status_code == 201, made.text
    alert = made.json()["alert"]
    assert (alert["name"], alert["collection"], alert["search"]) == ("fold2", "Folding", None)
    assert library.alerts_show("fold2")["sources"] == f"jsonl:{pool}"
    assert 'data-alert="fold2"' in client.get("/alerts").text
    searched = client.post(
        "/api/alerts/add",
        json={"name": "diffusion", "collection": "", "search": " protein diffusion "},
        headers=CSRF,
    )
    assert searched.status_code == 201
    assert searched.json()["alert"]["sources"] == 'search:"protein diffusion"'

    def refused(body: dict[str, Any]) -> tuple[int, str, str]:
        answer = client.post("/api/alerts/add", json=body, headers=JSON)
        error = answer.json()["error"]
        return answer.status_code, error["code"], error["message"]

    src = {"sources": f"jsonl:{pool}"}
    status, code, message = refused({"name": "bad name", "collection": "Folding", **src})
    assert (status, code) == (400, "invalid_request") and "letters, digits" in message
    status, code, message = refused({"name": "x", "collection": "Glaciers", **src})
    assert (status, code) == (404, "not_found") and "Glaciers" in message
    status, code, message = refused({"name": "x", "collection": "Folding", "sources": "arxiv"})
    assert (status, code) == (400, "invalid_request") and message.startswith("sources:")
    status, code, message = refused({"name": "x", "collection": "Folding", "sources": ""})
    assert (status, code) == (400, "invalid_request") and "needs --sources" in message
    status, code, message = refused({"name": "x", "collection": "Folding", "search": "q"})
    assert (status, code) == (400, "invalid_request") and "one of them" in message
    status, code, message = refused({"name": "fold2", "search": "again"})
    assert (status, code) == (400, "invalid_request") and "exists already" in message
    status, code, _ = refused({"collection": "Folding", **src})
    assert (status, code) == (400, "invalid_request")
    assert [a["name"] for a in library.alerts_list()] == ["diffusion", "fold2", "folding"]

    gone = client.post("/api/alerts/remove", json={"alert": "fold2"}, headers=CSRF)
    assert gone.status_code == 200 and gone.json() == {"removed": "fold2"}
    assert 'data-alert="fold2"' not in client.get("/alerts").text
    missing = client.post("/api/alerts/remove", json={"alert": "fold2"}, headers=JSON)
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert [a["name"] for a in library.alerts_list()] == ["diffusion", "folding"]


def test_making_and_removing_alerts_in_accounts_mode(lab: dict[str, Any], tmp_path: Path) -> None:
    """A reader may not make or remove an alert (403, nothing made); a writer's alert is its
    own, its file sources only in the import folders (else not_found, shown as such), and
    both writes are in the audit log; another account cannot remove it."""
    library, app = lab["library"], lab["app"]
    ana, ben = _login(app, lab["tokens"]["ana"]), _login(app, lab["tokens"]["ben"])
    inside = tmp_path / "candidates.jsonl"  # written by stock(), in the import folder
    outside = tmp_path.parent / "elsewhere.jsonl"
    body = {"name": "ana2", "collection": "Folding", "sources": f"jsonl:{inside}"}
    assert ben.post("/api/alerts/add", json=body, headers=JSON).status_code == 403
    assert ben.post("/api/alerts/remove", json={"alert": "folding"}, headers=JSON).status_code == (
        403
    )
    assert [a["name"] for a in library.alerts_list()] == ["folding"]
    far = ana.post(
        "/api/alerts/add", json={**body, "sources": f"jsonl:{outside}"}, headers=JSON
    ).json()["error"]
    assert far["code"] == "not_found" and "import folders" in far["message"]
    made = ana.post("/api/alerts/add", json=body, headers=CSRF)
    assert made.status_code == 201 and made.json()["alert"]["owner"] == "ana"
    assert library.alerts_show("ana2", account="ana")["owner"] == "ana"
    carl = _login(app, library.add_account("carl", "writer"))  # another writer
    other = carl.post("/api/alerts/remove", json={"alert": "ana2"}, headers=JSON)
    assert other.status_code == 404  # another's alert answers as a missing one
    assert ana.post("/api/alerts/remove", json={"alert": "ana2"}, headers=CSRF).status_code == 200
    logged = [(e["account"], e["action"], e["target"]) for e in library.audit()][:2]
    assert [(a, act) for a, act, _ in logged] == [
        ("ana", "POST /api/alerts/remove"),
        ("ana", "POST /api/alerts/add"),
    ]
    assert [a["name"] for a in library.alerts_list()] == ["folding"]
