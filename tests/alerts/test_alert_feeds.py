"""Atom/RSS feeds as alert sources: the three formats read from fixtures written after the
documented formats (tests/data/feeds/: RSS 1.0 as bioRxiv serves it, Atom as journals
serve tables of contents, RSS 2.0 as journals serve a current issue; each file says which
specification it follows), ``since`` by each entry's date, the bounds (entries, bytes),
hostile XML refused, and a feed fetched over a loopback server through the HTTP layer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from prioris.alerts.feed_source import FeedSource
from prioris.alerts.feeds import parse_feed
from prioris.config import load_settings
from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    NotFoundError,
    ParseError,
    PriorisError,
    ProviderUnavailableError,
)
from prioris.sources.http import ProviderHttp, make_client

from route_server import RouteServer

FEEDS = Path(__file__).resolve().parents[1] / "data" / "feeds"
BIORXIV = FEEDS / "biorxiv_neuroscience.rdf"
ATOM = FEEDS / "journal_toc.atom"
RSS2 = FEEDS / "journal_toc_rss2.xml"


def feed_http(max_response_bytes: int = 1 << 20) -> ProviderHttp:
    return ProviderHttp(
        "feed",
        make_client(load_settings()),
        min_interval=0.0,
        backoff_budget=0.0,
        max_response_bytes=max_response_bytes,
    )


def test_rss1_biorxiv_entries_read_with_their_doi_day_and_text() -> None:
    found = parse_feed(BIORXIV.read_bytes(), source="feed:biorxiv")
    assert [c.id for c in found] == [
        "doi:10.1101/2026.02.27.640101",
        "doi:10.1101/2026.02.26.640055",
        "doi:10.1101/2026.02.20.639870",
        "doi:10.1101/2026.02.18.639700",
    ]
    first = found[0]
    assert first.title.startswith("Hippocampal replay orders place cells")
    assert "replayed sequences were ordered" in first.text and "&amp;" not in first.text
    assert first.published == "2026-03-01"
    assert first.identifiers == ("doi:10.1101/2026.02.27.640101",)
    assert first.source == "feed:biorxiv"
    assert first.extra["url"].startswith("http://biorxiv.org/cgi/content/short/")
    assert "<p>" not in found[2].text and "Their phase at stimulus onset" in found[2].text
    assert found[3].published is None  # the item without a date


def test_atom_entries_read_with_info_doi_ids_and_utc_times() -> None:
    found = parse_feed(ATOM.read_bytes(), source="feed:journal")
    assert [c.identifiers for c in found] == [
        ("doi:10.1371/journal.pone.0320101",),
        ("doi:10.1371/journal.pone.0319877",),
        ("doi:10.1371/journal.pone.0318002",),
    ]
    assert found[0].published == "2026-03-02T19:00:00Z"  # 14:00 at -05:00
    assert found[2].published == "2026-02-20T09:30:00Z"  # only <updated>
    assert found[0].extra["authors"] == "Ines Carvalho; Tomasz Wrona"
    assert found[0].text.startswith("by Ines Carvalho") and "<p>" not in found[0].text


def test_rss2_items_read_with_rfc822_dates_guid_and_doi_links() -> None:
    found = parse_feed(RSS2.read_bytes(), source="feed:jneuro")
    assert [c.id for c in found] == [
        "doi:10.1523/jneurosci.1234-25.2026",
        "doi:10.1523/jneurosci.0987-25.2026",
        "doi:10.1523/jneurosci.9999-25.2026",  # from its doi.org link
    ]
    assert found[0].published == "2026-03-02T05:00:00Z"
    assert found[1].published == "2026-02-25T04:00:00Z"  # +0100 read into UTC
    assert found[2].published is None
    assert found[0].extra["authors"] == "Amara Diallo; Jonas Berg"


def test_since_keeps_entries_of_that_day_and_later_and_the_undated() -> None:
    source = FeedSource(BIORXIV)
    assert [c.published for c in source.candidates("2026-02-28")] == [
        "2026-03-01",
        "2026-02-28",
        None,
    ]
    assert source.notes == ["1 entries carry no date and were kept"]
    # a moment inside a day keeps that day's entries (a day cannot be placed in it)
    assert len(FeedSource(BIORXIV).candidates("2026-02-28T23:00:00Z")) == 3
    atom = FeedSource(ATOM).candidates("2026-03-02T18:59:59Z")
    assert [c.id for c in atom] == ["doi:10.1371/journal.pone.0320101"]
    assert len(FeedSource(RSS2).candidates(None)) == 3


def test_a_feed_source_never_returns_more_than_its_bound() -> None:
    assert len(FeedSource(BIORXIV, max_results=2).candidates(None)) == 2
    with pytest.raises(InvalidRequestError, match="max_results"):
        FeedSource(BIORXIV, max_results=0)


def test_a_file_past_the_byte_bound_is_refused_before_it_is_read(tmp_path: Path) -> None:
    with pytest.raises(FileTooLargeError) as caught:
        FeedSource(BIORXIV, max_bytes=1000).candidates(None)
    assert "feed:" in caught.value.message and caught.value.source.startswith("feed:")


@pytest.mark.parametrize(
    "body",
    [
        b'<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<rss><channel><item><title>&x;</title></item></channel></rss>",
        b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>'
        b"<rss><channel><item><title>&lol2;</title></item></channel></rss>",
        b"<html><body>not a feed</body></html>",
        b"<rss><channel><item><title>unclosed</channel></rss>",
    ],
    ids=["external-entity", "entity-expansion", "html-page", "malformed"],
)
def test_hostile_or_broken_feeds_are_refused(body: bytes, tmp_path: Path) -> None:
    path = tmp_path / "feed.xml"
    path.write_bytes(body)
    with pytest.raises(ParseError) as caught:
        FeedSource(path).candidates(None)
    assert f"alert source 'feed:{path}' failed" in caught.value.message


def test_missing_file_and_bad_location_are_clear(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError, match="no file at"):
        FeedSource(tmp_path / "absent.atom").candidates(None)
    with pytest.raises(InvalidRequestError, match="http or https"):
        FeedSource("ftp://example.org/feed.xml")
    with pytest.raises(InvalidRequestError, match="since must be"):
        FeedSource(ATOM).candidates("last tuesday")


@pytest.fixture
def site() -> Iterator[RouteServer]:
    big = b'<rss version="2.0"><channel>' + b"<item><title>x</title></item>" * 50_000
    routes = {
        "/toc.atom": ("application/atom+xml", ATOM.read_bytes()),
        "/biorxiv": ("application/rdf+xml", BIORXIV.read_bytes()),
        "/huge.rss": ("application/rss+xml", big + b"</channel></rss>"),
        "/page.html": ("text/html", b"<!doctype html><html><p>moved</html>"),
        "/old": lambda path: (301, {"Location": "/toc.atom"}, b""),
        "/away": lambda path: (302, {"Location": "http://example.org/feed"}, b""),
        "/down": lambda path: (503, {}, b"maintenance"),
    }
    with RouteServer(routes) as server:
        yield server


def test_a_feed_url_is_fetched_through_the_http_layer(site: RouteServer) -> None:
    source = FeedSource(f"{site.base}/toc.atom", http=feed_http())
    found = source.candidates("2026-02-27")
    assert [c.id for c in found] == [
        "doi:10.1371/journal.pone.0320101",
        "doi:10.1371/journal.pone.0319877",
    ]
    assert source.name == f"feed:{site.base}/toc.atom"
    rdf = FeedSource(f"{site.base}/biorxiv", http=feed_http(), max_results=1).candidates(None)
    assert len(rdf) == 1


def test_a_same_host_redirect_is_followed_and_another_host_refused(site: RouteServer) -> None:
    moved = FeedSource(f"{site.base}/old", http=feed_http()).candidates(None)
    assert len(moved) == 3 and site.paths[-1] == "/toc.atom"
    with pytest.raises(ProviderUnavailableError, match="off the site"):
        FeedSource(f"{site.base}/away", http=feed_http()).candidates(None)


def test_a_huge_answer_is_refused_and_the_failure_names_the_source(site: RouteServer) -> None:
    url = f"{site.base}/huge.rss"
    with pytest.raises(FileTooLargeError) as caught:
        FeedSource(url, http=feed_http(), max_bytes=64 * 1024).candidates(None)
    assert caught.value.message.startswith(f"alert source 'feed:{url}' failed:")
    assert "65536" in caught.value.message
    with pytest.raises(ProviderUnavailableError, match="unreadable feed"):
        FeedSource(f"{site.base}/page.html", http=feed_http()).candidates(None)
    with pytest.raises(PriorisError) as down:
        FeedSource(f"{site.base}/down", http=feed_http()).candidates(None)
    assert (
        down.value.code == "provider_unavailable" and down.value.source == f"feed:{site.base}/down"
    )


def test_an_in_memory_transport_is_enough_for_a_feed() -> None:
    """The transport seam: the same source over httpx.MockTransport, no socket."""
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["Accept"])
        return httpx.Response(200, content=RSS2.read_bytes())

    http = ProviderHttp(
        "feed",
        make_client(load_settings(), httpx.MockTransport(answer)),
        min_interval=0.0,
        backoff_budget=0.0,
    )
    found = FeedSource("https://journal.test/current.rss", http=http).candidates("2026-03-01")
    assert [c.id for c in found] == [
        "doi:10.1523/jneurosci.1234-25.2026",
        "doi:10.1523/jneurosci.9999-25.2026",
    ]
    assert "application/atom+xml" in seen[0]
