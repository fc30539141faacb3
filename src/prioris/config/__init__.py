"""Settings built from the environment by :func:`load_settings`, never at import time.

Every variable of SPEC section 2 is read here and validated once, so an invalid value
fails at start with a message naming the variable and what it accepts. A TOML file
(``$XDG_CONFIG_HOME/prioris/config.toml``, see :mod:`prioris.config_file`) supplies the
same settings under their variable names without the prefix; the environment wins over it.

One module per area, each a plain frozen dataclass of its fields with their defaults and a
function reading that area's variables: ``database`` (data directory, SQLite file or
PostgreSQL URL, engine tuning, Zotero directories), ``model`` (the embedding model),
``providers`` (URLs, API key, request spacing, timeouts, OpenAlex cache and budget),
``servers`` (transport, host, ports, CORS, token, account limits), ``search`` (fusion,
rerank, feedback), ``limits`` (files, PDFs, OCR, records, queries) and ``cluster`` (the
Dask cluster ingest runs its tasks on); ``parsing`` holds the
readers they share and ``settings`` composes :class:`Settings` from all the areas (it
inherits them, so every field is a flat attribute such as ``settings.rrf_k``). The areas
are plain dataclasses validated by their readers, whose messages name the variable, rather
than pydantic models: pydantic's dataclasses cost some 50-70 ms of import CPU, paid by
every CLI command at start.

This package re-exports what is imported from ``prioris.config``: ``Settings``,
``load_settings``, ``keyword_settings``, ``is_postgres_url``, the defaults and choices
(``DEFAULT_MIN_INTERVALS``, ``DEFAULT_MAX_RESPONSE_BYTES``, ``DEFAULT_MAX_MARKUP_BYTES``,
``POSTGRES_URL_PREFIXES``, ``OCR_MODES``, ``TRANSPORTS``, ``FUSION_METHODS``,
``ENRICH_MODES``, ``PROVIDERS``), ``RANGES`` and ``DAY``, and ``_KEYWORD_VARIABLES`` (for
the test that every numeric setting has a range).
"""

from __future__ import annotations

from prioris.config.database import POSTGRES_URL_PREFIXES, is_postgres_url
from prioris.config.limits import OCR_MODES
from prioris.config.parsing import DAY, RANGES
from prioris.config.providers import (
    DEFAULT_MAX_MARKUP_BYTES,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_MIN_INTERVALS,
    ENRICH_MODES,
    PROVIDERS,
)
from prioris.config.search import FUSION_METHODS
from prioris.config.servers import TRANSPORTS
from prioris.config.settings import _KEYWORD_VARIABLES, Settings, keyword_settings, load_settings

__all__ = [
    "DAY",
    "DEFAULT_MAX_MARKUP_BYTES",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_MIN_INTERVALS",
    "ENRICH_MODES",
    "FUSION_METHODS",
    "OCR_MODES",
    "POSTGRES_URL_PREFIXES",
    "PROVIDERS",
    "RANGES",
    "TRANSPORTS",
    "_KEYWORD_VARIABLES",
    "Settings",
    "is_postgres_url",
    "keyword_settings",
    "load_settings",
]
