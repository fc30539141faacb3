"""A feed as an alert source: any Atom or RSS URL (a journal's table of contents, a bioRxiv
subject feed) fetched through the HTTP layer, or a feed file on disk.

A URL goes through a :class:`~prioris.sources.http.ProviderHttp` (provider ``feed``: its
spacing, 429 backoff, timeouts and bounded decoding), its body refused past
``max_bytes``; a redirect is followed only on the same host and never from https down to
http (:func:`~prioris.sources.http.follow_redirect`), at most three times. A file is
refused past ``max_bytes`` before it is read. The entries are parsed by
:func:`~prioris.alerts.feeds.parse_feed`, kept when dated on or after ``since`` (an
undated entry is kept: it cannot be shown to be old) and bounded by ``max_results``, in
the feed's order. One request a run. A ``guard`` (in a shared library: only public
addresses, :class:`~prioris.sources.public_address.PublicAddresses`) is asked about the
URL before the request and about each redirect's target before following it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from prioris.alerts.feeds import DEFAULT_MAX_FEED_BYTES, parse_feed
from prioris.alerts.protocols import Candidate
from prioris.alerts.source_kit import (
    DEFAULT_MAX_RESULTS,
    check_max,
    distinct,
    failing_as,
    read_local_file,
)
from prioris.alerts.when import check_since, is_new
from prioris.errors import InvalidRequestError, ParseError, ProviderUnavailableError
from prioris.sources.http import ProviderHttp, follow_redirect

FEED_ACCEPT = (
    "application/atom+xml, application/rss+xml, application/rdf+xml, "
    "application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"
)
MAX_REDIRECTS = 3


def is_url(location: str) -> bool:
    """Whether ``location`` names a feed on the web (http or https) rather than a file."""
    return urlsplit(location.strip()).scheme.lower() in ("http", "https")


class FeedSource:
    """An Atom/RSS feed at a URL (``http`` given) or in a file (see the module docstring)."""

    def __init__(
        self,
        location: str | Path,
        *,
        http: ProviderHttp | None = None,
        max_results: int = DEFAULT_MAX_RESULTS,
        max_bytes: int = DEFAULT_MAX_FEED_BYTES,
        name: str | None = None,
        guard: Callable[[str], None] | None = None,
    ) -> None:
        text = str(location).strip()
        if not text:
            raise InvalidRequestError("a feed alert source needs a URL or a file")
        self.url = text if is_url(text) else None
        self.path = None if self.url else Path(text).expanduser()
        if self.url is None and "://" in text:
            raise InvalidRequestError(f"a feed is fetched over http or https, not {text!r}")
        if self.url and http is None:
            raise InvalidRequestError(f"the feed {text} needs the HTTP layer to be fetched")
        self.http = http
        self.guard = guard
        self.name = name or f"feed:{text}"
        self.max_results = check_max(max_results, self.name)
        self.max_bytes = max(1, int(max_bytes))
        self.notes: list[str] = []

    def candidates(self, since: str | None) -> list[Candidate]:
        """The feed's entries dated since ``since`` (all when None), up to the bound."""
        self.notes = []
        with failing_as(self.name):
            since = check_since(since)
            data = self._fetch() if self.url else self._read()
            try:
                entries = parse_feed(data, source=self.name, max_bytes=self.max_bytes)
            except ParseError as exc:
                if self.url:  # the site answered something that is no feed
                    raise ProviderUnavailableError(f"unreadable feed ({exc.message})") from exc
                raise
            found = [c for c in entries if is_new(c.published, since)]
            undated = sum(1 for c in found if c.published is None)
            if undated:
                self.notes.append(f"{undated} entries carry no date and were kept")
            return distinct(found)[: self.max_results]

    def _read(self) -> bytes:
        assert self.path is not None
        return read_local_file(self.path, self.max_bytes, "the feed file")

    def _fetch(self) -> bytes:
        assert self.url is not None and self.http is not None
        url = self.url
        for _ in range(MAX_REDIRECTS + 1):
            if self.guard is not None:
                self.guard(url)
            response = self.http.get(
                url,
                headers={"Accept": FEED_ACCEPT},
                allow_redirect_status=True,
                max_bytes=self.max_bytes,
                limit_setting=f"the bound of the feed source, {self.max_bytes} bytes",
            )
            if not response.is_redirect:
                return response.content
            url = follow_redirect(self.http.provider, url, response.headers.get("Location"))
        raise ProviderUnavailableError(f"too many redirects from {self.url}")
