"""MCP tool ``research_discovery_snowball``: Prioris's own, beside PriorisMCP's
``research_discovery``.

Where ``research_discovery`` takes a text, the snowball takes works of the library as seeds
and follows their citations (the reference lists read from their PDFs, and OpenAlex's
graph when a key is set): candidates not in the library, ranked, each with why and how its
full text could be fetched. It never fetches; ``research_dismiss_candidate`` hides one.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.runtime import (
    CALLER,
    PriorisMCPServer,
    ServerState,
    blocking,
    prioris_tool,
)

Direction = Literal["backward", "forward", "both"]


class CandidateOut(BaseModel):
    """One candidate work."""

    model_config = ConfigDict(extra="allow")
    key: str = Field(description="its identity (doi:, arxiv:, openalex: or title:), to dismiss it")
    title: str
    authors: list[str]
    year: int | None
    ids: dict[str, str] = Field(description="doi, arxiv, openalex, pmid, pmcid as known")
    score: float = Field(description="0..1, higher first; its parts are in why")
    why: dict[str, Any] = Field(
        description="backward (seeds citing it), forward (seeds it cites), similarity, "
        "recency, citations, their contributions and weights, found_by, summary (in words)"
    )
    fetch_route: dict[str, Any] = Field(
        description="{provider, identifier} for the fetch tools, {pdf_url, version} (not "
        "downloaded), or {manual_upload: true}"
    )


class SnowballOut(BaseModel):
    """A snowball's answer (SPEC section 11)."""

    model_config = ConfigDict(extra="allow")
    seeds: list[str] = Field(description="the seed work ids")
    requests: int = Field(description="OpenAlex requests this call sent (cache hits not counted)")
    budget_left: int | None = Field(description="OpenAlex requests left today (null offline)")
    budget_reached: bool = Field(description="a request was refused: the answer is partial")
    offline: bool = Field(description="only the local citation graph was read")
    total: int = Field(description="candidates found before the limit")
    messages: list[str] = Field(description="what the answer lacks and why, in words")
    candidates: list[CandidateOut]


class DismissOut(BaseModel):
    """What dismissing (or undoing it) did."""

    model_config = ConfigDict(extra="ignore")
    dismissed: str | None = Field(default=None, description="the key now hidden")
    undismissed: str | None = Field(default=None, description="the key shown again (undo)")
    found: bool | None = Field(default=None, description="undo: whether it was dismissed")


def register_snowball_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_discovery_snowball`` and ``research_dismiss_candidate``."""

    @server.tool(
        name="research_discovery_snowball",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True),
    )
    @prioris_tool
    async def snowball(
        ids: Annotated[
            list[Annotated[str, Field(min_length=1, max_length=1000)]] | None,
            Field(max_length=1000, description="seed works: ids or aliases (doi:, arxiv:)"),
        ] = None,
        all: Annotated[bool, Field(description="every work of the library as a seed")] = False,
        collection: Annotated[
            str | None,
            Field(min_length=1, max_length=500, description="a collection's works as seeds"),
        ] = None,
        direction: Annotated[
            Direction, Field(description="backward: works the seeds cite; forward: citing them")
        ] = "both",
        limit: Annotated[int, Field(ge=1, le=500, description="candidates returned")] = 25,
        offline: Annotated[
            bool, Field(description="the local citation graph only: no OpenAlex request")
        ] = False,
    ) -> SnowballOut:
        """Prioris's own snowball (beside PriorisMCP's text-based research_discovery):
        works NOT in the library that the seeds cite (backward) or that cite them
        (forward), read from the PDFs' reference lists and, with an OpenAlex key,
        OpenAlex's citation graph (counted against a daily budget and cached). Give the
        seeds one way: `ids`, `all`, or `collection`. Each candidate has a score with its
        parts in `why` (and `why.summary` in words) and a `fetch_route` for the fetch
        tools; nothing is fetched. Dismissed candidates never come back. On a shared
        library each account has its share of the daily budget (quota_exceeded once
        spent; offline still answers)."""
        account = CALLER.get()  # accounts mode: the caller's share of the budget
        result = await blocking(
            lambda: state.library().snowball(
                ids or [],
                all=all,
                collection=collection,
                direction=direction,
                limit=limit,
                offline=offline,
                account=account,
            )
        )
        return SnowballOut.model_validate(result)

    @server.tool(
        name="research_dismiss_candidate",
        annotations=ToolAnnotations(read_only_hint=False, open_world_hint=False),
    )
    @prioris_tool
    async def dismiss(
        key: Annotated[
            str, Field(min_length=3, max_length=600, description="a snowball candidate's key")
        ],
        undo: Annotated[bool, Field(description="show the candidate again")] = False,
    ) -> DismissOut:
        """Hide a snowball candidate for good: its `key` as research_discovery_snowball
        gives it (doi:, arxiv:, openalex: or title:); no snowball returns it again.
        `undo` shows it again. A malformed key is invalid_request."""
        library = state.library()
        if undo:
            return DismissOut.model_validate(
                await blocking(lambda: library.undismiss_candidate(key))
            )
        return DismissOut.model_validate(await blocking(lambda: library.dismiss_candidate(key)))
