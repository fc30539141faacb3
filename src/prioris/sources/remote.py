"""RemoteSources: the one object the Library uses for remote work (resolve, metadata, fetch).

It owns one ``httpx.Client`` and one :class:`ProviderHttp` per provider (so each provider
keeps its own spacing), the arXiv and Europe PMC clients, the DOI resolver and, lazily,
an OpenAlex client. Routing (SPEC section 8):

* arXiv ids -> arXiv metadata (an unversioned id becomes the latest version) and the PDF,
  or the HTML paper when ``format="html"``;
* Europe PMC ids -> Europe PMC metadata and, when Europe PMC hosts it, the JATS XML;
  a PMID whose record has a PMCID becomes that PMC work;
* DOIs -> one resolver request; an arXiv / PMC target is fetched from its provider,
  anything else is ``unsupported_provider``;
* OpenAlex ids -> the OpenAlex work, then its arXiv id or PMCID when it has one; else
  the OpenAlex metadata (with the abstract) and no full text.

When a work is reached through a DOI or OpenAlex, those identifiers are added to its
aliases so the library links them to the same work.
"""

from __future__ import annotations

from typing import Any

import httpx

from prioris.config import Settings
from prioris.errors import (
    FormatUnavailableError,
    InvalidRequestError,
    UnsupportedProviderError,
)
from prioris.identifiers import Identifier, arxiv_id_from_doi, parse_identifier
from prioris.models import FullText, Work
from prioris.sources.arxiv import ArxivClient
from prioris.sources.doi import DoiResolver
from prioris.sources.europepmc import EuropePmcClient
from prioris.sources.http import Clock, ProviderHttp, make_client

ARXIV_FORMATS = ("pdf", "html")
EUROPEPMC_FORMATS = ("xml",)


def _route_of(work: Work) -> Identifier | None:
    """A provider id (arXiv first, then PMCID) among a work's aliases, else None."""
    parsed: list[Identifier] = []
    for alias in [work.id, *work.aliases]:
        try:
            parsed.append(parse_identifier(alias))
        except InvalidRequestError:
            continue
    for ident in parsed:
        if ident.scheme == "arxiv":
            return ident
        if ident.scheme == "doi" and arxiv_id_from_doi(ident.value):
            return Identifier("arxiv", arxiv_id_from_doi(ident.value) or "")
    for ident in parsed:
        if ident.scheme == "europepmc" and ident.value.startswith("PMC"):
            return ident
    return None


def _merge_aliases(work: Work, *aliases: str) -> Work:
    for alias in aliases:
        if work.id.startswith("arxiv:") and alias.startswith("arxiv:"):
            continue  # the arXiv work's own (versioned) id already covers it
        if alias and alias != work.id and alias not in work.aliases:
            work.aliases.append(alias)
    return work


class RemoteSources:
    """Remote providers behind one facade; ``transport`` and ``clock`` are the test seams."""

    def __init__(
        self,
        settings: Settings,
        transport: httpx.BaseTransport | None = None,
        clock: Clock | None = None,
        *,
        openalex: Any = None,
    ) -> None:
        self.settings = settings
        self.clock = clock
        self.client = make_client(settings, transport)
        self.arxiv = ArxivClient(
            self._http("arxiv"),
            settings.arxiv_api_url,
            settings.arxiv_site_url,
            settings.arxiv_oai_url,
            max_pdf_bytes=settings.max_file_bytes,
            max_html_bytes=settings.max_markup_bytes,
        )
        self.europepmc = EuropePmcClient(
            self._http("europepmc"),
            settings.europepmc_base_url,
            max_xml_bytes=settings.max_markup_bytes,
        )
        self.doi = DoiResolver(self._http("doi"), settings.doi_resolver_url)
        self._openalex = openalex

    def _http(self, provider: str, *, retry_server_errors: bool = False) -> ProviderHttp:
        return ProviderHttp(
            provider,
            self.client,
            min_interval=self.settings.min_intervals.get(provider, 0.0),
            backoff_budget=self.settings.backoff_budget_seconds,
            clock=self.clock,
            max_response_bytes=self.settings.max_response_bytes,
            retry_server_errors=retry_server_errors,
        )

    @property
    def openalex(self) -> Any:
        """The OpenAlex client (built on first use); UnsupportedProviderError if unavailable."""
        if self._openalex is None:
            try:
                from prioris.sources.openalex import OpenAlexClient
            except ImportError as exc:
                raise UnsupportedProviderError("OpenAlex support is not available") from exc
            self._openalex = OpenAlexClient(
                self._http("openalex"),
                self.settings.openalex_base_url,
                self.settings.openalex_api_key,
                semantic_http=self._http("discovery"),
            )
        return self._openalex

    def openalex_graph(self, cache: Any, budget: Any) -> Any:
        """A new :class:`~prioris.sources.openalex_graph.OpenAlexGraph` over this client,
        with the given cache and daily budget (ConfigurationError without an API key)."""
        from prioris.sources.openalex_graph import OpenAlexGraph

        return OpenAlexGraph(
            self._http("openalex", retry_server_errors=True),  # a walk outlives a blip
            self.settings.openalex_base_url,
            self.settings.openalex_api_key,
            cache=cache,
            budget=budget,
        )

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> RemoteSources:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @staticmethod
    def _parse(identifier: str | Identifier) -> Identifier:
        ident = identifier if isinstance(identifier, Identifier) else parse_identifier(identifier)
        if ident.scheme == "file":
            raise InvalidRequestError(
                f"{ident.canonical} is a local file; it cannot be fetched from a provider"
            )
        if ident.scheme == "pmid":
            return Identifier("europepmc", f"MED:{ident.value}")
        return ident

    def _route(self, ident: Identifier) -> tuple[Identifier, list[str], Work | None]:
        """(provider id, aliases met on the way, OpenAlex work when it had no route)."""
        if ident.scheme == "doi":
            return self.doi.resolve(ident.value), [ident.canonical], None
        if ident.scheme == "openalex":
            work = self.openalex.get_work(ident.value)
            route = _route_of(work)
            if route is None:
                return ident, [], work
            return route, [a for a in [work.id, *work.aliases] if a], None
        return ident, [], None

    def resolve(self, text: str | Identifier) -> Identifier:
        """The provider identifier Prioris would fetch for ``text``.

        DOIs go through the resolver (one request, allowlisted hosts); OpenAlex works are
        routed to their arXiv id or PMCID when they have one (else stay OpenAlex). arXiv and
        Europe PMC ids are returned as parsed, without a request.
        """
        ident, _, _ = self._route(self._parse(text))
        return ident

    def resolve_full_text(self, ident: Identifier, format: str | None = None) -> dict[str, Any]:
        """PriorisMCP's resolution of an arXiv or Europe PMC id: its canonical id (arXiv:
        versioned, asking arXiv for the latest version of an unversioned id; Europe PMC:
        ``PMC:{n}``), the URL of its full text, the format and, for Europe PMC, whether it
        hosts that full text. The format of an arXiv id must be pdf or html."""
        if ident.scheme == "arxiv":
            fmt = (format or "pdf").strip().lower()
            if fmt not in ARXIV_FORMATS:
                raise InvalidRequestError(
                    f"arXiv offers {' or '.join(ARXIV_FORMATS)}, not {format!r}"
                )
            value = ident.value
            if ident.version is None:
                value = self.arxiv.fetch_metadata([value])[0].extra["arxiv_id"]
            return {
                "provider": "arxiv",
                "identifier": value,
                "resolved_url": f"{self.arxiv.site_url}/{fmt}/{value}",
                "format": fmt,
            }
        if ident.scheme == "europepmc":
            work = self.europepmc.fetch_metadata([ident.canonical])[0]
            pmcid = work.extra.get("pmcid")
            if not pmcid:
                raise FormatUnavailableError(
                    f"Europe PMC record {ident.value} has no PMCID, so no full text"
                )
            return {
                "provider": "europepmc",
                "identifier": f"PMC:{pmcid[3:]}",
                "resolved_url": f"{self.europepmc.base_url}/{pmcid}/fullTextXML",
                "format": "xml",
                "full_text_available": bool(work.extra.get("in_epmc")),
            }
        raise UnsupportedProviderError(f"no provider serves {ident.canonical}")

    def _metadata(self, ident: Identifier) -> Work:
        if ident.scheme == "arxiv":
            return self.arxiv.fetch_metadata([ident.value])[0]
        if ident.scheme == "europepmc":
            return self.europepmc.fetch_metadata([ident.canonical])[0]
        raise UnsupportedProviderError(f"no provider serves {ident.canonical}")

    def fetch_metadata(self, identifier: str | Identifier) -> Work:
        """Metadata of one work from its owning provider (after DOI/OpenAlex routing)."""
        ident, met, openalex_work = self._route(self._parse(identifier))
        if openalex_work is not None:
            return openalex_work
        return _merge_aliases(self._metadata(ident), *met)

    def fetch(
        self, identifier: str | Identifier, format: str | None = None
    ) -> tuple[Work, FullText | None]:
        """Metadata and full text of one work.

        ``format``: arXiv ``pdf`` (default) or ``html`` (FormatUnavailableError when arXiv
        has none); Europe PMC ``xml`` (default when hosted; full text None when Europe PMC
        does not host it and no format was asked for). An OpenAlex work without an arXiv or
        PMC route comes back with its metadata and no full text.
        """
        fmt = format.lower().strip() if format else None
        ident, met, openalex_work = self._route(self._parse(identifier))
        if openalex_work is not None:
            if fmt:
                raise FormatUnavailableError(
                    f"{ident.canonical} has no arXiv or PubMed Central copy; only its metadata "
                    "is available (upload the PDF to add the full text)"
                )
            return openalex_work, None
        if ident.scheme == "arxiv":
            if fmt not in (None, *ARXIV_FORMATS):
                raise FormatUnavailableError(
                    f"arXiv offers {' or '.join(ARXIV_FORMATS)}, not {fmt!r}"
                )
            work = _merge_aliases(self._metadata(ident), *met)
            version_id = work.extra.get("arxiv_id") or ident.value
            if fmt == "html":
                return work, self.arxiv.fetch_html(version_id)
            return work, self.arxiv.fetch_pdf(version_id)
        if ident.scheme == "europepmc":
            if fmt not in (None, *EUROPEPMC_FORMATS):
                raise FormatUnavailableError(f"Europe PMC offers JATS 'xml', not {fmt!r}")
            work = _merge_aliases(self._metadata(ident), *met)
            pmcid = work.extra.get("pmcid")
            if not pmcid or not work.extra.get("in_epmc"):
                if fmt:
                    raise FormatUnavailableError(
                        f"Europe PMC does not host the full text of {work.id}"
                    )
                return work, None
            try:
                return work, self.europepmc.fetch_full_text(pmcid)
            except FormatUnavailableError:
                if fmt:
                    raise
                return work, None
        raise UnsupportedProviderError(f"no provider serves {ident.canonical}")
