"""DOI -> provider identifier, with one request to the resolver and a host allowlist.

SPEC section 8 and 10: the resolver's redirect is read, never followed. Only when its
``Location`` points at arXiv, Europe PMC or PubMed Central is an identifier returned
(the caller then talks to that provider's API); anything else is UnsupportedProviderError
and nothing more is requested. DataCite arXiv DOIs (``10.48550/arXiv.X``) map to arXiv
without any request.
"""

from __future__ import annotations

from urllib.parse import quote, urljoin, urlsplit

from prioris.errors import InvalidRequestError, ProviderUnavailableError, UnsupportedProviderError
from prioris.identifiers import Identifier, arxiv_id_from_doi, parse_identifier
from prioris.sources.http import ProviderHttp

ALLOWED_HOSTS = frozenset(
    {
        "arxiv.org",
        "www.arxiv.org",
        "export.arxiv.org",
        "europepmc.org",
        "www.europepmc.org",
        "www.ebi.ac.uk",
        "www.ncbi.nlm.nih.gov",
        "pmc.ncbi.nlm.nih.gov",
    }
)
"""Redirect targets Prioris may act on: arXiv, Europe PMC and PubMed Central."""


class DoiResolver:
    """Resolve a DOI through ``{resolver_url}/{doi}`` without following the redirect."""

    def __init__(self, http: ProviderHttp, resolver_url: str) -> None:
        self.http = http
        self.resolver_url = resolver_url.rstrip("/")

    def resolve(self, doi: str) -> Identifier:
        """The arXiv or Europe PMC identifier a DOI redirects to.

        Raises UnsupportedProviderError when the target is off the allowlist (publisher
        sites), NotFoundError for unknown DOIs (resolver 404), InvalidRequestError for
        input that is not a DOI.
        """
        ident = parse_identifier(doi)
        if ident.scheme != "doi":
            raise InvalidRequestError(f"{doi!r} is not a DOI")
        arxiv = arxiv_id_from_doi(ident.value)
        if arxiv:
            return Identifier("arxiv", arxiv)
        url = f"{self.resolver_url}/{quote(ident.value, safe='/')}"
        response = self.http.get(url, allow_redirect_status=True)
        location = response.headers.get("Location")
        if not response.is_redirect or not location:
            raise ProviderUnavailableError(
                f"doi: the resolver did not redirect doi:{ident.value} (HTTP "
                f"{response.status_code})"
            )
        try:
            target = urljoin(url, location)
            parts = urlsplit(target)
            host = (parts.hostname or "").lower()
        except ValueError:  # e.g. an unclosed IPv6 bracket
            raise ProviderUnavailableError(
                f"doi: the resolver redirected doi:{ident.value} to {location!r}, not a URL"
            ) from None
        if parts.scheme not in ("http", "https") or host not in ALLOWED_HOSTS:
            raise UnsupportedProviderError(
                f"doi:{ident.value} resolves to {host or target!r}, which is not arXiv, "
                "Europe PMC or PubMed Central; Prioris does not fetch from other sites "
                "(download the PDF yourself and ingest it)"
            )
        try:
            found = parse_identifier(target)
        except InvalidRequestError:
            found = None
        if found is None or found.scheme not in ("arxiv", "europepmc"):
            raise UnsupportedProviderError(
                f"doi:{ident.value} resolves to {target}, which names no arXiv id or PMCID"
            )
        return found
