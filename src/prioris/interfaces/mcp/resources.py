"""MCP resources: stored Markdown pages and original bytes, arXiv categories, OpenAlex
work types.

URIs name a work as PriorisMCP does, by provider and canonical identifier:
``research://arxiv/2401.01234v2/pdf/markdown?page=2``,
``research://europepmc/PMC:3339582/xml/fulltext``,
``research://localfile/file:0123456789abcdef/pdf/markdown`` (the id the upload tools
return; the 16 hex digits alone also work). Ids containing ``/`` (old arXiv ids, DOIs)
are percent-encoded (``hep-th%2F9901001v1``). ``format`` is a stored format (pdf, html,
xml, text). The Markdown resource returns PriorisMCP's JSON page, the same fields as the
``research_*_parse_full_text`` tools; nothing here fetches or parses anything new.
"""

from __future__ import annotations

import json
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.interfaces.mcp.reference import ParsedOut
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, resource_error
from prioris.interfaces.mcp.uris import FULLTEXT_URI, MARKDOWN_URI

PROVIDERS = ("arxiv", "europepmc", "localfile", "file", "import", "openalex", "doi", "pmid")


def _provider(provider: str) -> str:
    """The provider hint for resolving an identifier (``file`` is ``localfile``)."""
    if provider not in PROVIDERS:
        raise InvalidRequestError(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
    return "localfile" if provider == "file" else provider


def arxiv_categories(found: list[Any]) -> dict[str, list[dict[str, str]]]:
    """PriorisMCP's category list: leaf OAI-PMH sets only (a set no other set extends by
    one more ``:segment``), ``physics:astro-ph:CO`` as ``astro-ph.CO``, sorted by code."""
    specs = {c.spec for c in found}
    parents = {spec.rsplit(":", 1)[0] for spec in specs if ":" in spec}
    leaves = {}
    for category in found:
        if category.spec in parents or ":" not in category.spec:
            continue
        code = ".".join(category.spec.split(":")[1:])
        leaves[code] = {"code": code, "name": category.name}
    return {"categories": [leaves[code] for code in sorted(leaves)]}


def register_resources(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the Markdown, full-text, arXiv-categories and OpenAlex work-types resources."""

    @server.resource(
        MARKDOWN_URI,
        name="work_markdown",
        mime_type="application/json",
        description=(
            "A page of a stored work's text, as JSON: markdown, offset, limit (default "
            "20000), total_length, has_more, total_pages and page_range (PDF; else null), "
            "resource_uri. Query: offset, limit, page (1-based PDF page)."
        ),
    )
    async def work_markdown(
        provider: str,
        identifier: str,
        format: str,
        offset: int | None = None,
        limit: int | None = None,
        page: int | None = None,
    ) -> str:
        def run() -> str:
            view = state.library().artefacts.read(
                identifier,
                provider=_provider(provider),
                fmt=format,
                page=page,
                offset=offset or 0,
                limit=limit,
            )
            return ParsedOut.model_validate(view).model_dump_json()

        try:
            return await blocking(run)
        except PriorisError as exc:
            raise resource_error(exc) from exc

    @server.resource(
        FULLTEXT_URI,
        name="work_fulltext",
        description=(
            "The original stored document: PDF bytes as a blob (application/pdf), JATS XML, "
            "HTML or plain text as text."
        ),
    )
    async def work_fulltext(provider: str, identifier: str, format: str) -> str | bytes:
        def run() -> str | bytes:
            artefacts = state.library().artefacts
            work_id = artefacts.resolve(_provider(provider), identifier)
            document = artefacts.document(work_id, format)
            if document is None:
                raise NotFoundError(f"{work_id} has no stored {format!r} document")
            data = state.library().document_bytes(document["sha256"])
            if format == "pdf":
                return data
            return data.decode("utf-8", errors="replace")

        try:
            return await blocking(run)
        except PriorisError as exc:
            raise resource_error(exc) from exc

    @server.resource(
        "research://arxiv/categories",
        name="arxiv_categories",
        mime_type="application/json",
        description=(
            "arXiv's categories as {categories: [{code, name}]}, sorted by code: the codes "
            "usable in cat: queries and research_arxiv_list_top_n (from OAI-PMH ListSets)."
        ),
    )
    async def arxiv_categories_resource() -> str:
        try:
            found = await blocking(lambda: state.library().remote.arxiv.list_categories())
        except PriorisError as exc:
            raise resource_error(exc) from exc
        return json.dumps(arxiv_categories(found), ensure_ascii=False)

    @server.resource(
        "research://openalex/work-types",
        name="openalex_work_types",
        mime_type="application/json",
        description=("OpenAlex's work-type vocabulary (article, preprint, review, ...)."),
    )
    async def openalex_work_types() -> str:
        try:
            found = await blocking(lambda: state.library().openalex_work_types())
        except PriorisError as exc:
            raise resource_error(exc) from exc
        return json.dumps(found, ensure_ascii=False)
