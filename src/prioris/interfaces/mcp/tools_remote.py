"""MCP tools over arXiv and Europe PMC: search, metadata, and fetching full text.

Argument names, defaults and output fields are PriorisMCP 0.1.1's (``arxiv_ids``,
``include_categories``, ``cursor_mark``, ``not_found``, ``hit_count``, ``location`` ...);
Prioris's own shorter argument names still work beside them (:func:`one_of`), and its own
output fields sit beside PriorisMCP's. Search and metadata tools store nothing;
``*_fetch_full_text`` stores and indexes through ``Library.artefacts.fetch``. Every body is
a Library call in a worker thread plus reshaping into a schema model.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import InvalidRequestError
from prioris.identifiers import arxiv_id_from_doi, parse_identifier
from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import (
    PriorisMCPServer,
    ServerState,
    blocking,
    one_of,
    prioris_tool,
)

QueryText = Annotated[str, Field(min_length=1, max_length=2000)]
Ids = list[Annotated[str, Field(min_length=1, max_length=500)]]
OneId = Annotated[str | None, Field(min_length=1, max_length=500)]

READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True)
STORES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=True
)
FETCH_TOOL = {
    "arxiv": "research_arxiv_fetch_full_text",
    "europepmc": "research_europepmc_fetch_full_text",
    "file": "research_localfile_fetch_full_text",
}


def check_provider(identifier: str, provider: str) -> str:
    """The canonical id of ``identifier``; an id another provider owns is invalid_request
    naming the tool that serves it."""
    ident = parse_identifier(identifier)
    scheme = ident.scheme
    if scheme == "doi" and arxiv_id_from_doi(ident.value):
        scheme = "arxiv"
    if scheme == "pmid":
        scheme = "europepmc"
    if scheme != provider:
        tool = FETCH_TOOL.get(scheme, "research_resolve_identifier")
        raise InvalidRequestError(
            f"{identifier!r} is a {scheme} identifier, not {provider}; use {tool}"
        )
    return ident.canonical


def _ids(
    reference: str, value: list[str] | None, alias: str, alias_value: list[str] | None
) -> list[str]:
    ids = one_of(reference, value, alias, alias_value)
    if not 1 <= len(ids) <= 100:
        raise InvalidRequestError(f"{reference} takes 1 to 100 identifiers (got {len(ids)})")
    return ids


def fetch_out(stored: dict[str, Any]) -> r.FetchOut:
    result = stored.pop("result")
    return r.FetchOut(**stored, id=result.id, results=[s.ingest_out(result)], failed=[])


def register_remote_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the arXiv and Europe PMC tools to ``server``."""

    def remote() -> Any:
        return state.library().remote

    async def fetch(identifier: str, provider: str, fmt: str | None) -> r.FetchOut:
        canonical = check_provider(identifier, provider)
        stored = await blocking(lambda: state.library().artefacts.fetch(canonical, fmt))
        return fetch_out(stored)

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
                    "arXiv search_query syntax: ti/au/abs/co/jr/cat/rn/all prefixes with "
                    "AND/OR/ANDNOT ('ti:transformer AND cat:cs.CL'); plain words also work"
                ),
            ),
        ],
        max_results: Annotated[int, Field(ge=1, le=2000, description="page size (<= 2000)")] = 10,
        start: Annotated[
            int, Field(ge=0, le=29999, description="offset; start + max_results <= 30000")
        ] = 0,
        sort_by: Literal["relevance", "lastUpdatedDate", "submittedDate"] = "relevance",
        sort_order: Literal["ascending", "descending"] = "descending",
    ) -> r.ArxivSearchOut:
        """Search arXiv (remote; nothing is stored). Returns `results` (arXiv records:
        arxiv_id, title, authors, abstract, categories, primary_category, published,
        updated, pdf_url, doi, journal_ref, comment, plus Prioris's work fields) and
        `total_results`; `next` is the `start` of the following page (null on the last).
        Limits are checked before any request. Store a result with
        research_arxiv_fetch_full_text."""
        feed = await blocking(
            lambda: remote().arxiv.search(
                query, start=start, max_results=max_results, sort_by=sort_by, sort_order=sort_order
            )
        )
        end = feed.start + len(feed.works)
        following = end if feed.works and end < min(feed.total, 30000) else None
        return r.ArxivSearchOut(
            results=[r.arxiv_record(w) for w in feed.works],
            total_results=feed.total,
            total=feed.total,
            start=feed.start,
            next=following,
        )

    @server.tool(name="research_arxiv_list_top_n", annotations=READ_ONLY)
    @prioris_tool
    async def arxiv_list_top_n(
        include_categories: Annotated[
            list[str] | None,
            Field(
                min_length=1,
                max_length=20,
                description=(
                    "arXiv categories that every result has (AND), e.g. ['cs.CL']; see "
                    "research://arxiv/categories"
                ),
            ),
        ] = None,
        n: Annotated[
            int, Field(ge=1, description="how many newest papers (arXiv serves at most 2000)")
        ] = 10,
        exclude_categories: Annotated[
            list[str] | None,
            Field(max_length=500, description="categories to leave out (ANDNOT)"),
        ] = None,
        categories: Annotated[
            list[str] | None,
            Field(
                min_length=1,
                max_length=20,
                description=("Prioris: instead of include_categories, papers in ANY of these (OR)"),
            ),
        ] = None,
        exclude: Annotated[
            list[str] | None,
            Field(
                max_length=500,
                description="Prioris: categories and/or arXiv ids already seen, left out",
            ),
        ] = None,
    ) -> r.ArxivListOut:
        """The `n` most recently submitted arXiv papers (remote; nothing stored), newest
        first. `include_categories` are AND-joined (a paper must carry all of them);
        Prioris's `categories` takes papers in any of them instead. `exclude_categories`
        (and Prioris's `exclude`, which also takes arXiv ids already seen) leave papers
        out. Returns `results` and `total_results` (their count)."""
        if include_categories is not None and categories is not None:
            raise InvalidRequestError("give include_categories (all) or categories (any), not both")
        if include_categories is None and categories is None:
            raise InvalidRequestError("include_categories is required, e.g. ['cs.CL']")
        cats = include_categories if include_categories is not None else categories or []
        left_out = [*(exclude_categories or []), *(exclude or [])]
        found = await blocking(
            lambda: remote().arxiv.list_top_n(
                cats, n, left_out, match_all=include_categories is not None
            )
        )
        return r.ArxivListOut(results=[r.arxiv_record(w) for w in found], total_results=len(found))

    @server.tool(name="research_arxiv_fetch_metadata", annotations=READ_ONLY)
    @prioris_tool
    async def arxiv_fetch_metadata(
        arxiv_ids: Annotated[
            Ids | None,
            Field(description="arXiv ids, version optional (2401.01234, hep-th/9901001v1)"),
        ] = None,
        ids: Annotated[Ids | None, Field(description="Prioris: alias of arxiv_ids")] = None,
    ) -> r.ArxivMetadataOut:
        """Metadata of arXiv papers in one request (remote; nothing stored). Unversioned
        ids give the latest version. Returns the records found, in the order asked, and
        `not_found`: the ids (as given) arXiv does not know; a mixed batch still returns
        the others. Up to 100 ids."""
        wanted = _ids("arxiv_ids", arxiv_ids, "ids", ids)
        found, missing = await blocking(lambda: remote().arxiv.fetch_metadata_report(wanted))
        return r.ArxivMetadataOut(
            results=[r.arxiv_record(w) for w in found], not_found=missing, missing=missing
        )

    @server.tool(name="research_arxiv_fetch_full_text", annotations=STORES)
    @prioris_tool
    async def arxiv_fetch_full_text(
        arxiv_id: Annotated[
            OneId,
            Field(description="arXiv id or URL (2401.01234, 2401.01234v2, arxiv.org/abs/...)"),
        ] = None,
        format: Annotated[
            Literal["pdf", "html"],
            Field(description="pdf, or html (format_unavailable when arXiv has none)"),
        ] = "pdf",
        id: Annotated[OneId, Field(description="Prioris: alias of arxiv_id")] = None,
    ) -> r.FetchOut:
        """Download an arXiv paper (metadata + full text in `format`), store and index it;
        an unversioned id means the latest version. What is already stored is served from
        storage without a request (`served_from_storage`). Returns `location`, `format`,
        `size_bytes`, `resource_uri` (the stored bytes) and the work `id`; read the text
        with research_arxiv_parse_full_text, search it with research_search_fetched."""
        return await fetch(one_of("arxiv_id", arxiv_id, "id", id), "arxiv", format)

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
                    'Europe PMC query syntax: words, TITLE:"...", AUTH:"...", '
                    "OPEN_ACCESS:y, PUB_YEAR:[2020 TO 2024]"
                ),
            ),
        ],
        page_size: Annotated[
            int, Field(ge=1, le=1000, description="results per page (Europe PMC allows 1000)")
        ] = 25,
        cursor_mark: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=500,
                description="'*' for the first page, then the previous next_cursor_mark",
            ),
        ] = None,
        cursor: Annotated[
            str | None,
            Field(min_length=1, max_length=500, description="Prioris: alias of cursor_mark"),
        ] = None,
    ) -> r.EuropePmcSearchOut:
        """Search Europe PMC (biomedical literature and preprints; remote, nothing
        stored). Returns `results` (Europe PMC records: identifier, pmid, pmcid, doi,
        title, authors, abstract, journal, pub_year, is_open_access, license,
        full_text_available, plus Prioris's work fields), `hit_count` and
        `next_cursor_mark`: pass it back as `cursor_mark` for the next page (null on the
        last)."""
        given = cursor_mark is not None or cursor is not None
        mark = one_of("cursor_mark", cursor_mark, "cursor", cursor) if given else "*"
        page = await blocking(
            lambda: remote().europepmc.search(query, page_size=page_size, cursor=mark)
        )
        records = [r.europepmc_record(w) for w in page.works]
        return r.EuropePmcSearchOut(
            results=records,
            hit_count=page.total,
            next_cursor_mark=page.next_cursor,
            total=page.total,
            next=page.next_cursor,
        )

    @server.tool(name="research_europepmc_fetch_metadata", annotations=READ_ONLY)
    @prioris_tool
    async def europepmc_fetch_metadata(
        identifiers: Annotated[
            Ids | None,
            Field(description="Europe PMC ids: SRC:id (MED:26551875, PMC:4767193) or PMC4767193"),
        ] = None,
        ids: Annotated[Ids | None, Field(description="Prioris: alias of identifiers")] = None,
    ) -> r.EuropePmcMetadataOut:
        """Metadata of Europe PMC records in one query (remote; nothing stored). Returns
        the records found, in the order asked, and `not_found`: the identifiers (as given)
        Europe PMC does not know; a mixed batch still returns the others. Up to 100 ids;
        PMIDs (MED:123 or PMID:123) and DOIs also work."""
        wanted = _ids("identifiers", identifiers, "ids", ids)
        found, missing = await blocking(lambda: remote().europepmc.fetch_metadata_report(wanted))
        return r.EuropePmcMetadataOut(
            results=[r.europepmc_record(w) for w in found], not_found=missing, missing=missing
        )

    @server.tool(name="research_europepmc_fetch_full_text", annotations=STORES)
    @prioris_tool
    async def europepmc_fetch_full_text(
        identifier: Annotated[
            OneId,
            Field(description="Europe PMC id: PMC4767193, PMC:4767193, MED:26551875"),
        ] = None,
        metadata_fallback: Annotated[
            bool,
            Field(
                description=(
                    "Prioris: when Europe PMC does not host the full text, store the metadata "
                    "and abstract instead of failing with format_unavailable"
                )
            ),
        ] = False,
        id: Annotated[OneId, Field(description="Prioris: alias of identifier")] = None,
    ) -> r.FetchOut:
        """Download a Europe PMC article's JATS XML full text (when Europe PMC hosts it,
        else format_unavailable), with its metadata; store and index it. What is already
        stored is served from storage. Returns `location`, `format` (xml), `size_bytes`,
        `served_from_storage`, `resource_uri` and the work `id`; read it with
        research_europepmc_parse_full_text."""
        wanted = one_of("identifier", identifier, "id", id)
        return await fetch(wanted, "europepmc", None if metadata_fallback else "xml")
