"""MCP tools for collections and tags made in Prioris.

``research_collections`` reads (every collection with its works and origins, every tag
with its works); ``research_edit_collection`` and ``research_tag_works`` change them, so
in accounts mode they need the writer role. The works are ids (any alias) or a search's
best ``k``. Thin adapters over :class:`~prioris.services.labelling.Labelling`: which
labels may change (never a reference manager's) is decided there.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.errors import InvalidRequestError
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, prioris_tool

Name = Annotated[str, Field(min_length=1, max_length=1000)]
Ids = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=500)]] | None,
    Field(max_length=10_000, description="work ids or any alias (DOI, arXiv id, ...)"),
]
Search = Annotated[
    str | None,
    Field(max_length=2000, description="pick the works by this search instead of ids"),
]
K = Annotated[int, Field(ge=1, le=10_000, description="with search: its k best works")]
Mode = Annotated[Literal["fts", "vector", "hybrid"], Field(description="with search")]


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class CollectionOut(_Out):
    path: str = Field(description="its full path, segments joined by ' / '")
    works: int = Field(description="works in it or its subcollections")
    origins: list[str] = Field(description="where its labels came from: user, import, zotero, ...")
    made_here: bool = Field(description="made in Prioris (it may hold no work yet)")


class TagOut(_Out):
    tag: str
    works: int


class CollectionsOut(_Out):
    collections: list[CollectionOut]
    tags: list[TagOut] = Field(description="most used first")


class KeptOut(_Out):
    id: str
    origins: list[str] = Field(description="the reference managers that keep the label on it")


class LabelChangeOut(_Out):
    """What a change did: the collection or tag as stored, and the works it touched."""

    action: str
    collection: str | None = None
    tag: str | None = None
    renamed_to: str | None = None
    added: list[str] = Field(default_factory=list, description="works given the label")
    already: list[str] = Field(default_factory=list, description="works that had it already")
    removed: list[str] = Field(default_factory=list, description="works it was taken from")
    kept: list[KeptOut] = Field(
        default_factory=list,
        description="works that keep it through a reference manager (change it there)",
    )
    absent: list[str] = Field(default_factory=list, description="works that did not have it")
    works: int | None = Field(None, description="delete: the works it held (they stay)")


def _works(ids: list[str] | None, search: str | None, k: int, mode: str) -> dict[str, Any]:
    return {"ids": ids, "search": search, "k": k, "mode": mode}


def register_label_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_collections``, ``research_edit_collection`` and ``research_tag_works``."""

    async def collections() -> CollectionsOut:
        """Every collection of the library (made in Prioris or given by Zotero, a BibTeX
        or JSONL import) with its works and origins, and every tag with its works. Use a
        name with research_search_fetched's `collection` / `tag` filters."""

        def run() -> CollectionsOut:
            library = state.library()
            return CollectionsOut(
                collections=[CollectionOut.model_validate(c) for c in library.list_collections()],
                tags=[TagOut(tag=t, works=n) for t, n in library.tag_counts()],
            )

        return await blocking(run)

    async def edit_collection(
        action: Annotated[
            Literal["create", "rename", "delete", "add", "remove"],
            Field(description="create, rename, delete, add (works to it), remove (works from it)"),
        ],
        name: Annotated[Name, Field(description="the collection: its path 'A / B' or last name")],
        parent: Annotated[str | None, Field(max_length=1000, description="create: under")] = None,
        new_name: Annotated[
            str | None, Field(max_length=1000, description="rename: new name, or path to move")
        ] = None,
        ids: Ids = None,
        search: Search = None,
        k: K = 10,
        mode: Mode = "hybrid",
    ) -> LabelChangeOut:
        """Make, rename or delete a collection, or put works in it / take them out (by
        `ids` or the best `k` of a `search`). A re-sync of Zotero or a BibTeX file never
        removes what is added here; a collection or label a reference manager gave is
        changed there (removing reports such works under `kept`)."""
        if action != "rename" and new_name is not None:
            raise InvalidRequestError("new_name is for action rename")
        if action != "create" and parent is not None:
            raise InvalidRequestError("parent is for action create")

        def run() -> dict[str, Any]:
            library = state.library()
            if action == "create":
                return library.create_collection(name, parent=parent)
            if action == "rename":
                if not new_name:
                    raise InvalidRequestError("rename needs new_name")
                return library.rename_collection(name, new_name)
            if action == "delete":
                return library.delete_collection(name)
            change = (
                library.add_to_collection if action == "add" else library.remove_from_collection
            )
            return change(name, **_works(ids, search, k, mode))

        return LabelChangeOut.model_validate({"action": action, **await blocking(run)})

    async def tag_works(
        action: Annotated[Literal["add", "remove"], Field(description="add or remove the tag")],
        tag: Annotated[Name, Field(description="the tag (any case)")],
        ids: Ids = None,
        search: Search = None,
        k: K = 10,
        mode: Mode = "hybrid",
    ) -> LabelChangeOut:
        """Tag works or untag them (by `ids` or the best `k` of a `search`). Tags given
        by a reference manager stay (reported under `kept`)."""

        def run() -> dict[str, Any]:
            library = state.library()
            change = library.add_tag if action == "add" else library.remove_tag
            return change(tag, **_works(ids, search, k, mode))

        return LabelChangeOut.model_validate({"action": action, **await blocking(run)})

    server.tool(
        name="research_collections",
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )(prioris_tool(collections))
    for name, fn, destructive in (
        ("research_edit_collection", edit_collection, True),  # delete drops a collection
        ("research_tag_works", tag_works, False),
    ):
        server.tool(
            name=name,
            annotations=ToolAnnotations(
                read_only_hint=False,
                destructive_hint=destructive,
                idempotent_hint=False,
                open_world_hint=False,
            ),
        )(prioris_tool(fn))
