"""MCP tools over the local library: uploads, reading stored Markdown, listing, deleting,
searching.

``*_parse_full_text`` only pages through Markdown the library already holds
(``Library.show``); it never fetches. Local files arrive as base64, in one call or in an
upload session (:class:`~prioris.ingest.uploads.UploadSessions`), and are ingested with
``Library.ingest_pdf_bytes``: the magic bytes decide whether they are PDFs, and identical
bytes always get the same ``file:`` id.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import NotFoundError
from prioris.ingest.uploads import decode_base64_checked
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

StoredId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=500,
        description=(
            "id of a stored work (as returned by fetch/upload/search/list), or any alias of it"
        ),
    ),
]
Offset = Annotated[
    int | None,
    Field(
        ge=0,
        description=("character offset to start at (relative to the page when `page` is given)"),
    ),
]
Limit = Annotated[int, Field(ge=1, le=200_000, description="maximum characters to return")]
PageNo = Annotated[int | None, Field(ge=1, description="1-based page number (PDFs)")]
SessionId = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        description=("session_id from research_localfile_begin_upload"),
    ),
]
Filename = Annotated[
    str | None, Field(max_length=1000, description=("original file name, kept for display only"))
]
Year = Annotated[int | None, Field(ge=1000, le=3000, description="publication year bound")]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
DEFAULT_LIMIT = 10_000


def register_library_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add local-file, upload, parse, list, delete and search tools to ``server``."""

    async def parse(
        id: str, offset: int | None, limit: int, page: int | None, fetch_tool: str
    ) -> s.MarkdownPageOut:
        def run() -> s.MarkdownPageOut:
            try:
                shown = state.library().show(id, page=page, offset=offset, limit=limit)
            except NotFoundError as exc:
                raise NotFoundError(f"{exc.message}; store it first with {fetch_tool}") from exc
            return s.MarkdownPageOut.model_validate(shown)

        return await blocking(run)

    parse_doc = inspect.cleandoc("""
        Read a stored work's full text as Markdown, one slice at a time (never fetches:
        store it first with {tool}). Page with `offset`/`limit` (characters) or `page`
        (PDF page number). Returns `markdown`, `total_length`, `total_pages`,
        `has_more` and `next_offset` to continue. Search hits' `id` and `offset` plug in
        directly.""")

    def add_parse_tool(provider: str) -> None:
        fetch_tool = f"research_{provider}_fetch_full_text"

        @server.tool(
            name=f"research_{provider}_parse_full_text",
            annotations=READS,
            description=parse_doc.format(tool=fetch_tool),
        )
        @prioris_tool
        async def parse_tool(
            id: StoredId, offset: Offset = None, limit: Limit = DEFAULT_LIMIT, page: PageNo = None
        ) -> s.MarkdownPageOut:
            return await parse(id, offset, limit, page, fetch_tool)

    for provider in ("arxiv", "europepmc", "localfile"):  # same tool, PriorisMCP's three names
        add_parse_tool(provider)

    # -- local files -------------------------------------------------------------------
    @server.tool(name="research_localfile_fetch_full_text", annotations=WRITES)
    @prioris_tool
    async def localfile_fetch_full_text(
        content_base64: Annotated[
            str, Field(min_length=1, description=("the whole PDF, base64-encoded"))
        ],
        filename: Filename = None,
    ) -> s.IngestOut:
        """Add a PDF you have to the library (small files; for large ones use
        research_localfile_begin_upload). The PDF is parsed (OCR for scanned pages),
        chunked and indexed. Returns the work `id` (file:<hash>): identical bytes always
        get the same id and a second upload is 'skipped'. Non-PDF bytes: parse_error;
        over PRIORIS_MCP_MAX_FILE_BYTES: file_too_large."""

        def run() -> s.IngestOut:
            library = state.library()
            data = decode_base64_checked(
                content_base64, library.settings.max_file_bytes, what="content_base64"
            )
            result = library.ingest_pdf_bytes(data, filename=filename)
            return s.ingest_out(result, filename)

        return await blocking(run)

    @server.tool(name="research_localfile_begin_upload", annotations=WRITES)
    @prioris_tool
    async def begin_upload(
        filename: Filename = None,
        size_bytes: Annotated[
            int | None,
            Field(ge=1, description=("total size if known (refused early when over the limit)")),
        ] = None,
    ) -> s.UploadOut:
        """Start a chunked upload of a large PDF. Then send the file in pieces with
        research_localfile_upload_chunk (index 0, 1, 2, ... in order, each at most
        `max_chunk_bytes` before base64) and finish with
        research_localfile_finalize_upload. Sessions idle for `idle_timeout_seconds`
        expire; only a few may be open at once."""
        info = await blocking(lambda: state.uploads().begin(filename, size_bytes))
        return s.UploadOut.model_validate(s.as_dict(info))

    @server.tool(name="research_localfile_upload_chunk", annotations=WRITES)
    @prioris_tool
    async def upload_chunk(
        session_id: SessionId,
        index: Annotated[
            int,
            Field(ge=0, description=("0 for the first chunk, then 1, 2, ... strictly in order")),
        ],
        chunk_base64: Annotated[
            str, Field(min_length=1, description=("the next piece of the file, base64-encoded"))
        ],
    ) -> s.UploadOut:
        """Append one chunk to an upload session. Chunks must arrive in order: an index
        other than `next_index` is invalid_request (nothing is appended, so resend the
        right one). Returns `next_index` and `received_bytes`."""
        info = await blocking(
            lambda: state.uploads().append_base64(session_id, index, chunk_base64)
        )
        return s.UploadOut.model_validate(s.as_dict(info))

    @server.tool(name="research_localfile_finalize_upload", annotations=WRITES)
    @prioris_tool
    async def finalize_upload(session_id: SessionId) -> s.IngestOut:
        """Finish an upload session: the assembled file is checked (must be a PDF, else
        parse_error), parsed, chunked and indexed exactly like
        research_localfile_fetch_full_text. Returns the work `id`."""

        def run() -> s.IngestOut:
            finished = state.uploads().finalize(session_id)
            result = state.library().ingest_pdf_bytes(finished.data, filename=finished.filename)
            return s.ingest_out(result, finished.filename)

        return await blocking(run)

    # -- the library -------------------------------------------------------------------
    @server.tool(name="research_list_fetched", annotations=READS)
    @prioris_tool
    async def list_fetched(
        offset: Annotated[int, Field(ge=0, description="works to skip")] = 0,
        limit: Annotated[int, Field(ge=1, le=1000, description="works to return")] = 50,
    ) -> s.LibraryListOut:
        """List the works stored in the library, newest first: id, title, authors, year,
        source, and how many documents, pages and chunks each has. Page with
        offset/limit; `total` is the number of works."""

        def run() -> s.LibraryListOut:
            library = state.library()
            rows = library.list_works(limit=limit, offset=offset)
            total = library.status()["works"]
            return s.LibraryListOut(
                total=total,
                offset=offset,
                limit=limit,
                results=[s.LibraryItemOut.model_validate(r) for r in rows],
            )

        return await blocking(run)

    @server.tool(
        name="research_delete_fetched",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,
            idempotent_hint=False,
            open_world_hint=False,
        ),
    )
    @prioris_tool
    async def delete_fetched(
        ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=500)]],
            Field(min_length=1, max_length=1000, description="ids (or aliases) of stored works"),
        ],
    ) -> s.DeleteOut:
        """Remove works from the library: metadata, stored files, Markdown, and every
        search index. All ids are checked first: one unknown id (not_found) deletes
        nothing."""
        deleted = await blocking(lambda: state.library().delete(ids))
        return s.DeleteOut(deleted=deleted)

    @server.tool(name="research_search_fetched", annotations=READS)
    @prioris_tool
    async def search_fetched(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description=("what to look for in the stored full texts"),
            ),
        ],
        mode: Annotated[
            Literal["fts", "vector", "hybrid"],
            Field(
                description=(
                    "fts: keywords (BM25); vector: meaning (embeddings); hybrid: both fused "
                    "(default, best in general)"
                )
            ),
        ] = "hybrid",
        syntax: Annotated[
            Literal["plain", "fts5"],
            Field(
                description=(
                    "plain: words (default, never fails); fts5: a raw SQLite FTS5 expression "
                    "such as '\"exact phrase\" AND term*' (fts mode only; malformed -> "
                    "invalid_request)"
                )
            ),
        ] = "plain",
        limit: Annotated[int, Field(ge=1, le=100, description="number of hits")] = 10,
        chunks: Annotated[
            bool,
            Field(
                description=(
                    "false: one hit per work (its best passage); true: individual passages"
                )
            ),
        ] = False,
        source: Annotated[
            str | None,
            Field(
                max_length=50,
                description=(
                    "only works from this source: arxiv, europepmc, openalex, file, import"
                ),
            ),
        ] = None,
        from_year: Year = None,
        to_year: Year = None,
        ids: Annotated[
            list[str] | None, Field(max_length=1000, description=("restrict to these stored works"))
        ] = None,
    ) -> s.SearchOut:
        """Search the full texts stored in the library (everything fetched or uploaded).
        Each hit has the work `id`, title, authors, year, `score`, per-mode `ranks`, a
        `snippet`, `page_start`/`page_end` and `offset`: pass `id` and `offset` to
        research_*_parse_full_text to read the passage in context."""
        response = await blocking(
            lambda: state.library().search(
                query,
                mode=mode,
                k=limit,
                chunks=chunks,
                source=source,
                from_year=from_year,
                to_year=to_year,
                ids=ids,
                syntax=syntax,
            )
        )
        return s.SearchOut.model_validate(s.as_dict(response))
