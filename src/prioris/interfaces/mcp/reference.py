"""PriorisMCP 0.1.1's output shapes, carried by Prioris's tools beside Prioris's own fields.

A client written for PriorisMCP reads ``results[].arxiv_id``, ``not_found``,
``hit_count``, ``next_cursor_mark``, ``location``, ``served_from_storage``,
``resource_uri``, ``page_range``, ``entries``, ``matches`` ...; these models give every
such field its PriorisMCP name and meaning (see ``../shared/contracts/priorismcp-0.1.1.md``).
Records of the arXiv and Europe PMC tools are Prioris works with the provider's own fields
added at the top level; ``authors`` there is PriorisMCP's list of objects. The ``*_record``
helpers only reshape a :class:`~prioris.models.Work`; they decide nothing.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from prioris.interfaces.mcp.schemas import (
    FetchFailureOut,
    HitOut,
    IngestOut,
    LibraryItemOut,
    UploadOut,
    WorkOut,
    as_dict,
)


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ArxivAuthorOut(_Out):
    name: str
    affiliation: str | None = None


class ArxivRecordOut(WorkOut):
    """An arXiv record: PriorisMCP's fields (``arxiv_id`` ... ``comment``) and the work's."""

    arxiv_id: str = Field(description="versioned arXiv id, e.g. 2106.09685v2")
    authors: list[ArxivAuthorOut] = Field(default=[], description="{name, affiliation}")  # type: ignore[assignment]
    categories: list[str] = Field(default=[])
    primary_category: str | None = None
    updated: str | None = None
    doi: str | None = None
    journal_ref: str | None = None
    comment: str | None = None


def arxiv_record(work: Any) -> ArxivRecordOut:
    data = as_dict(work)
    extra = data.get("extra") or {}
    names = data.get("authors") or []
    affiliations = list(extra.get("affiliations") or [])
    affiliations += [None] * (len(names) - len(affiliations))
    return ArxivRecordOut.model_validate(
        {
            **data,
            "arxiv_id": extra.get("arxiv_id") or data["id"].partition(":")[2],
            "authors": [
                {"name": n, "affiliation": a} for n, a in zip(names, affiliations, strict=True)
            ],
            "categories": extra.get("categories") or [],
            "primary_category": extra.get("primary_category"),
            "updated": extra.get("updated"),
            "doi": extra.get("doi"),
            "journal_ref": extra.get("journal_ref"),
            "comment": extra.get("comment"),
        }
    )


class EuropePmcAuthorOut(_Out):
    full_name: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    initials: str | None = None


class EuropePmcRecordOut(WorkOut):
    """A Europe PMC record: PriorisMCP's fields (``identifier`` ... ``full_text_available``)
    and the work's."""

    identifier: str = Field(description="Europe PMC's {source}:{id}, e.g. MED:26551875")
    pmid: str | None = None
    pmcid: str | None = None
    doi: str | None = None
    authors: list[EuropePmcAuthorOut] = Field(default=[])  # type: ignore[assignment]
    journal: dict[str, Any] | None = Field(default=None, description="Europe PMC journalInfo")
    pub_year: str | None = None
    is_open_access: str | None = Field(default=None, description="Y or N")
    license: str | None = None
    full_text_available: bool = Field(
        default=False, description="Europe PMC hosts the full text (inEPMC = Y)"
    )


def europepmc_record(work: Any) -> EuropePmcRecordOut:
    data = as_dict(work)
    extra = data.get("extra") or {}
    authors = extra.get("author_list") or [{"full_name": n} for n in data.get("authors") or []]
    year = extra.get("pub_year") or (str(data["year"]) if data.get("year") else None)
    return EuropePmcRecordOut.model_validate(
        {
            **data,
            "identifier": f"{extra.get('source') or ''}:{extra.get('ext_id') or ''}",
            "pmid": extra.get("pmid"),
            "pmcid": extra.get("pmcid"),
            "doi": extra.get("doi"),
            "authors": authors,
            "journal": extra.get("journal_info"),
            "pub_year": year,
            "is_open_access": extra.get("is_open_access"),
            "license": extra.get("license"),
            "full_text_available": bool(extra.get("in_epmc")),
        }
    )


class ArxivSearchOut(_Out):
    results: list[ArxivRecordOut]
    total_results: int = Field(description="arXiv's total for the query (list_top_n: the count)")
    total: int = Field(description="Prioris: same as total_results")
    start: int = Field(description="Prioris: offset of the first result")
    next: int | None = Field(description="Prioris: start of the next page; null on the last")


class ArxivListOut(_Out):
    results: list[ArxivRecordOut]
    total_results: int = Field(description="how many results came back")


class ArxivMetadataOut(_Out):
    results: list[ArxivRecordOut] = Field(description="records found, in the order asked")
    not_found: list[str] = Field(description="ids (as given) arXiv does not know")
    missing: list[str] = Field(default=[], description="Prioris: same as not_found")


class EuropePmcSearchOut(_Out):
    results: list[EuropePmcRecordOut]
    hit_count: int = Field(description="Europe PMC's total for the query")
    next_cursor_mark: str | None = Field(
        description="pass as cursor_mark for the next page; null on the last"
    )
    total: int = Field(description="Prioris: same as hit_count")
    next: str | None = Field(description="Prioris: same as next_cursor_mark")


class EuropePmcMetadataOut(_Out):
    results: list[EuropePmcRecordOut] = Field(description="records found, in the order asked")
    not_found: list[str] = Field(description="ids (as given) Europe PMC does not know")
    missing: list[str] = Field(default=[], description="Prioris: same as not_found")


class StoredOut(_Out):
    """PriorisMCP's fetch result: what is stored and where to read it."""

    location: str = Field(description="provider:identifier:format of the stored document")
    format: str = Field(description="format of the stored document (pdf, html, xml)")
    size_bytes: int
    served_from_storage: bool = Field(description="true when nothing had to be downloaded")
    resource_uri: str = Field(description="research://... of the stored document")


class ResolvedOut(_Out):
    """PriorisMCP's resolution: the provider's canonical id and the full text's URL."""

    provider: Literal["arxiv", "europepmc"]
    identifier: str = Field(description="canonical id: versioned arXiv id, or PMC:{n}")
    resolved_url: str
    format: str
    full_text_available: bool | None = Field(
        default=None, description="Europe PMC: whether it hosts the full text (null for arXiv)"
    )


class EntryOut(_Out):
    """One stored artefact of one work."""

    provider: str = Field(description="arxiv, europepmc, localfile (or import)")
    identifier: str = Field(description="canonical id: 2401.01234v2, PMC:123, file:...")
    format: str = Field(description="pdf, html, xml, text, or metadata (no full text)")
    artefact: Literal["document", "markdown"] = Field(
        description="document: the original bytes; markdown: the parsed, indexed text"
    )
    fetched_at_or_parsed_at: str
    size_bytes: int
    work_id: str = Field(description="Prioris: the work this artefact belongs to")
    title: str = ""


class EntryRef(_Out):
    """An artefact to delete (PriorisMCP's DeleteEntryRef)."""

    model_config = ConfigDict(extra="forbid")

    provider: str = Field(min_length=1, max_length=50)
    identifier: str = Field(min_length=1, max_length=500)
    format: str = Field(min_length=1, max_length=50)
    artefact: Literal["document", "markdown", "all"] = Field(
        description="document: the stored bytes only; markdown: the parsed text and its "
        "search-index entries only; all: both (a work left with nothing is removed)"
    )


class MatchOut(_Out):
    """A search hit in PriorisMCP's terms (score: lower is better, as FTS5's bm25)."""

    provider: str
    identifier: str
    format: str
    snippet: str
    offset: int = Field(description="character offset in the Markdown (parse's offset)")
    score: float = Field(description="lower is better")


# -- the combined outputs of the library-side tools ------------------------------------


class FetchOut(StoredOut):
    """What a provider fetch stored: PriorisMCP's fields, then Prioris's ingest results."""

    id: str = Field(description="Prioris: the work id (arxiv:..., europepmc:...)")
    results: list[IngestOut] = Field(description="Prioris: the work ingested or already there")
    failed: list[FetchFailureOut] = []


class LocalFileOut(IngestOut, StoredOut):
    """A stored upload: ``id`` (pass it to research_localfile_parse_full_text and the
    research://localfile/{id}/pdf/... resources) with PriorisMCP's and Prioris's fields."""


class UploadChunkOut(UploadOut):
    received_index: int = Field(description="index of the chunk just received")
    bytes_so_far: int = Field(description="bytes received in this session so far")


class ParsedOut(_Out):
    """One page of a stored work's text (PriorisMCP's parse result, Prioris's fields after)."""

    markdown: str
    offset: int = Field(description="character offset of this slice in the whole text")
    limit: int
    total_length: int = Field(description="characters in the whole text")
    has_more: bool = Field(description="more text follows within the page or document asked")
    total_pages: int | None = Field(description="PDF pages; null for other formats")
    page_range: list[int] | None = Field(
        description="[first, last] PDF page this slice spans; null for other formats"
    )
    resource_uri: str = Field(description="research://.../markdown of this text")
    id: str = Field(description="Prioris: the work id")
    title: str = ""
    next_offset: int | None = Field(description="Prioris: offset to continue from; null when done")
    page: int | None = Field(description="Prioris: PDF page this slice starts on")
    format: str = Field(description="Prioris: format of the document the text comes from")
    provider: str
    identifier: str


class ListFetchedOut(_Out):
    entries: list[EntryOut] = Field(description="every stored artefact matching the filters")
    total: int = Field(description="Prioris: works matching the filters")
    offset: int
    limit: int
    results: list[LibraryItemOut] = Field(description="Prioris: those works, paged")


class DeleteOut(_Out):
    deleted: list[EntryRef] = Field(description="artefacts removed")
    not_found: list[EntryRef] = Field(description="entries that were not stored")
    deleted_ids: list[str] = Field(
        default=[], description="Prioris: works removed whole (nothing of them is left)"
    )


class SearchOut(_Out):
    matches: list[MatchOut] = Field(description="PriorisMCP's view of the hits")
    query: str
    mode: str
    took_ms: float
    hits: list[HitOut] = Field(description="Prioris: the hits with work metadata and ranks")
    left_out_no_year: int | None = Field(
        default=None,
        description=(
            "Prioris: works without a year the year filter left out (fts: those matching; "
            "vector/hybrid: all in scope); absent without a year filter or with "
            "include_undated"
        ),
    )
    missing_shards: list[str] | None = Field(
        default=None,
        description=(
            "Prioris: shards of a sharded library this search could not ask "
            "(PRIORIS_MCP_DB_SHARD_MISSING=partial): their works are missing from the hits; "
            "absent when every shard answered"
        ),
    )


class ResolveOut(_Out):
    result: ResolvedOut | None = Field(
        description="PriorisMCP's resolution (null when no arXiv / Europe PMC copy is known)"
    )
    input: str
    id: str = Field(description="Prioris: canonical id, e.g. arxiv:2401.01234v2")
    provider: str = Field(description="Prioris: arxiv, europepmc, openalex, doi or file")
    in_library: bool
    work_id: str | None = Field(description="Prioris: the stored work this id refers to, if any")
    provider_error: str | None = Field(
        default=None,
        description=(
            "Prioris: why `result` is null for a work the library holds (the provider could "
            "not be reached); `in_library` and `work_id` still answer"
        ),
    )
