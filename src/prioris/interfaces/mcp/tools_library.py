"""MCP tools over what the library stores: listing, deleting and searching it.

Called the way PriorisMCP 0.1.1 documents them, they behave as PriorisMCP does (see
``../shared/contracts/priorismcp-0.1.1.md``): ``research_list_fetched`` and
``research_delete_fetched`` speak of ``(provider, identifier, format, artefact)`` entries;
``research_search_fetched`` without ``mode`` is an FTS5 query over every stored passage,
uncapped, answered as ``matches``. Prioris's own arguments (``mode``, ``limit``, ``ids``
...) and fields (``hits``, ``results``) work beside them. The PriorisMCP view of the library
is ``Library.artefacts``; these functions only check arguments and reshape. Reading a
stored text is :mod:`.tools_parse`; adding a PDF, :mod:`.tools_upload`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import Field

from prioris.errors import InvalidRequestError
from prioris.interfaces.mcp import reference as r
from prioris.interfaces.mcp import schemas as s
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Year = Annotated[int | None, Field(ge=1000, le=3000, description="publication year bound")]
Provider = Literal["arxiv", "europepmc", "localfile", "openalex", "import"]
Format = Annotated[str | None, Field(min_length=1, max_length=50)]
LabelName = Annotated[str, Field(max_length=1000)]
Collection = Annotated[
    LabelName | list[LabelName] | None,
    Field(
        description=(
            "Prioris: only works in this collection or its subcollections (its path "
            "'A / B' or its last name, any case); a list: in any of them"
        )
    ),
]
Tag = Annotated[
    LabelName | list[LabelName] | None,
    Field(description="Prioris: only works with this tag (any case); a list: all of them"),
]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def register_library_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the list, delete and search tools to ``server``."""

    @server.tool(name="research_list_fetched", annotations=READS)
    @prioris_tool
    async def list_fetched(
        provider: Annotated[Provider | None, Field(description="only this provider's")] = None,
        format: Annotated[
            Format, Field(description="only this format (pdf, html, xml ...)")
        ] = None,
        offset: Annotated[int, Field(ge=0, description="Prioris: works to skip")] = 0,
        limit: Annotated[int, Field(ge=1, le=1000, description="Prioris: works to return")] = 50,
        collection: Collection = None,
        tag: Tag = None,
    ) -> r.ListFetchedOut:
        """List what the library stores, never fetching. `entries`: every stored artefact
        {provider, identifier, format, artefact (document: the original bytes; markdown:
        the parsed, indexed text), fetched_at_or_parsed_at, size_bytes}, filtered by
        `provider` and `format`, never paged. Prioris adds `results`: the matching works
        (title, authors, counts, collections, tags), paged with offset/limit, and their
        `total`; `collection` and `tag` narrow both to the works a reference manager filed
        there."""

        def run() -> r.ListFetchedOut:
            artefacts = state.library().artefacts
            labels = {"collections": collection, "tags": tag}
            entries = artefacts.entries(provider=provider, fmt=format, **labels)
            total, rows = artefacts.works(
                provider=provider, fmt=format, offset=offset, limit=limit, **labels
            )
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
        include_undated: Annotated[
            bool | None,
            Field(
                description=(
                    "Prioris: with from_year/to_year, keep works without a year (default: "
                    "left out, counted in left_out_no_year)"
                )
            ),
        ] = None,
        collection: Collection = None,
        tag: Tag = None,
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
                include_undated=bool(include_undated),
                collections=collection,
                tags=tag,
            )
            data: dict[str, Any] = s.as_dict(response)
            return r.SearchOut.model_validate({**data, "matches": matches})

        return await blocking(run)
