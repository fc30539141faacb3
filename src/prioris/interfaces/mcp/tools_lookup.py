"""MCP tools that look things up without storing them: OpenAlex search, identifier
resolution and discovery (OpenAlex semantic search).

``research_resolve_identifier`` answers PriorisMCP's question (``result``: provider,
canonical id, full-text URL, format) beside Prioris's own (``in_library``, ``work_id``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import (
    PriorisMCPServer,
    ServerState,
    blocking,
    one_of,
    prioris_tool,
)

Query = Annotated[str, Field(min_length=1, max_length=2000, description="search text")]
Year = Annotated[int | None, Field(ge=1000, le=3000, description="publication year bound")]
OneId = Annotated[str | None, Field(min_length=1, max_length=500)]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=True)


def register_lookup_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the OpenAlex, resolve and discovery tools to ``server``."""

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
        identifier: Annotated[
            OneId,
            Field(
                description=(
                    "an arXiv id, Europe PMC id or DOI (Prioris also takes URLs, PMIDs, "
                    "OpenAlex W-ids and file: ids)"
                )
            ),
        ] = None,
        format: Annotated[
            str | None,
            Field(
                max_length=20,
                description="wanted full-text format: arXiv pdf (default) or html; Europe PMC xml",
            ),
        ] = None,
        id: Annotated[OneId, Field(description="Prioris: alias of identifier")] = None,
    ) -> r.ResolveOut:
        """Say which provider serves an identifier. `result` is the provider's resolution:
        canonical `identifier` (versioned arXiv id, or PMC:{n}), `resolved_url` of the full
        text, `format`, and for Europe PMC `full_text_available`. DOIs are resolved through
        doi.org (only to arXiv / Europe PMC / PubMed Central, else unsupported_provider).
        Prioris adds whether the library already holds it (`in_library`, `work_id`)."""
        wanted = one_of("identifier", identifier, "id", id)
        found = await blocking(lambda: state.library().artefacts.resolve_identifier(wanted, format))
        return r.ResolveOut.model_validate(found)

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
