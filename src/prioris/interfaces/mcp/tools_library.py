"""MCP tools over the local library: reading stored text, uploads, listing, deleting,
searching.

Called the way PriorisMCP 0.1.1 documents them, they behave as PriorisMCP does (see
``../shared/contracts/priorismcp-0.1.1.md``): ``*_parse_full_text`` pages through stored
text (default limit 20000, never fetches); ``research_list_fetched`` and
``research_delete_fetched`` speak of ``(provider, identifier, format, artefact)`` entries;
``research_search_fetched`` without ``mode`` is an FTS5 query over every stored passage,
uncapped, answered as ``matches``. Prioris's own arguments (``mode``, ``limit``, ``ids``
...) and fields (``hits``, ``results``) work beside them. The PriorisMCP view of the library
is ``Library.artefacts``; these functions only check arguments and reshape.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.ingest.uploads import decode_base64_checked
from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp import schemas as s
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
SessionId = Annotated[
    str,
    Field(
        min_length=1, max_length=100, description="session_id from research_localfile_begin_upload"
    ),
]
Filename = Annotated[
    str | None, Field(max_length=1000, description="original file name, kept as a label only")
]
Year = Annotated[int | None, Field(ge=1000, le=3000, description="publication year bound")]
Provider = Literal["arxiv", "europepmc", "localfile", "openalex", "import"]
Format = Annotated[str | None, Field(min_length=1, max_length=50)]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
PARSE_DOC = inspect.cleandoc("""
    Read a stored work's full text as Markdown, one page of characters at a time (never
    fetches: store it first with {tool}). Page with `offset` and `limit` (default 20000;
    null means the default){page}. Returns `markdown`, `offset`, `limit`, `total_length`,
    `has_more`, `total_pages` and `page_range` (PDF text; null otherwise) and
    `resource_uri`; Prioris adds `next_offset` to continue and the work `id`. A search
    match's `offset` (or a hit's `id` and `offset`) plugs in directly.""")


def register_library_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add parse, local-file, upload, list, delete and search tools to ``server``."""

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

    # -- local files -------------------------------------------------------------------
    def stored_upload(data: bytes, filename: str | None) -> r.LocalFileOut:
        library = state.library()
        result = library.ingest_upload(data, filename=filename)
        described = library.artefacts.describe(result.id, "pdf", served=result.status == "skipped")
        return r.LocalFileOut(**s.ingest_out(result, filename).model_dump(), **described)

    @server.tool(name="research_localfile_fetch_full_text", annotations=WRITES)
    @prioris_tool
    async def localfile_fetch_full_text(
        content_base64: Annotated[
            str, Field(min_length=1, description="the whole PDF, base64-encoded")
        ],
        filename: Filename = None,
    ) -> r.LocalFileOut:
        """Add a PDF you have to the library (small files; large ones go through
        research_localfile_begin_upload). It is parsed (OCR for scanned pages), chunked and
        indexed. Returns `id` (file:<hash>: identical bytes always get the same id, and a
        second copy is `served_from_storage`), `location`, `format`, `size_bytes` and
        `resource_uri`. Not a PDF: invalid_request; over PRIORIS_MCP_MAX_FILE_BYTES:
        file_too_large."""

        def run() -> r.LocalFileOut:
            limit = state.library().settings.max_file_bytes
            data = decode_base64_checked(content_base64, limit, what="content_base64")
            return stored_upload(data, filename)

        return await blocking(run)

    @server.tool(name="research_localfile_begin_upload", annotations=WRITES)
    @prioris_tool
    async def begin_upload(
        filename: Filename = None,
        size_bytes: Annotated[
            int | None,
            Field(ge=1, description="Prioris: total size if known (refused early when too big)"),
        ] = None,
    ) -> s.UploadOut:
        """Start a chunked upload of a large PDF: returns `session_id` and
        `max_chunk_bytes`. Then send the file in pieces with research_localfile_upload_chunk
        (index 0, 1, 2, ... in order, each at most `max_chunk_bytes` before base64) and
        finish with research_localfile_finalize_upload. Up to 16 sessions may be open;
        one idle for `idle_timeout_seconds` expires."""
        info = await blocking(lambda: state.uploads().begin(filename, size_bytes))
        return s.UploadOut.model_validate(s.as_dict(info))

    @server.tool(name="research_localfile_upload_chunk", annotations=WRITES)
    @prioris_tool
    async def upload_chunk(
        session_id: SessionId,
        index: Annotated[int, Field(ge=0, description="0 for the first chunk, then 1, 2, ...")],
        chunk_base64: Annotated[
            str, Field(min_length=1, description="the next piece of the file, base64-encoded")
        ],
    ) -> r.UploadChunkOut:
        """Append one chunk to an upload session. Chunks must arrive in order: any other
        index is invalid_request and nothing is appended (resend the right one). Returns
        `received_index` and `bytes_so_far` (and Prioris's `next_index`)."""
        info = await blocking(
            lambda: state.uploads().append_base64(session_id, index, chunk_base64)
        )
        data = s.as_dict(info)
        return r.UploadChunkOut(
            **data, received_index=info.next_index - 1, bytes_so_far=info.received_bytes
        )

    @server.tool(name="research_localfile_finalize_upload", annotations=WRITES)
    @prioris_tool
    async def finalize_upload(session_id: SessionId) -> r.LocalFileOut:
        """Finish an upload session (it is closed whatever happens): the assembled file
        must be a PDF (else invalid_request) and is stored exactly like
        research_localfile_fetch_full_text, with the same output (`id` ...)."""

        def run() -> r.LocalFileOut:
            uploads = state.uploads()
            try:
                finished = uploads.finalize(session_id)
            except InvalidRequestError:
                uploads.discard(session_id)  # PriorisMCP: a failed finalize ends the session
                raise
            return stored_upload(finished.data, finished.filename)

        return await blocking(run)

    # -- the library -------------------------------------------------------------------
    @server.tool(name="research_list_fetched", annotations=READS)
    @prioris_tool
    async def list_fetched(
        provider: Annotated[Provider | None, Field(description="only this provider's")] = None,
        format: Annotated[
            Format, Field(description="only this format (pdf, html, xml ...)")
        ] = None,
        offset: Annotated[int, Field(ge=0, description="Prioris: works to skip")] = 0,
        limit: Annotated[int, Field(ge=1, le=1000, description="Prioris: works to return")] = 50,
    ) -> r.ListFetchedOut:
        """List what the library stores, never fetching. `entries`: every stored artefact
        {provider, identifier, format, artefact (document: the original bytes; markdown:
        the parsed, indexed text), fetched_at_or_parsed_at, size_bytes}, filtered by
        `provider` and `format`, never paged. Prioris adds `results`: the matching works
        (title, authors, counts), paged with offset/limit, and their `total`."""

        def run() -> r.ListFetchedOut:
            artefacts = state.library().artefacts
            entries = artefacts.entries(provider=provider, fmt=format)
            total, rows = artefacts.works(provider=provider, fmt=format, offset=offset, limit=limit)
            return r.ListFetchedOut(
                entries=entries,
                total=total,
                offset=offset,
                limit=limit,
                results=[s.LibraryItemOut.model_validate(row) for row in rows],
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
        entries: Annotated[
            list[r.EntryRef] | None,
            Field(min_length=1, max_length=1000, description="artefacts to delete"),
        ] = None,
        ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=500)]] | None,
            Field(
                min_length=1,
                max_length=1000,
                description="Prioris: instead of entries, whole works by id (all checked first)",
            ),
        ] = None,
    ) -> r.DeleteOut:
        """Delete stored artefacts: each entry {provider, identifier, format, artefact}
        that exists is removed and listed under `deleted`; the others under `not_found`
        (one absent entry never fails the call). artefact `document` removes the stored
        bytes only (the text stays readable and searchable); `markdown` removes the parsed
        text and its search-index entries only (the bytes stay; fetching again re-indexes
        them); `all` removes both, and a work left with nothing is removed whole. Prioris:
        `ids` deletes whole works instead (one unknown id: not_found, nothing deleted)."""
        if (entries is None) == (ids is None):
            raise InvalidRequestError("give entries (PriorisMCP) or ids (whole works), one of them")

        def run() -> r.DeleteOut:
            artefacts = state.library().artefacts
            if ids is not None:
                removed, work_ids = artefacts.delete_works(ids)
                return r.DeleteOut(deleted=removed, not_found=[], deleted_ids=work_ids)
            deleted, missing = artefacts.delete([e.model_dump() for e in entries or []])
            return r.DeleteOut(deleted=deleted, not_found=missing)

        return await blocking(run)

    @server.tool(name="research_search_fetched", annotations=READS)
    @prioris_tool
    async def search_fetched(
        query: Annotated[
            str,
            Field(
                min_length=1,
                max_length=2000,
                description=(
                    "an FTS5 query ('quokk*', '\"exact phrase\"', 'a NOT b'; malformed: "
                    "invalid_request); with `mode`, Prioris's syntax rules apply"
                ),
            ),
        ],
        provider: Annotated[Provider | None, Field(description="only this provider's")] = None,
        identifier: Annotated[
            str | None,
            Field(min_length=1, max_length=500, description="only this work (needs provider)"),
        ] = None,
        format: Annotated[Format, Field(description="only text parsed from this format")] = None,
        mode: Annotated[
            Literal["fts", "vector", "hybrid"] | None,
            Field(
                description=(
                    "Prioris: fts (BM25), vector (meaning) or hybrid (both fused; best in "
                    "general). Omitted: PriorisMCP's search (fts, FTS5 syntax, every passage)"
                )
            ),
        ] = None,
        syntax: Annotated[
            Literal["plain", "fts5"] | None,
            Field(
                description=(
                    "Prioris: plain (words, never fails) or fts5; default fts5 without mode, "
                    "plain with one"
                )
            ),
        ] = None,
        limit: Annotated[
            int | None,
            Field(
                ge=1,
                le=1000,
                description="Prioris: number of hits (default: all without mode, 10 with one)",
            ),
        ] = None,
        chunks: Annotated[
            bool | None,
            Field(
                description=(
                    "Prioris: true: individual passages (default without mode); false: one "
                    "hit per work (default with mode)"
                )
            ),
        ] = None,
        source: Annotated[
            str | None, Field(max_length=50, description="Prioris: only works from this source")
        ] = None,
        from_year: Year = None,
        to_year: Year = None,
        ids: Annotated[
            list[str] | None, Field(max_length=1000, description="Prioris: only these works")
        ] = None,
    ) -> r.SearchOut:
        """Search the full texts stored in the library (fetched or uploaded); never
        fetches. Without `mode` (as PriorisMCP): `query` is FTS5 syntax and every matching
        passage comes back as `matches` {provider, identifier, format, snippet, offset,
        score (lower is better)}, best first, scoped by `provider`, `identifier` (needs
        provider) and `format`. With Prioris's `mode` (fts, vector, hybrid), `limit` hits.
        Prioris's `hits` add title, authors, year, per-mode `ranks`, pages and `offset`:
        pass `identifier`/`id` and `offset` to research_*_parse_full_text to read on."""
        as_reference = mode is None

        def run() -> r.SearchOut:
            response, matches = state.library().artefacts.search(
                query,
                provider=provider,
                identifier=identifier,
                fmt=format,
                mode=mode or "fts",
                syntax=syntax or ("fts5" if as_reference else "plain"),
                k=limit if limit is not None else (None if as_reference else 10),
                chunks=chunks if chunks is not None else as_reference,
                source=source,
                from_year=from_year,
                to_year=to_year,
                ids=ids,
            )
            data: dict[str, Any] = s.as_dict(response)
            return r.SearchOut.model_validate({**data, "matches": matches})

        return await blocking(run)
