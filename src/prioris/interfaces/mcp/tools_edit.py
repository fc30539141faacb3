"""The MCP tool that corrects a stored work's record: ``research_edit_work``.

A thin adapter over :meth:`Library.edit_work`, :meth:`Library.undo_edit` and
:meth:`Library.work_fields`: the checks (unknown field, bad year, empty title, an id
another work holds) and the precedence (the user's values win over every source, see
:mod:`prioris.provenance`) are the Library's.
"""

from __future__ import annotations

from typing import Annotated, Any

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.errors import InvalidRequestError
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool
from prioris.provenance import FIELDS

WorkId = Annotated[str, Field(min_length=1, max_length=500, description="work id or any alias")]


class EditedWorkOut(BaseModel):
    """A stored work's editable record, each field with the source it came from."""

    model_config = ConfigDict(extra="ignore")

    id: str
    title: str = ""
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    published: str | None = None
    venue: str | None = None
    volume: str | None = None
    issue: str | None = None
    pages: str | None = None
    publisher: str | None = None
    type: str | None = None
    abstract: str | None = None
    keywords: list[str] = Field(default_factory=list)
    doi: str | None = None
    arxiv: str | None = None
    pmid: str | None = None
    pmcid: str | None = None
    openalex: str | None = None
    origins: dict[str, str] = Field(
        default_factory=dict,
        description="{field: origin}: user, a reference manager (zotero, bibtex, ris, "
        "import), a provider (openalex, europepmc, arxiv), pdf_metadata or printed",
    )
    aliases: list[str] = Field(default_factory=list)
    edits: int = Field(0, description="edits that undo can take back, newest first")


def register_edit_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_edit_work`` (also named ``research_update_metadata``) to ``server``."""

    async def edit_work(
        id: WorkId,
        fields: Annotated[
            dict[str, Any] | None,
            Field(
                description="{field: value} to correct; null clears a field. Fields: "
                + ", ".join(FIELDS)
                + " (authors and keywords are lists, year a number, published an ISO date)"
            ),
        ] = None,
        undo: Annotated[bool, Field(description="take back the newest edit instead")] = False,
    ) -> EditedWorkOut:
        """Correct a stored work's bibliographic record (title, authors in order, year,
        date, venue, volume, issue, pages, publisher, type, DOI and other ids, abstract,
        keywords), or with `undo: true` take back its newest edit; with neither, read the
        record. The user's values win over what the PDF printed, its embedded metadata
        and every provider, and survive re-ingest and enrichment. Returns the record with
        `origins` ({field: where its value came from}) and `edits` (how many undo can
        take back)."""
        if fields and undo:
            raise InvalidRequestError("give fields or undo: true, not both")

        def run() -> EditedWorkOut:
            library = state.library()
            work_id = id
            if undo:
                work_id = library.undo_edit(id).id
            elif fields:
                work_id = library.edit_work(id, fields).id
            elif fields is not None:
                raise InvalidRequestError("fields is empty: give at least one field")
            return EditedWorkOut.model_validate(library.work_fields(work_id))

        return await blocking(run)

    # research_update_metadata is the name SPEC section 11 gives the same tool
    for name in ("research_edit_work", "research_update_metadata"):
        server.tool(
            name=name,
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=False,
                idempotent_hint=False,
                open_world_hint=False,
            ),
        )(prioris_tool(edit_work))
