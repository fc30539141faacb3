"""The one HTTP layer every remote provider goes through.

Responsibilities, in one place so every provider behaves the same way:

* :func:`make_client` builds the ``httpx.Client`` (timeout, User-Agent naming the product,
  proxies and certificates from the environment, redirects never followed blindly);
* :class:`ProviderHttp` spaces the requests of one provider (thread-safe), retries a 429
  with exponential backoff honouring ``Retry-After`` while the total backoff stays within
  the budget, and maps every failure to the exception tree of :mod:`prioris.errors`;
* every body is streamed and bounded after decoding (:mod:`prioris.sources.bounded_body`):
  API answers by ``PRIORIS_MCP_MAX_RESPONSE_BYTES`` (``provider_unavailable``), documents by
  the limit their caller passes (``file_too_large``), error bodies to a short prefix;
* :func:`follow_redirect` is the one check for a redirect that is followed: same host,
  never from https down to http.

The transport passed to :func:`make_client` and the :class:`Clock` passed to
:class:`ProviderHttp` are the test seams: no test needs the network or real sleeping.
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Any, Protocol
from urllib.parse import SplitResult, urljoin, urlsplit

import httpx

from prioris.config import DEFAULT_MAX_RESPONSE_BYTES, Settings
from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitedError,
)
from prioris.sources.bounded_body import (
    ACCEPT_ENCODING,
    BodyTooLarge,
    UndecodableBody,
    read_bounded,
    read_prefix,
)

BACKOFF_BASE_SECONDS = 1.0
"""First backoff delay after a 429 without ``Retry-After``; doubled on every retry."""
MIN_BACKOFF_SECONDS = 0.1
"""Floor for a delay so that ``Retry-After: 0`` cannot make a hot loop."""
MAX_RATE_LIMIT_RETRIES = 10
"""Retries after 429 stop here even when the budget would allow more."""
ERROR_BODY_BYTES = 64 * 1024
"""Most of a non-2xx body that is decoded (only its start goes into a message)."""
RETRIED_SERVER_ERRORS = (502, 503, 504)
"""Passing server errors a provider built with ``retry_server_errors`` retries like a 429."""


class Clock(Protocol):
    """Time source for spacing and backoff; a fake one keeps tests instant."""

    def monotonic(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The real clock: :func:`time.monotonic` and :func:`time.sleep`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


def _version() -> str:
    try:
        return metadata.version("prioris")
    except metadata.PackageNotFoundError:  # running from a source tree without install
        return "0.0.0"


USER_AGENT = f"Prioris/{_version()} (+https://github.com/prioris)"


def make_client(settings: Settings, transport: httpx.BaseTransport | None = None) -> httpx.Client:
    """An ``httpx.Client`` configured for every provider.

    Redirects are not followed: a DOI redirect must be inspected (host allowlist) before
    anything is requested from its target. ``Accept-Encoding`` names only the encodings
    whose decoding can be bounded. ``transport`` is the test seam.
    """
    return httpx.Client(
        timeout=settings.http_timeout_seconds,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": ACCEPT_ENCODING},
        trust_env=True,
        follow_redirects=False,
        transport=transport,
    )


def _parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


def _describe(url: httpx.URL | str) -> str:
    """The URL without its query string, so messages never leak keys such as ``api_key``."""
    parsed = httpx.URL(str(url))
    return str(parsed.copy_with(query=None, fragment=None))


def follow_redirect(provider: str, current: str, location: str | None) -> str:
    """The absolute target of a redirect that may be followed, else ProviderUnavailableError.

    Allowed: the same host and port as ``current``, with the same scheme or an upgrade from
    http to https (default ports). Refused: another host (``user@host`` tricks included:
    hosts are compared after parsing), a downgrade from https to http (the request would
    go in clear and anyone on the path could answer), and any scheme but http(s).
    """
    if not location or not location.strip():
        raise ProviderUnavailableError(f"{provider}: redirect without a Location from {current}")
    target = urljoin(current, location.strip())
    source, parts = urlsplit(current), urlsplit(target)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ProviderUnavailableError(f"{provider}: redirect to a {scheme!r} URL refused")
    if source.scheme.lower() == "https" and scheme == "http":
        raise ProviderUnavailableError(
            f"{provider}: redirect from https down to http refused ({_describe(target)})"
        )
    try:
        ports = (_port(source), _port(parts))
    except ValueError:
        raise ProviderUnavailableError(f"{provider}: redirect to {target!r} refused") from None
    same_port = ports[0] == ports[1] or ports == (80, 443)  # http -> https upgrade
    if parts.username or parts.password or parts.hostname != source.hostname or not same_port:
        raise ProviderUnavailableError(
            f"{provider}: redirect off the site to {_describe(target)} refused"
        )
    return target


def _port(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme.lower() == "https" else 80)


@dataclass(frozen=True)
class _Limit:
    """How large a decoded body may be, the setting that says so, and which error it is."""

    max_bytes: int
    setting: str
    document: bool  # a document (file_too_large) rather than an API answer

    def error(self, provider: str, where: str, declared: int | None) -> Exception:
        size = f"is {declared} bytes, more than" if declared is not None else "exceeds"
        message = f"{provider}: {where} {size} the limit of {self.max_bytes} bytes ({self.setting})"
        if self.document:
            return FileTooLargeError(message)
        return ProviderUnavailableError(f"{message}; the response was refused")


class ProviderHttp:
    """One provider's door to the network: request spacing, 429 retry, error mapping."""

    def __init__(
        self,
        provider: str,
        client: httpx.Client,
        *,
        min_interval: float,
        backoff_budget: float,
        clock: Clock | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        retry_server_errors: bool = False,
        peer_check: Callable[[httpx.Response], None] | None = None,
    ) -> None:
        self.provider = provider
        # asked about each answer's connection before its body is read (an alert's feed
        # in a shared library: the address actually reached must be public)
        self.peer_check = peer_check
        # a 502/503/504 waited out like a 429 (Retry-After, backoff budget) instead of
        # failing at once: for long walks (OpenAlex's cursor pages) that one blip would end
        self.retry_server_errors = retry_server_errors
        self.client = client
        self.min_interval = max(0.0, float(min_interval))
        self.backoff_budget = max(0.0, float(backoff_budget))
        self.max_response_bytes = max(1, int(max_response_bytes))
        self.clock: Clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._next_slot: float | None = None

    def _wait_for_slot(self) -> None:
        """Reserve the next send time under a lock, then sleep outside it.

        Reserving (rather than sleeping while holding the lock) keeps consecutive requests
        ``min_interval`` apart however many threads call at once, in the order they arrived.
        """
        with self._lock:
            now = self.clock.monotonic()
            slot = now if self._next_slot is None else max(now, self._next_slot)
            self._next_slot = slot + self.min_interval
        wait = slot - now
        if wait > 0:
            self.clock.sleep(wait)

    def _send(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        limit: _Limit,
    ) -> httpx.Response:
        self._wait_for_slot()
        where = _describe(url)
        try:
            return self._bounded_get(url, params, headers, limit)
        except httpx.TimeoutException as exc:
            raise ProviderUnavailableError(
                f"{self.provider}: request to {where} timed out ({type(exc).__name__})"
            ) from exc
        except httpx.TransportError as exc:
            raise ProviderUnavailableError(
                f"{self.provider}: could not reach {where} ({type(exc).__name__}: {exc})"
            ) from exc
        except (httpx.HTTPError, httpx.InvalidURL, httpx.StreamError) as exc:
            # InvalidURL also comes from a malformed Location header in the answer
            raise ProviderUnavailableError(
                f"{self.provider}: request to {where} failed ({type(exc).__name__}: {exc})"
            ) from exc
        except UnicodeEncodeError as exc:  # a lone surrogate, e.g. from non-UTF-8 argv bytes
            raise InvalidRequestError(
                f"{self.provider}: the request holds text that is not valid Unicode ({exc.reason})"
            ) from exc

    def _bounded_get(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        limit: _Limit,
    ) -> httpx.Response:
        """Stream the body, decode it under ``limit`` and stop as soon as it is exceeded.

        A non-2xx body is read only up to :data:`ERROR_BODY_BYTES` (its start names the
        problem). The response returned holds the decoded bytes, so the headers that
        describe the wire form are dropped.
        """
        with self.client.stream("GET", url, params=params, headers=headers) as response:
            if self.peer_check is not None:
                self.peer_check(response)
            where = _describe(response.request.url)
            encoding = response.headers.get("Content-Encoding", "")
            raw: Iterable[bytes]
            if response.is_stream_consumed:  # an in-memory (test) response: already decoded
                raw, encoding = [response.content], ""
            else:
                raw = response.iter_raw()
            if not response.is_success:
                body = read_prefix(raw, encoding, ERROR_BODY_BYTES)
            else:
                declared = response.headers.get("Content-Length", "")
                if not encoding and declared.isdigit() and int(declared) > limit.max_bytes:
                    raise limit.error(self.provider, where, int(declared))
                try:
                    body = read_bounded(raw, encoding, limit.max_bytes)
                except BodyTooLarge as exc:
                    raise limit.error(self.provider, where, None) from exc
                except UndecodableBody as exc:
                    raise ProviderUnavailableError(
                        f"{self.provider}: could not decode the response from {where} "
                        f"(Content-Encoding {encoding!r}: {exc})"
                    ) from exc
            wire_headers = ("content-encoding", "content-length", "transfer-encoding")
            return httpx.Response(
                response.status_code,
                headers=[
                    (name, value)
                    for name, value in response.headers.multi_items()
                    if name.lower() not in wire_headers
                ],
                content=body,
                request=response.request,
            )

    def get(
        self,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        allow_redirect_status: bool = False,
        max_bytes: int | None = None,
        limit_setting: str = "PRIORIS_MCP_MAX_FILE_BYTES",
    ) -> httpx.Response:
        """GET with spacing, 429 backoff within the budget and error mapping.

        Timeouts, connection errors and 5xx raise ProviderUnavailableError at once (a
        502/503/504 is retried like a 429 first when ``retry_server_errors``); 404
        raises NotFoundError; other 4xx InvalidRequestError; a 3xx is returned only when
        ``allow_redirect_status``. The decoded body is bounded: by ``max_bytes`` for a
        document (FileTooLargeError naming ``limit_setting``), else by the provider's
        ``max_response_bytes`` (ProviderUnavailableError). Returns the 2xx (or 3xx) response.
        """
        if max_bytes is None:
            limit = _Limit(self.max_response_bytes, "PRIORIS_MCP_MAX_RESPONSE_BYTES", False)
        else:
            limit = _Limit(max_bytes, limit_setting, True)
        slept = 0.0
        retries = 0
        while True:
            response = self._send(url, params, headers, limit)
            status = response.status_code
            passing = self.retry_server_errors and status in RETRIED_SERVER_ERRORS
            if status != 429 and not passing:
                return self._check(response, allow_redirect_status)
            delay = _parse_retry_after(response.headers.get("Retry-After"))
            if delay is None:
                delay = BACKOFF_BASE_SECONDS * (2**retries)
            delay = max(delay, MIN_BACKOFF_SECONDS)
            if retries >= MAX_RATE_LIMIT_RETRIES or slept + delay > self.backoff_budget:
                if passing:
                    raise ProviderUnavailableError(
                        f"{self.provider}: server error (HTTP {status}) from {_describe(url)} "
                        f"after {retries} retries and {slept:.1f}s of backoff"
                    )
                raise RateLimitedError(
                    f"{self.provider}: still rate limited (HTTP 429) by {_describe(url)} after "
                    f"{retries} retries and {slept:.1f}s of backoff "
                    f"(budget {self.backoff_budget:g}s); try again later"
                )
            self.clock.sleep(delay)
            slept += delay
            retries += 1

    def _check(self, response: httpx.Response, allow_redirect_status: bool) -> httpx.Response:
        status = response.status_code
        where = _describe(response.request.url)
        if 200 <= status < 300:
            return response
        if 300 <= status < 400:
            if allow_redirect_status:
                return response
            raise ProviderUnavailableError(
                f"{self.provider}: unexpected redirect (HTTP {status}) from {where}"
            )
        if status == 404:
            raise NotFoundError(f"{self.provider}: not found (HTTP 404): {where}")
        if 400 <= status < 500:
            detail = response.text[:200].strip() if response.content else ""
            raise InvalidRequestError(
                f"{self.provider}: request rejected (HTTP {status}) by {where}"
                + (f": {detail}" if detail else "")
            )
        raise ProviderUnavailableError(
            f"{self.provider}: server error (HTTP {status}) from {where}"
        )

    def get_json(
        self,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """GET and decode JSON; an unreadable body is ProviderUnavailableError."""
        response = self.get(url, params=params, headers=headers)
        try:
            return response.json()
        except (ValueError, RecursionError) as exc:  # RecursionError: absurdly deep nesting
            raise ProviderUnavailableError(
                f"{self.provider}: malformed JSON from {_describe(response.request.url)}"
            ) from exc
