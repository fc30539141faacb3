"""``prioris arxiv search`` / ``europepmc search`` end to end over a loopback HTTP server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from prioris.interfaces.cli import main

from conftest import shared_path
from route_server import RouteServer

WRITTEN_FEED = (
    b'<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
    b'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
    b'xmlns:arxiv="http://arxiv.org/schemas/atom">'
    b"<opensearch:totalResults>3</opensearch:totalResults>"
    b"<opensearch:startIndex>0</opensearch:startIndex>"
    b"<entry><id>http://arxiv.org/abs/2401.01234v2</id><title>Loopback paper</title>"
    b"<published>2024-01-05T00:00:00Z</published><summary>Text.</summary>"
    b"<author><name>Ada Lovelace</name></author>"
    b'<arxiv:primary_category term="cs.CL"/></entry></feed>'
)

EPMC = json.dumps(
    {
        "hitCount": 2,
        "nextCursorMark": "NEXT",
        "request": {"cursorMark": "*"},
        "resultList": {
            "result": [
                {
                    "id": "1",
                    "source": "PPR",
                    "title": "A preprint",
                    "pubYear": "2023",
                    "pubTypeList": {"pubType": ["Preprint"]},
                }
            ]
        },
    }
).encode()


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[RouteServer]:
    routes = {
        "/api/query": ("application/atom+xml", WRITTEN_FEED),
        "/rest/search": ("application/json", EPMC),
    }
    with RouteServer(routes) as srv:
        monkeypatch.setenv("PRIORIS_MCP_ARXIV_API_URL", f"{srv.base}/api/query")
        monkeypatch.setenv("PRIORIS_MCP_EUROPEPMC_BASE_URL", f"{srv.base}/rest")
        yield srv


def test_arxiv_search_json(server: RouteServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["arxiv", "search", "loopback paper", "--max-results", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == 3 and out["next"] == 1
    assert out["results"][0]["id"] == "arxiv:2401.01234v2"
    assert out["results"][0]["authors"] == ["Ada Lovelace"] and out["results"][0]["year"] == 2024
    assert "search_query=all%3Aloopback+AND+all%3Apaper" in server.paths[0]


def test_arxiv_search_recorded_fixture_table(
    server: RouteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = shared_path("fixtures", "api", "arxiv", "q_testing_s0_m10_bc5a6c384fe9.atom.xml")
    server.routes["/api/query"] = ("application/atom+xml", path.read_bytes())
    assert main(["arxiv", "search", "testing", "--sort", "submittedDate"]) == 0
    out = capsys.readouterr().out
    assert (
        "arxiv:2202.12139v1" in out and "10 shown of 214881 matches; next page: --start 10" in out
    )
    assert "sortBy=submittedDate" in server.paths[0]


def test_arxiv_limits_fail_before_any_request(
    server: RouteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["arxiv", "search", "x", "--start", "29500", "--max-results", "600"]) == 2
    assert "error [invalid_request]" in capsys.readouterr().err
    assert server.paths == []


def test_europepmc_search_json_and_table(
    server: RouteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["europepmc", "search", "malaria", "--page-size", "5", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total"] == 2 and out["next"] == "NEXT"
    item = out["results"][0]
    assert item["id"] == "europepmc:PPR:1" and item["is_preprint"] is True
    assert item["peer_reviewed"] is False
    assert "resultType=core" in server.paths[0] and "pageSize=5" in server.paths[0]
    assert main(["europepmc", "search", "malaria"]) == 0
    assert "[preprint]" in capsys.readouterr().out


def test_provider_down_is_reported(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with RouteServer({}) as srv:
        monkeypatch.setenv("PRIORIS_MCP_ARXIV_API_URL", f"{srv.base}/nothing-here")
        assert main(["arxiv", "search", "x"]) == 1
    assert "error [not_found]" in capsys.readouterr().err
