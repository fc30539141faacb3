"""Redirects that Prioris follows stay on the site and never go from https down to http."""

from __future__ import annotations

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import ProviderUnavailableError
from prioris.sources.arxiv import ArxivClient
from prioris.sources.http import ProviderHttp, make_client

SITE = "https://arxiv.test"


def arxiv_client(handler) -> ArxivClient:  # type: ignore[no-untyped-def]
    http = ProviderHttp(
        "arxiv",
        make_client(load_settings(), httpx.MockTransport(handler)),
        min_interval=0,
        backoff_budget=0,
    )
    return ArxivClient(http, f"{SITE}/api/query", SITE, f"{SITE}/oai")


@pytest.mark.parametrize(
    "location",
    [
        "http://arxiv.test/pdf/2401.01234v1",  # same host, downgraded
        "http://arxiv.test:443/pdf/2401.01234v1",
        "//evil.example/pdf/2401.01234v1",
        "https://arxiv.test@evil.example/pdf/x",
        "https://arxiv.test:8443/pdf/x",
        "ftp://arxiv.test/pdf/x",
        "file:///etc/passwd",
        "javascript:alert(1)",
    ],
)
def test_arxiv_refuses_downgrades_and_other_hosts(location: str) -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        if request.url.path == "/pdf/2401.01234":
            return httpx.Response(302, headers={"Location": location})
        return httpx.Response(200, content=b"%PDF-1.7 from the redirect target")

    with pytest.raises(ProviderUnavailableError, match=r"refused|InvalidURL"):
        arxiv_client(handler).fetch_pdf("2401.01234")
    assert seen == [f"{SITE}/pdf/2401.01234"]  # the target was never requested


def test_arxiv_follows_same_site_and_upgrades() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/pdf/2401.01234":
            return httpx.Response(301, headers={"Location": "/pdf/2401.01234v2"})
        return httpx.Response(200, content=b"%PDF-1.7 ok")

    from prioris.sources.http import follow_redirect

    assert arxiv_client(handler).fetch_pdf("2401.01234").url == f"{SITE}/pdf/2401.01234v2"
    assert follow_redirect("arxiv", "http://arxiv.test/a", "https://arxiv.test/b") == (
        "https://arxiv.test/b"
    )
    assert follow_redirect("arxiv", "https://arxiv.test:443/a", "https://arxiv.test/b") == (
        "https://arxiv.test/b"
    )


def test_redirect_without_location() -> None:
    from prioris.sources.http import follow_redirect

    with pytest.raises(ProviderUnavailableError, match="without a Location"):
        follow_redirect("arxiv", "https://arxiv.test/a", None)
