"""The one :class:`Settings`, composed of the areas, and the two ways to build it: from the
environment and config file (:func:`load_settings`) and from Python keywords
(:func:`keyword_settings`).

Separate from the areas because it is the only module that knows them all: it assembles
their readers' results into one flat object and maps a keyword to the variable it stands
for, so an area can be added or changed without touching the others.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from prioris.config.cluster import ClusterSettings, cluster_settings
from prioris.config.database import DatabaseSettings, database_settings, is_postgres_url
from prioris.config.limits import InputLimits, input_limits
from prioris.config.mail import MailSettings, mail_settings
from prioris.config.model import ModelSettings, model_settings
from prioris.config.providers import DEFAULT_MIN_INTERVALS, ProviderSettings, provider_settings
from prioris.config.search import SearchSettings, search_settings
from prioris.config.servers import ServerSettings, server_settings
from prioris.errors import ConfigurationError


# Fields come from the LAST base first: DatabaseSettings' data_dir and db_path (the two
# without a default) open the field list, then the model, input limits, providers, servers,
# search, the cluster and the mail digest.
@dataclass(frozen=True)
class Settings(
    MailSettings,
    ClusterSettings,
    SearchSettings,
    ServerSettings,
    ProviderSettings,
    InputLimits,
    ModelSettings,
    DatabaseSettings,
):
    """Everything configurable, with the defaults of SPEC section 2."""

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


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read and validate every ``PRIORIS_MCP_*`` variable; raise ConfigurationError if bad.

    The config file's values are merged underneath the environment first, so every setting
    read below gets file support without knowing about it; an error about a value that came
    from the file names the file and key, and a key no setting read is refused."""
    from prioris.config_file import load_with_config_file

    return load_with_config_file(os.environ if env is None else env, _settings_from)


def _settings_from(env: Mapping[str, str]) -> Settings:
    # of several bad values the first read is the one reported: the areas go in about the
    # order their variables were read before the split (request spacing, fusion, OCR, ...)
    areas: list[Any] = [
        provider_settings(env),
        search_settings(env),
        input_limits(env),
        server_settings(env),
        model_settings(env),
        database_settings(env),
        cluster_settings(env),
        mail_settings(env),
    ]
    return Settings(**{f.name: getattr(a, f.name) for a in areas for f in dataclasses.fields(a)})


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
