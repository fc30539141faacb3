"""The exception tree of Prioris.

Every expected failure is a :class:`PriorisError` with a stable ``code`` that the CLI
prints as ``error [code]: message`` and the MCP server puts at the start of a tool
error. Third-party exceptions are wrapped only at the boundary (``raise ... from exc``)::

    PriorisError
    ├── InvalidRequestError        invalid_request
    ├── NotFoundError              not_found
    ├── ConfigurationError         configuration_error
    │   └── ServerUnavailableError configuration_error (the primary is down)
    │       └── ShardUnavailableError configuration_error (a shard is down)
    ├── FileTooLargeError          file_too_large
    ├── UnauthorizedError          unauthorized
    ├── ForbiddenError             forbidden
    ├── FormatUnavailableError     format_unavailable
    ├── UnsupportedProviderError   unsupported_provider
    ├── DamagedLibraryError        damaged_library
    ├── QuotaExceededError         quota_exceeded
    ├── SourceError                (a remote provider failed)
    │   ├── RateLimitedError       rate_limited
    │   └── ProviderUnavailableError provider_unavailable
    └── IngestError                (a document could not be ingested)
        ├── ParseError             parse_error
        └── OcrUnavailableError    ocr_unavailable
"""

from __future__ import annotations


class PriorisError(Exception):
    """Root of every expected Prioris failure; ``code`` is stable and machine-readable."""

    code: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """The error as it appears in JSON output: ``{"code", "message"}``."""
        return {"code": self.code, "message": self.message}


class InvalidRequestError(PriorisError):
    """The caller's input is malformed (bad id, bad option, malformed FTS5 query)."""

    code = "invalid_request"


class NotFoundError(PriorisError):
    """The work, document or remote record does not exist."""

    code = "not_found"


class ConfigurationError(PriorisError):
    """A setting is missing or invalid (names the variable and what it accepts)."""

    code = "configuration_error"


class ServerUnavailableError(ConfigurationError):
    """The library's database server cannot be reached for a write (its primary is down;
    reads may still be answered by read replicas). Fails a whole batch at once, not one
    document after another: nothing was written."""


class ShardUnavailableError(ServerUnavailableError):
    """A shard of the library cannot be reached: its works can be neither read nor
    written, and a search fails naming it (``PRIORIS_MCP_DB_SHARD_MISSING=fail``).
    ``shards``: the missing shards' URLs, passwords masked. Keeps the primary's code
    (``configuration_error``): the categories of errors are the interface's contract."""

    def __init__(self, message: str, shards: list[str] | None = None) -> None:
        super().__init__(message)
        self.shards = list(shards or [])


class FileTooLargeError(PriorisError):
    """A file or upload exceeds ``PRIORIS_MCP_MAX_FILE_BYTES`` or an upload bound."""

    code = "file_too_large"


class UnauthorizedError(PriorisError):
    """No account, or a token that is unknown or revoked (HTTP 401)."""

    code = "unauthorized"


class ForbiddenError(PriorisError):
    """The account is known but its role does not allow this action (HTTP 403)."""

    code = "forbidden"


class FormatUnavailableError(PriorisError):
    """The requested full-text format does not exist for this work (e.g. no arXiv HTML)."""

    code = "format_unavailable"


class UnsupportedProviderError(PriorisError):
    """The identifier or redirect target belongs to no supported provider."""

    code = "unsupported_provider"


class DamagedLibraryError(PriorisError):
    """Something stored in the library cannot be read back: a damaged passage, or one in a
    format this release does not know (a library file someone handed over, or written by
    a newer Prioris). The message names the work; the work can still be deleted."""

    code = "damaged_library"


class QuotaExceededError(PriorisError):
    """An account's share of a library-wide allowance (OpenAlex's daily requests) is
    spent for today; the library's own allowance may still have room for others."""

    code = "quota_exceeded"


class SourceError(PriorisError):
    """A remote provider failed; subclasses say how."""

    code = "provider_unavailable"


class RateLimitedError(SourceError):
    """The provider kept answering 429 until the backoff budget was spent."""

    code = "rate_limited"


class ProviderUnavailableError(SourceError):
    """Timeout, connection failure, 5xx or an unreadable response from a provider."""

    code = "provider_unavailable"


class IngestError(PriorisError):
    """A document could not be ingested; subclasses say why."""

    code = "parse_error"


class ParseError(IngestError):
    """A PDF, XML or JSON payload is broken, encrypted or not what it claims to be."""

    code = "parse_error"


class OcrUnavailableError(IngestError):
    """OCR was required but tesseract (or its language data) is not installed."""

    code = "ocr_unavailable"


ERROR_CODES: tuple[str, ...] = (
    "not_found",
    "invalid_request",
    "format_unavailable",
    "unsupported_provider",
    "rate_limited",
    "provider_unavailable",
    "file_too_large",
    "configuration_error",
    "parse_error",
    "ocr_unavailable",
    "unauthorized",
    "forbidden",
    "damaged_library",
    "quota_exceeded",
)
