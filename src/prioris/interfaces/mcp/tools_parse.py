"""MCP tools that read a stored work's text: ``research_*_parse_full_text`` (arxiv,
europepmc, localfile).

Called the way PriorisMCP 0.1.1 documents them, they behave as PriorisMCP does (see
``../shared/contracts/priorismcp-0.1.1.md``): they page through stored text (default limit
20000) and never fetch. Prioris's own arguments (``id``, ``page``) work beside them. The
PriorisMCP view of the library is ``Library.artefacts``; these functions only check
arguments and reshape.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import NotFoundError
from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp.runtime import (
    PriorisMCPServer,
    ServerState,
    blocking,
    one_of,
    prioris_tool,
)

OneId = Annotated[str | None, Field(min_length=1, max_length=500)]
Offset = Annotated[
    int,
    Field(ge=0, description="character offset to start at (relative to `page` when given)"),
]
Limit = Annotated[
    int | None, Field(ge=1, description="maximum characters to return (default 20000)")
]
PageNo = Annotated[int | None, Field(ge=1, description="1-based PDF page (PDF text only)")]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
PARSE_DOC = inspect.cleandoc("""
    Read a stored work's full text as Markdown, one page of characters at a time (never
    fetches: store it first with {tool}). Page with `offset` and `limit` (default 20000;
    null means the default){page}. Returns `markdown`, `offset`, `limit`, `total_length`,
    `has_more`, `total_pages` and `page_range` (PDF text; null otherwise) and
    `resource_uri`; Prioris adds `next_offset` to continue and the work `id`. A search
    match's `offset` (or a hit's `id` and `offset`) plugs in directly.""")


def register_parse_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the three parse tools to ``server``."""

    async def parse(
        identifier: str,
        provider: str,
        *,
        fmt: str | None = None,
        offset: int = 0,
        limit: int | None = None,
        page: int | None = None,
    ) -> r.ParsedOut:
        def run() -> r.ParsedOut:
            try:
                view = state.library().artefacts.read(
                    identifier, provider=provider, fmt=fmt, page=page, offset=offset, limit=limit
                )
            except NotFoundError as exc:
                tool = f"research_{provider}_fetch_full_text"
                raise NotFoundError(f"{exc.message}; store it first with {tool}") from exc
            return r.ParsedOut.model_validate(view)

        return await blocking(run)

    @server.tool(
        name="research_arxiv_parse_full_text",
        annotations=READS,
        description=PARSE_DOC.format(
            tool="research_arxiv_fetch_full_text",
            page=", or `page` (1-based; pdf only, invalid_request with html)",
        )
        + " `format` (pdf or html) picks the stored document; default: the indexed one.",
    )
    @prioris_tool
    async def arxiv_parse_full_text(
        arxiv_id: Annotated[OneId, Field(description="arXiv id, version optional")] = None,
        format: Annotated[
            Literal["pdf", "html"] | None,
            Field(description="stored format to read (default: the one indexed)"),
        ] = None,
        offset: Offset = 0,
        limit: Limit = None,
        page: PageNo = None,
        id: Annotated[
            OneId, Field(description="Prioris: alias of arxiv_id (any stored id)")
        ] = None,
    ) -> r.ParsedOut:
        wanted = one_of("arxiv_id", arxiv_id, "id", id)
        return await parse(wanted, "arxiv", fmt=format, offset=offset, limit=limit, page=page)

    @server.tool(
        name="research_europepmc_parse_full_text",
        annotations=READS,
        description=PARSE_DOC.format(
            tool="research_europepmc_fetch_full_text", page=" (Prioris: `page` for PDF text)"
        ),
    )
    @prioris_tool
    async def europepmc_parse_full_text(
        identifier: Annotated[OneId, Field(description="PMC4767193, PMC:4767193, MED:...")] = None,
        offset: Offset = 0,
        limit: Limit = None,
        page: PageNo = None,
        id: Annotated[OneId, Field(description="Prioris: alias of identifier")] = None,
    ) -> r.ParsedOut:
        wanted = one_of("identifier", identifier, "id", id)
        return await parse(wanted, "europepmc", offset=offset, limit=limit, page=page)

    @server.tool(
        name="research_localfile_parse_full_text",
        annotations=READS,
        description=PARSE_DOC.format(
            tool="research_localfile_fetch_full_text or the upload tools",
            page=", or `page` (1-based PDF page)",
        ),
    )
    @prioris_tool
    async def localfile_parse_full_text(
        id: Annotated[
            str, Field(min_length=1, max_length=500, description="id the upload returned")
        ],
        offset: Offset = 0,
        limit: Limit = None,
        page: PageNo = None,
    ) -> r.ParsedOut:
        return await parse(id, "localfile", offset=offset, limit=limit, page=page)
