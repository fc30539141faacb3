"""SSRF: in a shared library an alert's ``feed:URL`` reaches only public addresses
(loopback, private, link-local, ... refused before any request, redirects checked too)
unless an admin sets PRIORIS_MCP_ALLOW_PRIVATE_FEEDS; the machine's own user without
accounts reads any feed, as before."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alerts.alert_fixtures import WORKS
from prioris.alerts.feed_source import FeedSource
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ForbiddenError
from prioris.library import Library
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.public_address import PublicAddresses

from route_server import RouteServer

FEEDS = Path(__file__).resolve().parents[1] / "data" / "feeds"


def resolver(table: dict[str, list[str]]) -> Any:
    def resolve(host: str, port: int, **_: Any) -> list[Any]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in table[host]]

    return resolve


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/feed",
        "http://[::1]/feed",
        "http://[::ffff:127.0.0.1]/feed",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.5/feed",
        "http://192.168.1.1/feed",
        "http://172.16.0.1/feed",
        "http://100.64.0.1/feed",
        "http://0.0.0.0/feed",
        "http://[fd00::1]/feed",
        "http://224.0.0.1/feed",
        "http://intranet.lab/feed",  # a name resolving to a private address
        "http://both.lab/feed",  # one public and one private address: refused
        "http://nowhere.invalid/feed",  # does not resolve
    ],
)
def test_non_public_addresses_are_refused(url: str) -> None:
    guard = PublicAddresses(
        resolver({"intranet.lab": ["10.1.2.3"], "both.lab": ["93.184.216.34", "192.168.0.9"]})
    )
    with pytest.raises(ForbiddenError, match=r"PRIORIS_MCP_ALLOW_PRIVATE_FEEDS|resolve"):
        guard.check(url)


def test_public_addresses_pass() -> None:
    guard = PublicAddresses(resolver({"journal.example.org": ["93.184.216.34"]}))
    guard.check("https://journal.example.org/toc.atom")
    guard.check("http://8.8.8.8/feed")
    guard.check("http://[2606:4700::1111]/feed")


@pytest.fixture
def site() -> Iterator[RouteServer]:
    routes = {
        "/toc.atom": ("application/atom+xml", (FEEDS / "journal_toc.atom").read_bytes()),
        "/old": lambda path: (301, {"Location": "/toc.atom"}, b""),
    }
    with RouteServer(routes) as server:
        yield server


def feed_http() -> ProviderHttp:
    return ProviderHttp("feed", make_client(load_settings()), min_interval=0.0, backoff_budget=0.0)


def test_the_feed_source_asks_the_guard_before_each_request(site: RouteServer) -> None:
    with pytest.raises(ForbiddenError, match=r"127\.0\.0\.1"):
        FeedSource(
            f"{site.base}/toc.atom", http=feed_http(), guard=PublicAddresses().check
        ).candidates(None)
    assert site.paths == []  # refused before anything was asked
    asked: list[str] = []
    FeedSource(f"{site.base}/old", http=feed_http(), guard=asked.append).candidates(None)
    assert asked == [f"{site.base}/old", f"{site.base}/toc.atom"]  # the redirect's target too


def test_a_name_that_passed_but_led_to_loopback_is_not_read(site: RouteServer) -> None:
    """DNS rebinding: the name's check passed (a public answer), the connection reached
    127.0.0.1; the answer is refused before its body is read."""
    http = ProviderHttp(
        "feed",
        make_client(load_settings()),
        min_interval=0.0,
        backoff_budget=0.0,
        peer_check=PublicAddresses().check_peer,
    )
    source = FeedSource(f"{site.base}/toc.atom", http=http, guard=lambda url: None)
    with pytest.raises(ForbiddenError, match=r"reached at a non-public address \(127\.0\.0\.1\)"):
        source.candidates(None)
    assert site.paths == ["/toc.atom"]  # sent, but nothing read back


def _library(data_dir: Path, **settings: Any) -> Library:
    lib = Library.open(data_dir=data_dir, embedder=FakeEmbedder(), **settings)
    lib.import_records(WORKS)
    lib.create_collection("Folding")
    lib.add_to_collection("Folding", [w["_id"] for w in WORKS[:4]])
    return lib


def test_a_shared_library_refuses_a_loopback_feed_and_names_it(
    site: RouteServer, data_dir: Path
) -> None:
    url = f"{site.base}/toc.atom"
    with _library(data_dir / "shared") as lib:
        lib.add_account("ana", "writer")
        lib.alerts_add("toc", collection="Folding", sources=f"feed:{url}", account="ana")
        (report,) = lib.alerts_run("toc", account="ana")
        assert not report["ok"] and report["error"]["code"] == "forbidden"
        assert report["error"]["source"] == f"feed:{url}"
        assert "PRIORIS_MCP_ALLOW_PRIVATE_FEEDS" in report["error"]["message"]
        # the local user's own alert in the shared library is held to the same rule
        lib.alerts_add("mine", collection="Folding", sources=f"feed:{url}")
        assert not lib.alerts_run("mine")[0]["ok"]
    assert site.paths == []
    with _library(data_dir / "allowed", allow_private_feeds=True) as lib:
        lib.add_account("ana", "writer")
        lib.alerts_add("toc", collection="Folding", sources=f"feed:{url}", account="ana")
        (report,) = lib.alerts_run("toc", account="ana")
        assert report["ok"] and report["results"] == 3
    with _library(data_dir / "alone") as lib:  # no accounts: the machine's own user
        lib.alerts_add("toc", collection="Folding", sources=f"feed:{url}")
        assert lib.alerts_run("toc")[0]["ok"]
