"""MCP resources: stored Markdown and original bytes, arXiv categories, OpenAlex work types.

URIs name a work by provider and provider-local id, e.g.
``research://arxiv/2401.01234v2/pdf/markdown?page=2`` or
``research://file/0123456789abcdef/pdf/fulltext``. Ids containing ``/`` (DOIs, old arXiv
ids) are percent-encoded (``hep-th%2F9901001v1``). ``format`` must be the format of a
document the library stores for that work (pdf, html, xml, text).
"""

from __future__ import annotations

import json
from typing import Any

from prioris.errors import FormatUnavailableError, InvalidRequestError, NotFoundError, PriorisError
from prioris.interfaces.mcp.runtime import PriorisMCPServer, ServerState, blocking, resource_error

MARKDOWN_URI = "research://{provider}/{identifier}/{format}/markdown{?offset,limit,page}"
FULLTEXT_URI = "research://{provider}/{identifier}/{format}/fulltext"
PROVIDERS = ("arxiv", "europepmc", "doi", "openalex", "pmid", "file", "import")
FULLTEXT_MIME = {
    "pdf": "application/pdf",
    "html": "text/html",
    "xml": "application/xml",
    "text": "text/plain",
}
DEFAULT_LIMIT = 10_000


def _document(state: ServerState, provider: str, identifier: str, fmt: str) -> tuple[str, Any]:
    """(work id, the stored document of that format) or a PriorisError saying why not."""
    if provider not in PROVIDERS:
        raise InvalidRequestError(f"unknown provider {provider!r}; one of {', '.join(PROVIDERS)}")
    library = state.library()
    candidates = [identifier] if provider == "import" else [f"{provider}:{identifier}", identifier]
    work_id = None
    for candidate in candidates:
        try:
            work_id = library.resolve_work_id(candidate)
            break
        except (NotFoundError, InvalidRequestError):
            continue
    if work_id is None:
        raise NotFoundError(f"no work {provider}:{identifier} in the library")
    _, documents = library.original(work_id)
    matching = [d for d in documents if d["format"] == fmt]
    if not matching:
        stored = sorted({d["format"] for d in documents}) or ["none"]
        raise FormatUnavailableError(
            f"{work_id} has no stored {fmt!r} document (stored: {', '.join(stored)})"
        )
    return work_id, matching[-1]


def register_resources(server: PriorisMCPServer, state: ServerState) -> None:
    """Add the Markdown, full-text, arXiv-categories and OpenAlex work-types resources."""

    @server.resource(
        MARKDOWN_URI,
        name="work_markdown",
        mime_type="text/markdown",
        description=(
            "A stored work's full text as Markdown. Optional query: page (1-based PDF page), "
            "offset and limit (characters; default limit 10000). Paging details (total_length, "
            "has_more, next_offset) come with the research_*_parse_full_text tools."
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
            work_id, _ = _document(state, provider, identifier, format)
            shown = state.library().show(
                work_id, page=page, offset=offset, limit=limit or DEFAULT_LIMIT
            )
            return str(shown["markdown"])

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
            _, document = _document(state, provider, identifier, format)
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
            "arXiv's categories (OAI-PMH sets): spec, name and the category "
            "name usable in cat: queries and research_arxiv_list_top_n."
        ),
    )
    async def arxiv_categories() -> str:
        try:
            found = await blocking(lambda: state.library().remote.arxiv.list_categories())
        except PriorisError as exc:
            raise resource_error(exc) from exc
        return json.dumps([c.to_dict() for c in found], ensure_ascii=False)

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


def fulltext_mime(uri: str) -> str | None:
    """The MIME type of a ``.../{format}/fulltext`` URI (the template has only one)."""
    parts = uri.split("?", 1)[0].rstrip("/").split("/")
    if len(parts) >= 2 and parts[-1] == "fulltext":
        return FULLTEXT_MIME.get(parts[-2])
    return None
