"""The one HTTP layer every remote provider goes through.

Responsibilities, in one place so every provider behaves the same way:

* :func:`make_client` builds the ``httpx.Client`` (timeout, User-Agent naming the product,
  proxies and certificates from the environment, redirects never followed blindly);
* :class:`ProviderHttp` spaces the requests of one provider (thread-safe), retries a 429
  with exponential backoff honouring ``Retry-After`` while the total backoff stays within
  the budget, and maps every failure to the exception tree of :mod:`prioris.errors`.

The transport passed to :func:`make_client` and the :class:`Clock` passed to
:class:`ProviderHttp` are the test seams: no test needs the network or real sleeping.
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import metadata
from typing import Any, Protocol

import httpx

from prioris.config import Settings
from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
    RateLimitedError,
)

BACKOFF_BASE_SECONDS = 1.0
"""First backoff delay after a 429 without ``Retry-After``; doubled on every retry."""
MIN_BACKOFF_SECONDS = 0.1
"""Floor for a delay so that ``Retry-After: 0`` cannot make a hot loop."""
MAX_RATE_LIMIT_RETRIES = 10
"""Retries after 429 stop here even when the budget would allow more."""


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
    anything is requested from its target. ``transport`` is the test seam.
    """
    return httpx.Client(
        timeout=settings.http_timeout_seconds,
        headers={"User-Agent": USER_AGENT},
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
    ) -> None:
        self.provider = provider
        self.client = client
        self.min_interval = max(0.0, float(min_interval))
        self.backoff_budget = max(0.0, float(backoff_budget))
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
        max_bytes: int | None,
    ) -> httpx.Response:
        self._wait_for_slot()
        where = _describe(url)
        try:
            if max_bytes is None:
                return self.client.get(url, params=params, headers=headers)
            return self._bounded_get(url, params, headers, max_bytes)
        except httpx.TimeoutException as exc:
            raise ProviderUnavailableError(
                f"{self.provider}: request to {where} timed out ({type(exc).__name__})"
            ) from exc
        except httpx.TransportError as exc:
            raise ProviderUnavailableError(
                f"{self.provider}: could not reach {where} ({type(exc).__name__}: {exc})"
            ) from exc
        except (httpx.HTTPError, httpx.InvalidURL) as exc:  # InvalidURL: a bad Location
            raise ProviderUnavailableError(
                f"{self.provider}: request to {where} failed ({type(exc).__name__}: {exc})"
            ) from exc

    def _bounded_get(
        self,
        url: str,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        max_bytes: int,
    ) -> httpx.Response:
        """Stream the body and stop as soon as it exceeds ``max_bytes`` (PDF size cap)."""
        with self.client.stream("GET", url, params=params, headers=headers) as response:
            if not response.is_success:
                response.read()
                return response
            declared = response.headers.get("Content-Length")
            if declared and declared.isdigit() and int(declared) > max_bytes:
                raise FileTooLargeError(
                    f"{self.provider}: {_describe(url)} is {int(declared)} bytes, "
                    f"more than the limit of {max_bytes}"
                )
            body = bytearray()
            for part in response.iter_bytes():
                body.extend(part)
                if len(body) > max_bytes:
                    raise FileTooLargeError(
                        f"{self.provider}: {_describe(url)} exceeds the limit of {max_bytes} bytes"
                    )
            # the body is already decoded: drop the headers that describe the wire form
            headers = [
                (name, value)
                for name, value in response.headers.multi_items()
                if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")
            ]
            return httpx.Response(
                response.status_code,
                headers=headers,
                content=bytes(body),
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
    ) -> httpx.Response:
        """GET with spacing, 429 backoff within the budget and error mapping.

        Timeouts, connection errors and 5xx raise ProviderUnavailableError at once; 404
        raises NotFoundError; other 4xx InvalidRequestError; a 3xx is returned only when
        ``allow_redirect_status``. ``max_bytes`` bounds the body (FileTooLargeError).
        Returns the 2xx (or allowed 3xx) response.
        """
        slept = 0.0
        retries = 0
        while True:
            response = self._send(url, params, headers, max_bytes)
            status = response.status_code
            if status != 429:
                return self._check(response, allow_redirect_status)
            delay = _parse_retry_after(response.headers.get("Retry-After"))
            if delay is None:
                delay = BACKOFF_BASE_SECONDS * (2**retries)
            delay = max(delay, MIN_BACKOFF_SECONDS)
            if retries >= MAX_RATE_LIMIT_RETRIES or slept + delay > self.backoff_budget:
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
        except ValueError as exc:
            raise ProviderUnavailableError(
                f"{self.provider}: malformed JSON from {_describe(response.request.url)}"
            ) from exc
