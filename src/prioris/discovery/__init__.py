"""Discovery of works not yet in the library (OpenAlex semantic search) and the fetch ladder.

Depends on :mod:`prioris.sources.openalex` only; never on storage, ingest or search.
"""

from prioris.discovery.routes import best_oa_pdf, fetch_route, is_https_url
from prioris.discovery.service import (
    DiscoveryHit,
    DiscoveryPage,
    DiscoveryService,
    KnownAliases,
    validate_request,
)

__all__ = [
    "DiscoveryHit",
    "DiscoveryPage",
    "DiscoveryService",
    "KnownAliases",
    "best_oa_pdf",
    "fetch_route",
    "is_https_url",
    "validate_request",
]
