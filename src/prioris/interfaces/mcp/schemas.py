"""Structured outputs of the MCP tools: pydantic models the SDK publishes as output schemas.

Each model mirrors a Library result (``Work``, ``Hit``, ``IngestResult``, upload sessions,
discovery pages) field for field, so an LLM caller gets typed JSON and the same names the
CLI's ``--json`` uses; :mod:`prioris.interfaces.mcp.reference` wraps them in PriorisMCP's
shapes. The helpers only reshape; they decide nothing.
"""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


def as_dict(value: Any) -> dict[str, Any]:
    """A Library result as a plain dict (``to_dict()``, a dataclass, or a dict)."""
    if isinstance(value, dict):
        return value
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    raise TypeError(f"cannot convert {type(value).__name__} to a dict")


class WorkOut(_Out):
    """Bibliographic record of one paper (remote or stored)."""

    id: str = Field(description="canonical id, e.g. arxiv:2401.01234v2, europepmc:PMC123")
    title: str = ""
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    aliases: list[str] = Field(default=[], description="other ids of the same work (doi:, ...)")
    source: str = ""
    published: str | None = None
    type: str | None = None
    is_oa: bool | None = None
    oa_status: str | None = None
    pdf_url: str | None = None
    cited_by_count: int | None = None
    concepts: list[str] = []
    is_preprint: bool | None = None
    extra: dict[str, Any] = Field(default={}, description="provider-specific fields")


def works(items: list[Any]) -> list[WorkOut]:
    return [WorkOut.model_validate(as_dict(w)) for w in items]


class OpenAlexSearchOut(_Out):
    total: int
    page: int
    per_page: int
    has_more: bool
    results: list[WorkOut]


class DiscoveryHitOut(_Out):
    id: str
    doi: str | None = None
    title: str = ""
    authors: list[str] = []
    year: int | None = None
    venue: str | None = None
    type: str | None = None
    abstract: str | None = None
    cited_by_count: int | None = None
    relevance_score: float | None = None
    is_oa: bool | None = None
    oa_status: str | None = None
    in_library: bool = Field(description="true when the library already holds this work")
    fetch_route: dict[str, Any] = Field(
        description="how to get the full text: a provider id for research_*_fetch_full_text, "
        "an open-access pdf_url to download yourself, or manual_upload"
    )
    aliases: list[str] = []


class DiscoveryOut(_Out):
    total: int = Field(description="OpenAlex's count of matches")
    has_more: bool
    page: int
    per_page: int
    results: list[DiscoveryHitOut]


class IngestOut(_Out):
    id: str = Field(description="work id; use it with research_*_parse_full_text and search ids")
    status: Literal["ingested", "skipped"] = Field(
        description="skipped: identical bytes were already stored (same id returned)"
    )
    filename: str | None = None
    pages: int = 0
    ocr_pages: int = Field(default=0, description="pages whose text came from OCR")
    chunks: int = 0
    reason: str | None = None
    warnings: list[str] = Field(
        default_factory=list, description="e.g. a damaged PDF that MuPDF repaired"
    )


def ingest_out(result: Any, filename: str | None = None) -> IngestOut:
    data = as_dict(result)
    status = (
        getattr(result, "status", None)
        or data.get("status")
        or ("skipped" if data.get("reason") else "ingested")
    )
    return IngestOut(
        id=data["id"],
        status=status,
        filename=filename or data.get("path"),
        pages=data.get("pages") or 0,
        ocr_pages=data.get("ocr_pages") or 0,
        chunks=data.get("chunks") or 0,
        reason=data.get("reason"),
        warnings=list(data.get("warnings") or []),
    )


class FetchFailureOut(_Out):
    identifier: str
    code: str
    message: str


class UploadOut(_Out):
    session_id: str
    filename: str | None = None
    next_index: int = Field(description="index the next chunk must carry")
    received_bytes: int
    max_chunk_bytes: int = Field(description="largest decoded chunk accepted")
    max_total_bytes: int = Field(description="largest file accepted")
    idle_timeout_seconds: float = Field(description="session expires after this long idle")


class LibraryItemOut(_Out):
    id: str
    title: str = ""
    authors: list[str] = []
    year: int | None = None
    source: str = ""
    documents: int = 0
    chunks: int = 0
    pages: int = 0
    added: str | None = None
    collections: list[str] = []
    tags: list[str] = []


class HitOut(_Out):
    id: str = Field(description="work id (pass to research_*_parse_full_text)")
    title: str
    authors: list[str]
    year: int | None
    score: float
    ranks: dict[str, int | None] = Field(description="rank in each mode's list (1 = best)")
    scores: dict[str, float | None] = Field(
        default={},
        description="each mode's own score: fts BM25 (higher is better), vector cosine "
        "similarity; null where the hit is not in that mode's list",
    )
    snippet: str = Field(description="matched passage, matched terms marked")
    page_start: int | None
    page_end: int | None
    offset: int | None = Field(description="character offset of the passage in the Markdown")
    chunk_id: int | None
    source: str | None = None
    section: str | None = Field(
        default=None,
        description="the passage's part of the paper: abstract, body, references, "
        "acknowledgements, funding, author_info or appendix (back matter is shown only when "
        "a work has no better passage); note or highlight for the researcher's own note or "
        "highlight from their reference manager (page_start is its page)",
    )
