"""MCP tool ``research_cite``: citations of stored works, ready to paste.

A formatted citation in a bundled CSL style (APA, Vancouver, IEEE, Chicago author-date),
or one BibTeX / RIS / CSL-JSON entry per work; the keys are those a combined export gives.
Style files are not read from paths here: an MCP client names a style, never a file.
"""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Style = Literal["apa", "vancouver", "ieee", "chicago-author-date"]
CiteFormat = Literal["text", "bibtex", "ris", "csl-json"]


class CitationOut(BaseModel):
    """One work's citation."""

    model_config = ConfigDict(extra="ignore")
    id: str = Field(description="the work's id in the library")
    key: str = Field(description="its citation key (vaswani2017attention), as in BibTeX and RIS")
    citation: str = Field(description="the formatted citation, or the work's entry in `format`")


class CiteOut(BaseModel):
    """Citations of the asked works, one by one and all together."""

    model_config = ConfigDict(extra="ignore")
    format: str = Field(description="text (a CSL style), bibtex, ris or csl-json")
    style: str | None = Field(description="the CSL style of the text format, else null")
    items: list[CitationOut] = Field(description="one citation per work, in the order asked")
    text: str = Field(description="every citation together: a reference list or a file's text")


def register_cite_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_cite`` (also named ``research_format_citation``) to ``server``."""

    async def cite(
        ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=1000)]],
            Field(min_length=1, max_length=500, description="work ids or aliases (doi:, arxiv:)"),
        ],
        style: Annotated[
            Style | None,
            Field(description="CSL style of the text format (default apa)"),
        ] = None,
        format: Annotated[
            CiteFormat | None,
            Field(description="text (default: a formatted citation), bibtex, ris or csl-json"),
        ] = None,
    ) -> CiteOut:
        """Citations of stored works to paste into a paper: `format` text (the default)
        formats each in a CSL `style` (apa default, vancouver, ieee, chicago-author-date);
        bibtex, ris and csl-json give each work's entry (BibTeX entry types from the work's
        type and venue: @article, @inproceedings, @book, @phdthesis, @techreport, @misc;
        keys like vaswani2017attention). Returns {format, style, items: [{id, key,
        citation}], text} where text is all of them together. Unknown ids: not_found."""
        found = await blocking(lambda: state.library().cite(ids, style, format))
        return CiteOut.model_validate(found)

    # research_format_citation is the name SPEC section 11 gives the same tool
    for name in ("research_cite", "research_format_citation"):
        server.tool(
            name=name, annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False)
        )(prioris_tool(cite))
