"""Settings built from the environment by :func:`load_settings`, never at import time.

Every variable of SPEC section 2 is read here and validated once, so an invalid value
fails at start with a message naming the variable and what it accepts. A TOML file
(``$XDG_CONFIG_HOME/prioris/config.toml``, see :mod:`prioris.config_file`) supplies the
same settings under their variable names without the prefix; the environment wins over it.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from prioris.errors import ConfigurationError

OCR_MODES = ("auto", "always", "never")
TRANSPORTS = ("stdio", "http")
FUSION_METHODS = ("rrf", "weighted", "learned")
ENRICH_MODES = ("auto", "off")
PROVIDERS = ("arxiv", "europepmc", "openalex", "discovery")
DEFAULT_MIN_INTERVALS = {"arxiv": 3.0, "europepmc": 1.0, "openalex": 0.1, "discovery": 1.0}
DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024
"""Decoded size cap of an API answer (JSON, Atom, OAI-PMH); the largest real ones are ~10 MB."""
POSTGRES_URL_PREFIXES = ("postgresql://", "postgres://")
DEFAULT_MAX_MARKUP_BYTES = 50 * 1024 * 1024
"""Decoded size cap of a JATS XML or arXiv HTML full text (real ones: a few MB)."""


@dataclass(frozen=True)
class Settings:
    """Everything configurable, with the defaults of SPEC section 2."""

    data_dir: Path
    db_path: Path
    embedding_model: str | None = None
    embedding_model_path: Path | None = None
    ocr_mode: str = "auto"
    ocr_languages: str = "eng"
    openalex_api_key: str | None = None
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    arxiv_site_url: str = "https://arxiv.org"
    arxiv_oai_url: str = "https://oaipmh.arxiv.org/oai"
    europepmc_base_url: str = "https://www.ebi.ac.uk/europepmc/webservices/rest"
    openalex_base_url: str = "https://api.openalex.org"
    # the citation graph's OpenAlex answers kept this many days (0: none kept), and the
    # requests it may send per UTC day, counted in the library (docs/configuration.md)
    openalex_cache_days: int = 30
    openalex_daily_budget: int = 1000
    doi_resolver_url: str = "https://doi.org"
    min_intervals: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MIN_INTERVALS))
    backoff_budget_seconds: float = 60.0
    http_timeout_seconds: float = 30.0
    max_file_bytes: int = 104_857_600
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_markup_bytes: int = DEFAULT_MAX_MARKUP_BYTES
    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    cors_origins: tuple[str, ...] = ()
    http_allow_remote: bool = False
    http_token: str | None = None
    fusion_method: str = "learned"
    rrf_k: int = 60
    fusion_weights: tuple[float, float] = (0.6, 0.4)
    rerank_model: str | None = None  # a fastembed cross-encoder; off (offline) by default
    rerank_depth: int = 30
    feedback_max_words: int = 0  # Rocchio feedback for queries of at most this many words
    work_vector_weight: float = 0.3  # a work's own vector in its vector score (0: chunks only)
    embedding_batch_size: int = 16
    enrich: str = "auto"
    ui_port: int = 8765
    # per account in accounts mode (docs/security.md, "Accounts and roles")
    account_requests_per_minute: int = 600
    account_upload_bytes_per_hour: int = 2**31
    # limits on local input: PDFs, OCR, JSONL records, queries (docs/security.md, "Limits")
    pdf_time_limit_seconds: float = 300.0
    pdf_memory_limit_bytes: int = 805_306_368
    pdf_max_pages: int = 2000
    pdf_max_page_operations: int = 1_000_000
    pdf_max_page_text_runs: int = 100_000
    pdf_max_page_chars: int = 200_000
    pdf_max_text_chars: int = 5_000_000
    ocr_page_timeout_seconds: float = 120.0
    max_record_bytes: int = 4_194_304
    max_query_chars: int = 4096
    # plain FTS queries ranked from the BM25 postings sidecar (<library>.bm25) from this many
    # chunks on; 0 never builds it (docs/configuration.md)
    postings_min_chunks: int = 100_000
    # a postgresql:// library (PRIORIS_MCP_DB or --db as a URL; docs/postgres.md)
    db_url: str | None = None
    pg_pool_size: int = 4
    pg_connect_timeout_seconds: int = 10
    pg_statement_timeout_seconds: int = 300
    # recall@10 0.71 against 0.51 at 100 on the realistic 1M corpus, for +4 ms a query
    # (docs/benchmarks.md section 10)
    pg_ef_search: int = 400
    # PostgreSQL ranks plain FTS queries from its BM25 postings table from this many chunks
    # on: BM25 in SQL costs ~150 ms at SciFact's 9,000 passages already (docs/benchmarks.md
    # section 10), where SQLite's FTS5 needs no help until 100,000; 0 never builds it
    pg_postings_min_chunks: int = 1_000
    # ... and answers KNN from an in-process copy of the vectors (exact, or compact with the
    # head rescored: recall@10 0.99) from this many: HNSW found 0.71 of the exact top 10 at
    # a million realistic passages (docs/benchmarks.md section 10); 0 never keeps one
    pg_vector_copy_min_chunks: int = 20_000
    # a Zotero data directory (`prioris zotero sync`; default: Zotero's own, ~/Zotero) and
    # its base directory for linked attachments (Zotero's "Linked Attachment Base Directory")
    zotero_dir: Path | None = None
    zotero_base_dir: Path | None = None

    @property
    def library_location(self) -> str | Path:
        """What the library is opened from: the PostgreSQL URL, else the SQLite file."""
        return self.db_url or self.db_path

    def with_library(self, location: str | Path) -> Settings:
        """A copy that opens ``location``: a ``postgresql://`` URL or an SQLite file."""
        if is_postgres_url(str(location)):
            return replace(self, db_url=str(location))
        return replace(self, db_url=None, db_path=Path(location).expanduser())

    def with_overrides(self, **changes: object) -> Settings:
        """A copy with some fields replaced (CLI options win over the environment)."""
        return replace(self, **changes)  # type: ignore[arg-type]


def is_postgres_url(location: str) -> bool:
    """A library location that names a PostgreSQL database rather than an SQLite file."""
    return location.startswith(POSTGRES_URL_PREFIXES)


def _default_data_dir(env: Mapping[str, str]) -> Path:
    xdg = env.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path(env.get("HOME", str(Path.home()))) / ".local" / "share"
    return base / "prioris"


def _choice(env: Mapping[str, str], name: str, choices: tuple[str, ...], default: str) -> str:
    value = env.get(name, default).strip().lower() or default
    if value not in choices:
        raise ConfigurationError(f"{name}={value!r} is invalid; accepted: {', '.join(choices)}")
    return value


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
    "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS": (0, DAY),
    "PRIORIS_MCP_HTTP_TIMEOUT_SECONDS": (0.001, 3600),
    "PRIORIS_MCP_MAX_FILE_BYTES": (1, 64 << 30),
    "PRIORIS_MCP_MAX_RESPONSE_BYTES": (1024, 4 << 30),
    "PRIORIS_MCP_MAX_MARKUP_BYTES": (1024, 4 << 30),
    "PRIORIS_MCP_PORT": (0, 65535),
    "PRIORIS_MCP_UI_PORT": (0, 65535),
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
    "PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS": (1, 3600),
    "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS": (1, 7 * DAY),
    "PRIORIS_MCP_PG_EF_SEARCH": (1, 1000),
    "PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS": (0, 10**12),
    "PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS": (0, 10**12),
}


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


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read and validate every ``PRIORIS_MCP_*`` variable; raise ConfigurationError if bad.

    The config file's values are merged underneath the environment first, so every setting
    read below gets file support without knowing about it; an error about a value that came
    from the file names the file and key, and a key no setting read is refused."""
    from prioris.config_file import load_with_config_file

    return load_with_config_file(os.environ if env is None else env, _settings_from)


def _settings_from(env: Mapping[str, str]) -> Settings:
    data_dir = Path(env.get("PRIORIS_MCP_DATA_DIR") or _default_data_dir(env)).expanduser()
    db_raw = (env.get("PRIORIS_MCP_DB") or "").strip()
    db_url = db_raw if is_postgres_url(db_raw) else None
    db_path = Path(db_raw if db_raw and not db_url else data_dir / "library.sqlite").expanduser()
    model_path = env.get("PRIORIS_MCP_EMBEDDING_MODEL_PATH")
    intervals = {
        provider: _number(env, f"PRIORIS_MCP_{provider.upper()}_MIN_INTERVAL_SECONDS", default)
        for provider, default in DEFAULT_MIN_INTERVALS.items()
    }
    # the learned fusion unless weights are given alone (they are the weighted sum's)
    given_weights = bool((env.get("PRIORIS_MCP_HYBRID_WEIGHTS") or "").strip())
    method = _choice(
        env, "PRIORIS_MCP_HYBRID_METHOD", FUSION_METHODS, "weighted" if given_weights else "learned"
    )
    # tuned default for the weighted sum; plain (equal-weight) RRF when rrf is chosen alone;
    # the learned fusion has weights of its own (fusion.LEARNED_WEIGHTS)
    weights_raw = env.get("PRIORIS_MCP_HYBRID_WEIGHTS") or (
        "0.5,0.5" if method == "rrf" else "0.6,0.4"
    )
    low, high = RANGES["PRIORIS_MCP_HYBRID_WEIGHTS"]
    try:
        fts_w, vec_w = (float(part) for part in weights_raw.split(","))
        if not all(math.isfinite(w) and low <= w <= high for w in (fts_w, vec_w)):
            raise ValueError(weights_raw)
    except ValueError:
        raise ConfigurationError(
            f"PRIORIS_MCP_HYBRID_WEIGHTS={weights_raw[:40]!r} is invalid; accepted: two "
            f"numbers 'FTS,VECTOR' from {low:g} to {high:g}, such as '0.5,0.5'"
        ) from None
    cors = tuple(o.strip() for o in env.get("PRIORIS_MCP_CORS_ORIGINS", "").split(",") if o.strip())
    zotero_dir = (env.get("PRIORIS_MCP_ZOTERO_DIR") or "").strip()
    zotero_base = (env.get("PRIORIS_MCP_ZOTERO_BASE_DIR") or "").strip()
    return Settings(
        zotero_dir=Path(zotero_dir).expanduser() if zotero_dir else None,
        zotero_base_dir=Path(zotero_base).expanduser() if zotero_base else None,
        data_dir=data_dir,
        db_path=db_path,
        db_url=db_url,
        embedding_model=(env.get("PRIORIS_MCP_EMBEDDING_MODEL") or "").strip() or None,
        embedding_model_path=Path(model_path).expanduser() if model_path else None,
        ocr_mode=_choice(env, "PRIORIS_MCP_OCR", OCR_MODES, "auto"),
        ocr_languages=(env.get("PRIORIS_MCP_OCR_LANGUAGES") or "eng").strip(),
        openalex_api_key=(env.get("PRIORIS_MCP_OPENALEX_API_KEY") or "").strip() or None,
        arxiv_api_url=_url(env, "PRIORIS_MCP_ARXIV_API_URL", Settings.arxiv_api_url),
        arxiv_site_url=_url(env, "PRIORIS_MCP_ARXIV_SITE_URL", Settings.arxiv_site_url),
        arxiv_oai_url=_url(env, "PRIORIS_MCP_ARXIV_OAI_URL", Settings.arxiv_oai_url),
        europepmc_base_url=_url(env, "PRIORIS_MCP_EUROPEPMC_BASE_URL", Settings.europepmc_base_url),
        openalex_base_url=_url(env, "PRIORIS_MCP_OPENALEX_BASE_URL", Settings.openalex_base_url),
        openalex_cache_days=_integer(env, "PRIORIS_MCP_OPENALEX_CACHE_DAYS", 30),
        openalex_daily_budget=_integer(env, "PRIORIS_MCP_OPENALEX_DAILY_BUDGET", 1000),
        doi_resolver_url=_url(env, "PRIORIS_MCP_DOI_RESOLVER_URL", Settings.doi_resolver_url),
        min_intervals=intervals,
        backoff_budget_seconds=_number(env, "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS", 60.0),
        http_timeout_seconds=_number(env, "PRIORIS_MCP_HTTP_TIMEOUT_SECONDS", 30.0),
        max_file_bytes=_integer(env, "PRIORIS_MCP_MAX_FILE_BYTES", 104_857_600),
        max_response_bytes=_integer(
            env, "PRIORIS_MCP_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES
        ),
        max_markup_bytes=_integer(env, "PRIORIS_MCP_MAX_MARKUP_BYTES", DEFAULT_MAX_MARKUP_BYTES),
        transport=_choice(env, "PRIORIS_MCP_TRANSPORT", TRANSPORTS, "stdio"),
        host=(env.get("PRIORIS_MCP_HOST") or "127.0.0.1").strip(),
        port=_integer(env, "PRIORIS_MCP_PORT", 8000),
        cors_origins=cors,
        http_allow_remote=_flag(env, "PRIORIS_MCP_HTTP_ALLOW_REMOTE"),
        http_token=_token(env, "PRIORIS_MCP_HTTP_TOKEN"),
        fusion_method=method,
        rrf_k=_integer(env, "PRIORIS_MCP_HYBRID_RRF_K", 60),
        fusion_weights=(fts_w, vec_w),
        rerank_model=(env.get("PRIORIS_MCP_RERANK_MODEL") or "").strip() or None,
        rerank_depth=_integer(env, "PRIORIS_MCP_RERANK_DEPTH", 30),
        feedback_max_words=_integer(env, "PRIORIS_MCP_FEEDBACK_MAX_WORDS", 0),
        work_vector_weight=_number(env, "PRIORIS_MCP_WORK_VECTOR_WEIGHT", 0.3),  # 0..1
        embedding_batch_size=_integer(env, "PRIORIS_MCP_EMBEDDING_BATCH_SIZE", 16),
        enrich=_choice(env, "PRIORIS_MCP_ENRICH", ENRICH_MODES, "auto"),
        ui_port=_integer(env, "PRIORIS_MCP_UI_PORT", 8765),
        account_requests_per_minute=_integer(env, "PRIORIS_MCP_ACCOUNT_REQUESTS_PER_MINUTE", 600),
        account_upload_bytes_per_hour=_integer(
            env, "PRIORIS_MCP_ACCOUNT_UPLOAD_BYTES_PER_HOUR", 2**31
        ),
        **_input_limits(env),
    )


def _input_limits(env: Mapping[str, str]) -> dict[str, object]:
    """The limits on local input (PDFs, OCR, JSONL records, queries), each with a variable."""
    d = Settings
    return {
        "pdf_time_limit_seconds": _number(
            env, "PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS", d.pdf_time_limit_seconds
        ),
        "pdf_memory_limit_bytes": _integer(
            env, "PRIORIS_MCP_PDF_MEMORY_LIMIT_BYTES", d.pdf_memory_limit_bytes
        ),
        "pdf_max_pages": _integer(env, "PRIORIS_MCP_PDF_MAX_PAGES", d.pdf_max_pages),
        "pdf_max_page_operations": _integer(
            env, "PRIORIS_MCP_PDF_MAX_PAGE_OPERATIONS", d.pdf_max_page_operations
        ),
        "pdf_max_page_text_runs": _integer(
            env, "PRIORIS_MCP_PDF_MAX_PAGE_TEXT_RUNS", d.pdf_max_page_text_runs
        ),
        "pdf_max_page_chars": _integer(env, "PRIORIS_MCP_PDF_MAX_PAGE_CHARS", d.pdf_max_page_chars),
        "pdf_max_text_chars": _integer(env, "PRIORIS_MCP_PDF_MAX_TEXT_CHARS", d.pdf_max_text_chars),
        "ocr_page_timeout_seconds": _number(
            env, "PRIORIS_MCP_OCR_PAGE_TIMEOUT_SECONDS", d.ocr_page_timeout_seconds
        ),
        "max_record_bytes": _integer(env, "PRIORIS_MCP_MAX_RECORD_BYTES", d.max_record_bytes),
        "max_query_chars": _integer(env, "PRIORIS_MCP_MAX_QUERY_CHARS", d.max_query_chars),
        "postings_min_chunks": _integer(
            env, "PRIORIS_MCP_POSTINGS_MIN_CHUNKS", d.postings_min_chunks
        ),
        "pg_pool_size": _integer(env, "PRIORIS_MCP_PG_POOL_SIZE", d.pg_pool_size),
        "pg_connect_timeout_seconds": _integer(
            env, "PRIORIS_MCP_PG_CONNECT_TIMEOUT_SECONDS", d.pg_connect_timeout_seconds
        ),
        "pg_statement_timeout_seconds": _integer(
            env,
            "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS",
            d.pg_statement_timeout_seconds,
        ),
        "pg_ef_search": _integer(env, "PRIORIS_MCP_PG_EF_SEARCH", d.pg_ef_search),
        "pg_postings_min_chunks": _integer(
            env, "PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS", d.pg_postings_min_chunks
        ),
        "pg_vector_copy_min_chunks": _integer(
            env, "PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS", d.pg_vector_copy_min_chunks
        ),
    }


# Settings fields whose variable is not PRIORIS_MCP_<FIELD> (for keyword settings below)
_KEYWORD_VARIABLES = {
    "db": "PRIORIS_MCP_DB",
    "ocr_mode": "PRIORIS_MCP_OCR",
    "backoff_budget_seconds": "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS",
    "fusion_method": "PRIORIS_MCP_HYBRID_METHOD",
    "rrf_k": "PRIORIS_MCP_HYBRID_RRF_K",
    "fusion_weights": "PRIORIS_MCP_HYBRID_WEIGHTS",
}
_NOT_KEYWORDS = ("db_path", "db_url", "min_intervals")  # given as db= / min_intervals={...}


def keyword_settings(
    values: Mapping[str, object], env: Mapping[str, str] | None = None
) -> Settings:
    """Settings from Python keyword arguments (``data_dir=``, ``db=``, ``ocr_mode=``, ...).

    Each keyword is the :class:`Settings` field of the same name (``db`` takes a file path
    or a ``postgresql://`` URL, ``min_intervals`` a ``{provider: seconds}`` mapping). It is
    written as the variable it stands for and read by :func:`load_settings` over the
    environment and the config file, so a keyword is checked exactly like its variable
    (a bad value is a ConfigurationError naming it) and anything not given keeps its
    environment or file value. An unknown keyword is a TypeError listing the known ones:
    it is a programming mistake, not a setting."""
    fields = {f.name for f in dataclasses.fields(Settings)} - set(_NOT_KEYWORDS)
    known = sorted(fields | {"db", "min_intervals"})
    overrides: dict[str, str] = {}
    for name, value in values.items():
        if name not in known:
            raise TypeError(f"unknown setting {name!r}; known settings: {', '.join(known)}")
        if value is None:
            continue
        if name == "min_intervals":
            if not isinstance(value, Mapping):
                raise TypeError("min_intervals takes a mapping {provider: seconds}")
            for provider, seconds in value.items():
                if provider not in DEFAULT_MIN_INTERVALS:
                    raise TypeError(
                        f"unknown provider {provider!r} in min_intervals; known: "
                        f"{', '.join(DEFAULT_MIN_INTERVALS)}"
                    )
                overrides[f"PRIORIS_MCP_{provider.upper()}_MIN_INTERVAL_SECONDS"] = str(seconds)
            continue
        variable = _KEYWORD_VARIABLES.get(name, f"PRIORIS_MCP_{name.upper()}")
        overrides[variable] = _as_variable(value)
        if "\x00" in overrides[variable]:  # would fail later, as a traceback in a path
            raise ConfigurationError(f"{name} holds a NUL byte; no setting may contain one")
    base = dict(os.environ if env is None else env)
    if values.get("data_dir") is not None and values.get("db") is None:
        base.pop("PRIORIS_MCP_DB", None)  # a data directory names the library inside it
    return load_settings({**base, **overrides})


def _as_variable(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ",".join(str(part) for part in value)
    return str(value)
