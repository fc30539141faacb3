"""MCP tool ``research_citations``: a work's references and the local citation graph.

``references`` is the work's reference list as read from its text (each entry parsed,
a linked one carrying the library work it is); ``cites`` the library works it cites;
``cited_by`` the library works that cite it. Offline: nothing is asked of a provider.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Direction = Literal["cites", "cited_by", "references"]
MAX_ITEMS = 1000


class CitationsOut(BaseModel):
    """The asked direction's items."""

    model_config = ConfigDict(extra="ignore")
    id: str = Field(description="the work asked about, as given")
    direction: str = Field(description="cites, cited_by or references")
    items: list[dict[str, Any]] = Field(
        description="references: entries {ordinal, raw, authors, title, year, venue, doi, "
        "arxiv, url, cited_work_id, link_method, link_score, cited}; cites / cited_by: "
        "works {id, title, authors, year, references: [the entries that link them]}"
    )
    count: int = Field(description="how many items")


def register_citation_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_citations`` to ``server``."""

    async def citations(
        id: Annotated[str, Field(min_length=1, max_length=1000, description="work id or alias")],
        direction: Annotated[
            Direction,
            Field(description="cites (library works it cites), cited_by, or references"),
        ] = "references",
    ) -> CitationsOut:
        """A stored work's reference list (`references`, read from its text, each entry
        parsed, linked entries with the library work they are), the library works it
        cites (`cites`) or the library works that cite it (`cited_by`), from the local
        citation graph; no network. Unknown id: not_found."""
        items = await blocking(lambda: state.library().citations(id, direction))
        return CitationsOut(id=id, direction=direction, items=items[:MAX_ITEMS], count=len(items))

    server.tool(
        name="research_citations",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )(prioris_tool(citations))
