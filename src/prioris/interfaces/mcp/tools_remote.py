"""MCP tools over the remote providers: arXiv, Europe PMC, OpenAlex, identifiers, discovery.

Search and metadata tools store nothing; ``*_fetch_full_text`` goes through
``Library.fetch`` (metadata + full text from the owning provider, then ingest). Every
body is a Library call in a worker thread plus reshaping into a schema model.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.identifiers import arxiv_id_from_doi, parse_identifier
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Query = Annotated[str, Field(min_length=1, max_length=2000, description="search text")]
IdList = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=500)]],
    Field(min_length=1, max_length=100, description="identifiers (1-100)"),
]
Year = Annotated[int | None, Field(ge=1000, le=3000, description="publication year bound")]
ArxivFormat = Literal["pdf", "html"]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True)
STORES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)


def _error_class(code: str) -> type[PriorisError]:
    """The PriorisError subclass that carries ``code`` (so a failure keeps its code)."""
    pending: list[type[PriorisError]] = [PriorisError]
    while pending:
        cls = pending.pop()
        if cls.code == code and cls is not PriorisError:
            return cls
        pending.extend(cls.__subclasses__())
    return PriorisError


def _fetch_output(summary: Any, identifier: str) -> s.FetchOut:
    """Reshape Library.fetch's summary; a fetch where everything failed is a tool error."""
    results = [s.ingest_out(r) for r in [*summary.ingested, *summary.skipped]]
    failures = [
        s.FetchFailureOut(
            identifier=f.get("path") or identifier,
            code=f["error"]["code"],
            message=f["error"]["message"],
        )
        for f in summary.failed
    ]
    if failures and not results:
        raise _error_class(failures[0].code)(failures[0].message)
    return s.FetchOut(results=results, failed=failures)


def _check_provider(identifier: str, provider: str) -> str:
    """Refuse an id that another provider owns, naming the tool that serves it."""
    ident = parse_identifier(identifier)
    scheme = ident.scheme
    if scheme == "doi" and arxiv_id_from_doi(ident.value):
        scheme = "arxiv"
    if scheme == "pmid":
        scheme = "europepmc"
    if scheme != provider:
        tool = {
            "arxiv": "research_arxiv_fetch_full_text",
            "europepmc": "research_europepmc_fetch_full_text",
            "file": "research_localfile_fetch_full_text",
        }.get(scheme, "research_resolve_identifier")
        raise InvalidRequestError(
            f"{identifier!r} is a {scheme} identifier, not {provider}; use {tool}"
        )
    return ident.canonical


def register_remote_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the arXiv, Europe PMC, OpenAlex, resolve and discovery tools to ``server``."""

    def remote() -> Any:
        return state.library().remote

    async def fetch(identifier: str, provider: str, fmt: str | None) -> s.FetchOut:
        canonical = _check_provider(identifier, provider)
        library = await blocking(state.library)
        result = await blocking(library.fetch, [canonical], format=fmt)
        return _fetch_output(result, canonical)

    # -- arXiv -------------------------------------------------------------------------
    @server.tool(name="research_arxiv_search", annotations=READ_ONLY)
    @prioris_tool
    async def arxiv_search(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description=(
                    "arXiv query: plain words, or field syntax such as 'ti:transformer AND "
                    "cat:cs.CL', 'au:hinton'"
                ),
            ),
        ],
        start: Annotated[int, Field(ge=0, le=29999, description="offset of the first result")] = 0,
        max_results: Annotated[int, Field(ge=1, le=2000, description="page size")] = 10,
        sort_by: Literal["relevance", "lastUpdatedDate", "submittedDate"] = "relevance",
        sort_order: Literal["ascending", "descending"] = "descending",
    ) -> s.ArxivSearchOut:
        """Search arXiv (remote; nothing is stored). Use it to find preprints by topic,
        title, author or category. Returns `total`, `results` (id, title, authors, year,
        abstract, categories in `extra`) and `next` (the `start` of the next page, null on
        the last). Store a result with research_arxiv_fetch_full_text."""
        feed = await blocking(
            lambda: remote().arxiv.search(
                query, start=start, max_results=max_results, sort_by=sort_by, sort_order=sort_order
            )
        )
        end = feed.start + len(feed.works)
        following = end if feed.works and end < min(feed.total, 30000) else None
        return s.ArxivSearchOut(
            total=feed.total, start=feed.start, results=s.works(feed.works), next=following
        )

    @server.tool(name="research_arxiv_list_top_n", annotations=READ_ONLY)
    @prioris_tool
    async def arxiv_list_top_n(
        categories: Annotated[
            list[str],
            Field(
                min_length=1,
                max_length=20,
                description=(
                    "arXiv categories such as cs.AI, q-bio.NC (see resource research://arxiv/"
                    "categories)"
                ),
            ),
        ],
        n: Annotated[int, Field(ge=1, le=200, description="how many newest papers")] = 10,
        exclude: Annotated[
            list[str],
            Field(
                max_length=500,
                description=("categories to leave out (cs.CV) and/or arXiv ids already seen"),
            ),
        ] = [],  # noqa: B006
    ) -> s.WorkListOut:
        """The newest `n` arXiv submissions in any of `categories` (remote; nothing is
        stored), newest first. Use it for 'what is new in cs.CL'. `exclude` drops
        categories or ids you have already seen (still returning `n` when arXiv has them).
        """
        found = await blocking(lambda: remote().arxiv.list_top_n(categories, n, exclude))
        return s.WorkListOut(results=s.works(found))

    @server.tool(name="research_arxiv_fetch_metadata", annotations=READ_ONLY)
    @prioris_tool
    async def arxiv_fetch_metadata(ids: IdList) -> s.MetadataOut:
        """Metadata of arXiv papers by id (2401.01234, 2401.01234v2, hep-th/9901001, arXiv
        URLs); remote, nothing stored. Unversioned ids give the latest version. Returns the
        records found in input order and `missing` ids arXiv does not know."""
        found, missing = await blocking(lambda: remote().arxiv.fetch_metadata_report(ids))
        return s.MetadataOut(results=s.works(found), missing=missing)

    @server.tool(name="research_arxiv_fetch_full_text", annotations=STORES)
    @prioris_tool
    async def arxiv_fetch_full_text(
        id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=500,
                description=(
                    "arXiv id or URL (2401.01234, arXiv:2401.01234v2, https://arxiv.org/abs/...)"
                ),
            ),
        ],
        format: Annotated[
            ArxivFormat,
            Field(
                description=(
                    "pdf (always available) or html (arXiv's HTML rendering; format_unavailable "
                    "when arXiv has none)"
                )
            ),
        ] = "pdf",
    ) -> s.FetchOut:
        """Download an arXiv paper (metadata + full text), store and index it in the
        library. Fetching what is already stored is a no-op (status 'skipped'). Returns the
        work `id`, pages and chunks; then read it with research_arxiv_parse_full_text or
        search it with research_search_fetched."""
        return await fetch(id, "arxiv", format)

    # -- Europe PMC ----------------------------------------------------------------------
    @server.tool(name="research_europepmc_search", annotations=READ_ONLY)
    @prioris_tool
    async def europepmc_search(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description=(
                    'Europe PMC query: words or its syntax (TITLE:"...", AUTH:"...", '
                    "OPEN_ACCESS:y, PUB_YEAR:[2020 TO 2024])"
                ),
            ),
        ],
        page_size: Annotated[int, Field(ge=1, le=1000, description="results per page")] = 25,
        cursor: Annotated[
            str,
            Field(
                min_length=1,
                max_length=500,
                description=("'*' for the first page, else `next` from the previous page"),
            ),
        ] = "*",
    ) -> s.EuropePmcSearchOut:
        """Search Europe PMC (biomedical literature and preprints; remote, nothing stored).
        Results carry pmid/pmcid, whether Europe PMC hosts the full text (`extra.in_epmc`)
        and `is_preprint`. `next` is the cursor of the following page (null on the last)."""
        page = await blocking(
            lambda: remote().europepmc.search(query, page_size=page_size, cursor=cursor)
        )
        return s.EuropePmcSearchOut(
            total=page.total, results=s.works(page.works), next=page.next_cursor
        )

    @server.tool(name="research_europepmc_fetch_metadata", annotations=READ_ONLY)
    @prioris_tool
    async def europepmc_fetch_metadata(ids: IdList) -> s.MetadataOut:
        """Metadata of Europe PMC records by PMCID (PMC1234567), PMID (MED:12345678 or
        pmid:12345678) or source:id; remote, nothing stored. Returns records in input order
        and `missing` ids."""
        found, missing = await blocking(lambda: remote().europepmc.fetch_metadata_report(ids))
        return s.MetadataOut(results=s.works(found), missing=missing)

    @server.tool(name="research_europepmc_fetch_full_text", annotations=STORES)
    @prioris_tool
    async def europepmc_fetch_full_text(
        id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=500,
                description=(
                    "PMCID (PMC1234567) or PMID (MED:12345678); europepmc: prefix optional"
                ),
            ),
        ],
    ) -> s.FetchOut:
        """Download a Europe PMC article (metadata + JATS XML full text when Europe PMC
        hosts it), store and index it. Without a hosted full text only the metadata and
        abstract are stored. Returns the work `id`; read it with
        research_europepmc_parse_full_text."""
        return await fetch(id, "europepmc", None)

    # -- OpenAlex, identifiers, discovery ------------------------------------------------
    @server.tool(name="research_openalex_search", annotations=READ_ONLY)
    @prioris_tool
    async def openalex_search(
        query: Query,
        sort: Literal["relevance", "citations"] = "relevance",
        page: Annotated[int, Field(ge=1, le=10000, description="1-based page")] = 1,
        per_page: Annotated[int, Field(ge=1, le=200, description="results per page")] = 25,
        from_year: Year = None,
        to_year: Year = None,
    ) -> s.OpenAlexSearchOut:
        """Keyword search over OpenAlex (all disciplines, with citation counts, open-access
        status and concepts); remote, nothing stored. Sort by relevance or citations.
        Works with an arXiv id or PMCID among `aliases` can be fetched with the arXiv or
        Europe PMC tools."""
        result = await blocking(
            lambda: state.library().openalex_search(
                query, sort=sort, page=page, per_page=per_page, from_year=from_year, to_year=to_year
            )
        )
        return s.OpenAlexSearchOut.model_validate(s.as_dict(result))

    @server.tool(name="research_resolve_identifier", annotations=READ_ONLY)
    @prioris_tool
    async def resolve_identifier(
        id: Annotated[
            str,
            Field(
                min_length=1,
                max_length=500,
                description=(
                    "any pasted identifier: arXiv id/URL, PMCID, PMID, DOI or doi.org URL, "
                    "OpenAlex W-id/URL, file:<hex>"
                ),
            ),
        ],
    ) -> s.ResolveOut:
        """Normalise an identifier and say which provider serves it and whether the library
        already holds it. DOIs are resolved through doi.org (one request, only to arXiv /
        Europe PMC / PubMed Central; others are unsupported_provider) and OpenAlex ids to
        their arXiv id or PMCID when they have one."""

        def run() -> s.ResolveOut:
            library = state.library()
            ident = parse_identifier(id)
            if ident.scheme in ("doi", "openalex"):
                ident = library.remote.resolve(ident)
            work_id = None
            for candidate in (id, ident.canonical):
                try:
                    work_id = library.resolve_work_id(candidate)
                    break
                except NotFoundError:
                    continue
            return s.ResolveOut(
                input=id,
                id=ident.canonical,
                provider=ident.scheme,
                in_library=work_id is not None,
                work_id=work_id,
            )

        return await blocking(run)

    @server.tool(name="research_discovery", annotations=READ_ONLY)
    @prioris_tool
    async def discovery(
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description=(
                    "a description of what you are looking for: a question, an abstract, a "
                    "paragraph (semantic match, not keywords)"
                ),
            ),
        ],
        from_year: Year = None,
        to_year: Year = None,
        open_access_only: Annotated[bool, Field(description="only open-access works")] = False,
        page: Annotated[int, Field(ge=1, description="1-based page")] = 1,
        per_page: Annotated[int, Field(ge=1, le=50, description="results per page")] = 25,
    ) -> s.DiscoveryOut:
        """Find papers related to a text by meaning (OpenAlex semantic search; needs
        PRIORIS_MCP_OPENALEX_API_KEY, else configuration_error). Each result says whether
        it is `in_library` and its `fetch_route`: an arXiv id or PMCID to pass to the fetch
        tools, an open-access pdf_url (not downloaded), or manual_upload."""
        result = await blocking(
            lambda: state.library().discover(
                text,
                page=page,
                per_page=per_page,
                from_year=from_year,
                to_year=to_year,
                open_access_only=open_access_only,
            )
        )
        return s.DiscoveryOut.model_validate(s.as_dict(result))
