"""MCP tools that bring in the researcher's reference manager: ``research_zotero_sync``
and ``research_import_references`` (BibTeX, RIS).

Thin adapters over :meth:`Library.zotero_sync` and :meth:`Library.import_references`;
the report is the CLI's ``--json`` (added, updated, removed, unchanged, failed as a list
of {key, error}, files that could not be read, works kept because they have other
sources).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

MAX_REFERENCES_CHARS = 20_000_000


class SyncOut(BaseModel):
    """What a sync or an import did."""

    model_config = ConfigDict(extra="allow")
    added: int
    updated: int
    removed: int
    unchanged: int
    failed: list[dict[str, Any]] = Field(description="[{key, error}] of items not stored")
    files_ingested: int = 0
    files_missing: list[dict[str, Any]] = Field(
        default_factory=list,
        description="[{key, file, reason}]: files that could not be read (the item is "
        "stored with its metadata)",
    )
    kept: list[dict[str, Any]] = Field(
        default_factory=list,
        description="[{key, id}]: works whose item is gone, kept because they have other sources",
    )
    warnings: list[dict[str, Any]] = Field(
        default_factory=list,
        description="[{key, other, reason}]: two entries naming one file or one identifier; "
        "both kept as separate works, never merged",
    )
    cut: list[dict[str, Any]] = Field(
        default_factory=list,
        description="[{key, field, length, kept}]: fields cut to the library's bounds",
    )


def register_refman_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_zotero_sync`` and ``research_import_references`` to ``server``.

    Neither reads a path a client names: the Zotero library is the one the server is set
    up with (``PRIORIS_MCP_ZOTERO_DIR``), and references come as text whose file links
    are not followed, so a client (over HTTP, maybe remote) reads no file of the server."""

    @server.tool(
        name="research_zotero_sync",
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        ),
    )
    @prioris_tool
    async def zotero_sync() -> SyncOut:
        """Bring the researcher's Zotero library (the server's PRIORIS_MCP_ZOTERO_DIR,
        else ~/Zotero) into the library, or up to date: every regular item becomes a work
        with Zotero's metadata (above what the PDF printed and what providers say, below
        the user's own edits), its PDFs ingested, its notes and highlights searchable, its
        collections and tags kept. Incremental: a second run changes only what changed;
        items deleted or trashed in Zotero are removed (a work that also came from
        elsewhere is kept). Zotero's files are never written. Returns counts {added,
        updated, removed, unchanged} and failed [{key, error}]."""
        report = await blocking(lambda: state.library().zotero_sync())
        return SyncOut.model_validate(report)

    @server.tool(
        name="research_import_references",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        ),
    )
    @prioris_tool
    async def import_references(
        text: Annotated[
            str,
            Field(
                min_length=1,
                max_length=MAX_REFERENCES_CHARS,
                description="the contents of a BibTeX (.bib) or RIS (.ris) file",
            ),
        ],
        format: Annotated[
            Literal["bibtex", "ris"] | None,
            Field(description="bibtex or ris (default: told from the text)"),
        ] = None,
    ) -> SyncOut:
        """Import BibTeX or RIS entries sent as text: each entry a work with its metadata
        (the BibTeX citation key kept as the alias bibtex:KEY). File links in the entries
        are not followed (upload PDFs with research_localfile_upload). Sending the same
        entries again skips unchanged ones and updates changed ones. A malformed entry
        fails alone with its line. Returns counts and failed [{key, error, line}]."""
        report = await blocking(lambda: state.library().import_reference_text(text, format))
        return SyncOut.model_validate(report)
