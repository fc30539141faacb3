"""MCP tools that add a PDF the caller has: ``research_localfile_fetch_full_text`` (the
whole file in one call) and the chunked upload (``research_localfile_begin_upload``,
``..._upload_chunk``, ``..._finalize_upload``) for large files.

They behave as PriorisMCP 0.1.1's (see ``../shared/contracts/priorismcp-0.1.1.md``); the
stored file is parsed, chunked and indexed by ``Library.ingest_upload``, and the sessions
are the server's :class:`~prioris.ingest.uploads.UploadSessions`. These functions only
check arguments and reshape.
"""

from __future__ import annotations

from typing import Annotated

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import InvalidRequestError
from prioris.ingest.uploads import decode_base64_checked
from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

SessionId = Annotated[
    str,
    Field(
        min_length=1, max_length=100, description="session_id from research_localfile_begin_upload"
    ),
]
Filename = Annotated[
    str | None, Field(max_length=1000, description="original file name, kept as a label only")
]

WRITES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def register_upload_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the local-file and upload tools to ``server``."""

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
