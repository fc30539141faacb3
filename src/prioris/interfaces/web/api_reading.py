"""The library's works as the pages read them: search results, page images, stored
originals, exports and citations.

Read-only GET routes (nothing here changes the library): the Search page's results
fragment, a PDF page rendered with the hit's passage marked, a stored original as a
download, the export of selected works and one work's citation. Apart from the routes
that bring works in or run jobs (:mod:`.api_intake`, :mod:`.api`), which is where the
route table is assembled.
"""

from __future__ import annotations

import re
import time
import unicodedata
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.interfaces.web.pages import SearchForm, int_param, label_params, run_search
from prioris.interfaces.web.state import blocking, state_of

EXPORTS = {
    "bibtex": ("application/x-bibtex; charset=utf-8", "bib"),
    "csl-json": ("application/vnd.citationstyles.csl+json; charset=utf-8", "json"),
    "ris": ("application/x-research-info-systems; charset=utf-8", "ris"),
    "text": ("text/plain; charset=utf-8", "txt"),
}
CITE_STYLES = ("apa", "vancouver", "ieee", "chicago-author-date")
"""The styles the web offers (the bundled ones; no style files from a request)."""


def content_disposition(name: str) -> str:
    """``attachment`` with the file's own name: an ASCII ``filename`` for old clients and
    the UTF-8 ``filename*`` (RFC 6266, RFC 5987) for the rest; quotes, backslashes and
    control characters never reach the header."""
    name = re.sub(r"[\x00-\x1f\x7f\\\"/]+", "_", name).strip() or "document"
    fallback = "".join(
        ch if ch.isascii() else "" if unicodedata.combining(ch) else "_"
        for ch in unicodedata.normalize("NFKD", name)
    )
    fallback = re.sub(r"[^\w.\- ()\[\]]+", "_", fallback).strip() or "document"
    encoded = quote(name, safe="")
    if fallback == name:
        return f'attachment; filename="{name}"'
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}"


async def search_fragment(request: Request) -> Response:
    """The results list of a search as HTML (the Search page swaps it in without reload)."""
    state = state_of(request)
    started = time.perf_counter()
    try:
        form = SearchForm.parse(request.query_params)
    except InvalidRequestError as exc:
        form = SearchForm()
        results: dict[str, Any] | None = {
            "error": exc.to_dict(),
            "hits": [],
            "took_ms": 0.0,
            "server_ms": 0.0,
        }
    else:
        results = await run_search(request, form) if form.q else None
    rendered = state.templates.get_template("_results.html").render(form=form, results=results)
    total_ms = (time.perf_counter() - started) * 1000
    search_ms = results["server_ms"] if results else 0.0
    return Response(
        rendered,
        media_type="text/html; charset=utf-8",
        headers={
            "Server-Timing": f"search;dur={search_ms:.1f}, total;dur={total_ms:.1f}",
            "Cache-Control": "no-store",
        },
    )


async def page_image(request: Request) -> Response:
    """A PDF page as PNG, the hit's passage marked (``id``, ``page``, optional ``chunk``)."""
    params = request.query_params
    number = int_param(params, "page", low=1) or 1
    chunk = int_param(params, "chunk")
    library = state_of(request).library
    png, marked = await blocking(library.page_image, params.get("id") or "", number, chunk_id=chunk)
    return Response(
        png,
        media_type="image/png",
        headers={
            "X-Passage-Marked": "1" if marked else "0",
            "Cache-Control": "private, max-age=60",
        },
    )


async def document(request: Request) -> Response:
    """A work's stored original (always as a download, never rendered on this origin)."""
    library = state_of(request).library
    work, documents = await blocking(library.original, request.query_params.get("id") or "")
    sha = request.query_params.get("sha") or ""
    doc = next((d for d in documents if d["sha256"] == sha), None)
    if doc is None:
        raise NotFoundError(f"{work.id} has no stored document {sha!r}")
    data = await blocking(library.document_bytes, sha)
    media = "application/pdf" if doc["format"] == "pdf" else "application/octet-stream"
    return Response(
        data,
        media_type=media,
        headers={"Content-Disposition": content_disposition(doc["name"])},
    )


async def export(request: Request) -> Response:
    """Citations of the selected works (``id`` repeated), or of all with ``all=1``; the
    ``collection`` and ``tag`` parameters keep the works filed there."""
    params = request.query_params
    fmt = params.get("format") or "bibtex"
    if fmt not in EXPORTS:
        raise InvalidRequestError(f"format must be one of {', '.join(EXPORTS)}, got {fmt!r}")
    style = params.get("style") if fmt == "text" else None
    if style is not None and style not in CITE_STYLES:
        raise InvalidRequestError(f"style must be one of {', '.join(CITE_STYLES)}, got {style!r}")
    ids = params.getlist("id")
    if not ids and params.get("all") != "1":
        raise InvalidRequestError("select at least one work to export")
    collection, tags = label_params(params)
    text = await blocking(
        state_of(request).library.export,
        ids or None,
        fmt,
        style,
        collections=collection or None,
        tags=tags or None,
    )
    media, extension = EXPORTS[fmt]
    return Response(
        text,
        media_type=media,
        headers={"Content-Disposition": f'attachment; filename="prioris.{extension}"'},
    )


async def cite(request: Request) -> Response:
    """One work's citation to copy: ``?id=…&style=apa`` (a bundled style) or
    ``&format=bibtex|ris|csl-json``; JSON ``{"id", "key", "citation", "format", "style"}``."""
    params = request.query_params
    fmt = params.get("format") or "text"
    style = params.get("style") or None
    if fmt == "text":
        style = style or CITE_STYLES[0]
        if style not in CITE_STYLES:
            raise InvalidRequestError(
                f"style must be one of {', '.join(CITE_STYLES)}, got {style!r}"
            )
    elif fmt not in EXPORTS:
        raise InvalidRequestError(f"format must be one of {', '.join(EXPORTS)}, got {fmt!r}")
    else:
        style = None
    found = await blocking(state_of(request).library.cite, [params.get("id") or ""], style, fmt)
    (item,) = found["items"]
    return JSONResponse({**item, "format": found["format"], "style": found["style"]})
