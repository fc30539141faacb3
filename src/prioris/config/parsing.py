"""The readers every area uses: one variable's text to a checked value, or a one-line error.

Separate from the areas so that a number, a choice, a flag, a token and a URL are read and
refused the same way whatever setting they belong to: each error is a ConfigurationError
that names the variable and says what it accepts (the config file adds its path and key).
``RANGES`` lives here because ``_number`` and ``_integer`` check every value against it;
docs/configuration.md lists the same ranges and a test holds the two together.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from prioris.errors import ConfigurationError

# Every numeric setting's accepted range, (minimum, maximum), both included: outside it
# a value is a one-line configuration_error (docs/configuration.md lists them). The
# maxima keep each value where the code that uses it works (a port, a timeout the clock
# and libpq take, a byte count a process can hold, a k SQLite takes).
DAY = 86_400
RANGES: dict[str, tuple[float, float]] = {
    "PRIORIS_MCP_ARXIV_MIN_INTERVAL_SECONDS": (0, 3600),
    "PRIORIS_MCP_EUROPEPMC_MIN_INTERVAL_SECONDS": (0, 3600),
    "PRIORIS_MCP_OPENALEX_MIN_INTERVAL_SECONDS": (0, 3600),
    "PRIORIS_MCP_DISCOVERY_MIN_INTERVAL_SECONDS": (0, 3600),
    "PRIORIS_MCP_OPENALEX_CACHE_DAYS": (0, 3650),
    "PRIORIS_MCP_OPENALEX_DAILY_BUDGET": (0, 1_000_000),
    "PRIORIS_MCP_OPENALEX_CACHE_MAX_BYTES": (1 << 20, 1 << 40),
    "PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET": (0, 1_000_000),
    "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS": (0, DAY),
    "PRIORIS_MCP_HTTP_TIMEOUT_SECONDS": (0.001, 3600),
    "PRIORIS_MCP_MAX_FILE_BYTES": (1, 64 << 30),
    "PRIORIS_MCP_MAX_RESPONSE_BYTES": (1024, 4 << 30),
    "PRIORIS_MCP_MAX_MARKUP_BYTES": (1024, 4 << 30),
    "PRIORIS_MCP_PORT": (0, 65535),
    "PRIORIS_MCP_UI_PORT": (0, 65535),
    "PRIORIS_MCP_SMTP_PORT": (0, 65535),
    "PRIORIS_MCP_SMTP_TIMEOUT_SECONDS": (0.1, 3600),
    "PRIORIS_MCP_ACCOUNT_REQUESTS_PER_MINUTE": (1, 1_000_000),
    "PRIORIS_MCP_ACCOUNT_UPLOAD_BYTES_PER_HOUR": (1, 2**46),
    "PRIORIS_MCP_HYBRID_RRF_K": (1, 100_000),
    "PRIORIS_MCP_HYBRID_WEIGHTS": (0, 1000),
    "PRIORIS_MCP_RERANK_DEPTH": (1, 1000),
    "PRIORIS_MCP_FEEDBACK_MAX_WORDS": (0, 1000),
    "PRIORIS_MCP_WORK_VECTOR_WEIGHT": (0, 1),
    "PRIORIS_MCP_EMBEDDING_BATCH_SIZE": (1, 4096),
    "PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS": (0.1, DAY),
    "PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES": (1 << 24, 1 << 40),
    "PRIORIS_MCP_PDF_MAX_PAGES": (1, 1_000_000),
    "PRIORIS_MCP_PDF_MAX_PAGE_OPERATIONS": (1, 10**9),
    "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS": (1, 10**8),
    "PRIORIS_MCP_PDF_MAX_PAGE_CHARS": (1, 10**9),
    "PRIORIS_MCP_PDF_MAX_TEXT_CHARS": (1, 10**10),
    "PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS": (0.1, DAY),
    "PRIORIS_MCP_MAX_RECORD_BYTES": (64, 1 << 31),
    "PRIORIS_MCP_MAX_QUERY_CHARS": (1, 1_000_000),
    "PRIORIS_MCP_POSTINGS_MIN_CHUNKS": (0, 10**12),
    "PRIORIS_MCP_PG_POOL_SIZE": (1, 1000),
    "PRIORIS_MCP_DB_REPLICA_MAX_LAG_SECONDS": (0, DAY),
    "PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS": (1, 3600),
    "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS": (1, 7 * DAY),
    "PRIORIS_MCP_PG_EF_SEARCH": (1, 1000),
    "PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS": (0, 10**12),
    "PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS": (0, 10**12),
}


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = env.get(name, default).strip().lower() or default
    if value not in choices:
        raise ConfigurationError(f"{name}={value!r} is invalid; accepted: {', '.join(choices)}")
    return value


def _out_of_range(name: str, raw: str, kind: str) -> ConfigurationError:
    low, high = RANGES[name]
    return ConfigurationError(
        f"{name}={raw.strip()[:40]!r} is invalid; accepted: {kind} from {low:g} to {high:g}"
    )


def _number(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise _out_of_range(name, raw, "a number") from None
    low, high = RANGES[name]
    if not math.isfinite(value) or not low <= value <= high:  # NaN and inf too
        raise _out_of_range(name, raw, "a number")
    return value


def _integer(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip()
    low, high = RANGES[name]
    # a digit string longer than the maximum's is out of range before int() reads it
    if len(text.lstrip("+-")) > len(str(int(high))) + 1:
        raise _out_of_range(name, raw, "an integer")
    try:
        value = int(text)
    except ValueError:
        raise _out_of_range(name, raw, "an integer") from None
    if not low <= value <= high:
        raise _out_of_range(name, raw, "an integer")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigurationError(f"{name}={raw!r} is invalid; accepted: true or false (1/0)")


def _token(env: Mapping[str, str], name: str) -> str | None:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return None
    value = raw.strip()
    if len(value) < 16 or any(c.isspace() or not c.isprintable() for c in value):
        raise ConfigurationError(
            f"{name} is invalid; accepted: at least 16 printable characters without spaces "
            "(or leave it unset to have one generated)"
        )
    return value


def _url(env: Mapping[str, str], name: str, default: str) -> str:
    value = env.get(name, "").strip() or default
    if not value.startswith(("http://", "https://")):
        raise ConfigurationError(f"{name}={value!r} is invalid; accepted: an http(s) URL")
    return value.rstrip("/")
