"""The remote providers: their URLs, the OpenAlex key, cache and daily budget, request
spacing, back-off, timeouts, answer size caps, and whether ingest enriches from them.

Separate because these are the settings of every request Prioris sends over the network
(``sources/http.py`` and the providers read them); nothing here touches local files.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from prioris.config.parsing import _choice, _integer, _number, _url

ENRICH_MODES = ("auto", "off")
PROVIDERS = ("arxiv", "europepmc", "openalex", "discovery")
DEFAULT_MIN_INTERVALS = {"arxiv": 3.0, "europepmc": 1.0, "openalex": 0.1, "discovery": 1.0}
DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024
"""Decoded size cap of an API answer (JSON, Atom, OAI-PMH); the largest real ones are ~10 MB."""
DEFAULT_MAX_MARKUP_BYTES = 50 * 1024 * 1024
"""Decoded size cap of a JATS XML or arXiv HTML full text (real ones: a few MB)."""


@dataclass(frozen=True)
class ProviderSettings:
    """How Prioris talks to arXiv, Europe PMC, OpenAlex and the DOI resolver."""

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
    # the cache's size bound (bodies, bytes): past it the oldest answers go first
    openalex_cache_max_bytes: int = 256 << 20
    # in accounts mode, the requests one account may take of the library's daily budget
    openalex_account_daily_budget: int = 250
    doi_resolver_url: str = "https://doi.org"
    min_intervals: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MIN_INTERVALS))
    backoff_budget_seconds: float = 60.0
    http_timeout_seconds: float = 30.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_markup_bytes: int = DEFAULT_MAX_MARKUP_BYTES
    enrich: str = "auto"


def provider_settings(env: Mapping[str, str]) -> ProviderSettings:
    """The providers' settings from ``env``; the request spacing is read first."""
    d = ProviderSettings
    intervals = {
        provider: _number(env, f"PRIORIS_MCP_{provider.upper()}_MIN_INTERVAL_SECONDS", default)
        for provider, default in DEFAULT_MIN_INTERVALS.items()
    }
    return ProviderSettings(
        openalex_api_key=(env.get("PRIORIS_MCP_OPENALEX_API_KEY") or "").strip() or None,
        arxiv_api_url=_url(env, "PRIORIS_MCP_ARXIV_API_URL", d.arxiv_api_url),
        arxiv_site_url=_url(env, "PRIORIS_MCP_ARXIV_SITE_URL", d.arxiv_site_url),
        arxiv_oai_url=_url(env, "PRIORIS_MCP_ARXIV_OAI_URL", d.arxiv_oai_url),
        europepmc_base_url=_url(env, "PRIORIS_MCP_EUROPEPMC_BASE_URL", d.europepmc_base_url),
        openalex_base_url=_url(env, "PRIORIS_MCP_OPENALEX_BASE_URL", d.openalex_base_url),
        openalex_cache_days=_integer(env, "PRIORIS_MCP_OPENALEX_CACHE_DAYS", 30),
        openalex_daily_budget=_integer(env, "PRIORIS_MCP_OPENALEX_DAILY_BUDGET", 1000),
        openalex_cache_max_bytes=_integer(
            env, "PRIORIS_MCP_OPENALEX_CACHE_MAX_BYTES", d.openalex_cache_max_bytes
        ),
        openalex_account_daily_budget=_integer(
            env, "PRIORIS_MCP_OPENALEX_ACCOUNT_DAILY_BUDGET", d.openalex_account_daily_budget
        ),
        doi_resolver_url=_url(env, "PRIORIS_MCP_DOI_RESOLVER_URL", d.doi_resolver_url),
        min_intervals=intervals,
        backoff_budget_seconds=_number(env, "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS", 60.0),
        http_timeout_seconds=_number(env, "PRIORIS_MCP_HTTP_TIMEOUT_SECONDS", 30.0),
        max_response_bytes=_integer(
            env, "PRIORIS_MCP_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE_BYTES
        ),
        max_markup_bytes=_integer(env, "PRIORIS_MCP_MAX_MARKUP_BYTES", DEFAULT_MAX_MARKUP_BYTES),
        enrich=_choice(env, "PRIORIS_MCP_ENRICH", ENRICH_MODES, "auto"),
    )
