"""The JSON API's route table, and the routes that act on the library as a whole:
discovery, delete, re-index, compact and job progress.

State-changing routes are POST (the middleware demands the CSRF token on each); long ones
return a job at once and the page polls ``/api/jobs/{id}``. Bodies are size-capped while
they are read (JSON at 1 MiB). Nothing here requests a URL a page supplies: discovery's
PDF links are only shown.

The other routes live by area: reading works (search results, page images, originals,
export, cite) in :mod:`.api_reading`, bringing works in (uploads, imports, folders,
Zotero, reference files, fetch) in :mod:`.api_intake`. :data:`ROUTES` lists them all in
one order, the app's.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.interfaces.web import tasks
from prioris.interfaces.web.api_intake import (
    fetch,
    import_jsonl,
    import_references,
    ingest_folder,
    upload,
    zotero_sync,
)
from prioris.interfaces.web.api_reading import cite, document, export, page_image, search_fragment
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of


async def discover(request: Request) -> Response:
    """``{"text", "from_year", "to_year", "oa_only", "page"}``: candidates as HTML."""
    state = state_of(request)
    library = state.library
    data = await read_json(request)

    def year(name: str) -> int | None:
        value = data.get(name)
        if value in (None, ""):
            return None
        try:
            return int(value)
        except (TypeError, ValueError):
            raise InvalidRequestError(f"{name} must be a year, got {value!r}") from None

    page = year("page") or 1
    result = await blocking(
        library.discover,
        str(data.get("text") or ""),
        page=page,
        per_page=25,
        from_year=year("from_year"),
        to_year=year("to_year"),
        open_access_only=bool(data.get("oa_only")),
    )

    def stored_id(hit: Any) -> str | None:
        for alias in [hit.id, *hit.aliases]:
            try:
                return library.resolve_work_id(alias)
            except PriorisError:
                continue
        return None

    stored = {}
    for hit in result.results:
        if hit.in_library:
            stored[hit.id] = await blocking(stored_id, hit)
    html = state.templates.get_template("_discover_results.html").render(
        result=result, stored=stored, csrf_token=state.csrf_token
    )
    return Response(html, media_type="text/html; charset=utf-8")


async def delete(request: Request) -> Response:
    """``{"ids": [...]}``: remove works from the library (the page asked for confirmation)."""
    state = state_of(request)
    data = await read_json(request)
    ids = data.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise InvalidRequestError("ids must be a non-empty list of work ids")
    deleted = await blocking(state.library.delete, ids)
    return JSONResponse({"deleted": deleted})


def _one_job(request: Request, kind: str, label: str, make: Any) -> Response:
    """Start a library-wide job of ``kind``, one at a time: a running one is returned."""
    state = state_of(request)
    running = [j for j in state.jobs.list([kind]) if j["active"]]
    if running:
        return JSONResponse({"job": running[0]}, status_code=202)
    job = state.jobs.submit(kind, label, make(state.library))
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def reindex(request: Request) -> Response:
    """Re-embed stale chunks by a job."""
    return _one_job(request, "reindex", "re-index stale chunks", tasks.reindex_job)


async def compact(request: Request) -> Response:
    """Compact the library file by a job (SQLite: ``reindex --compact``)."""
    return _one_job(request, "compact", "compact the library", tasks.compact_job)


async def jobs(request: Request) -> Response:
    """Snapshots of jobs: ``?kind=`` (repeatable) filters."""
    kinds = request.query_params.getlist("kind")
    return JSONResponse(
        {"jobs": state_of(request).jobs.list(kinds or None)},
        headers={"Cache-Control": "no-store"},
    )


async def job(request: Request) -> Response:
    found = state_of(request).jobs.get(request.path_params["job_id"])
    if found is None:
        raise NotFoundError(f"no job {request.path_params['job_id']!r} (the server restarted?)")
    return JSONResponse({"job": found}, headers={"Cache-Control": "no-store"})


ROUTES = [
    Route("/api/search", search_fragment),
    Route("/api/page.png", page_image),
    Route("/document", document),
    Route("/export", export),
    Route("/api/cite", cite),
    Route("/api/upload", upload, methods=["POST"]),
    Route("/api/import", import_jsonl, methods=["POST"]),
    Route("/api/folder", ingest_folder, methods=["POST"]),
    Route("/api/zotero-sync", zotero_sync, methods=["POST"]),
    Route("/api/references", import_references, methods=["POST"]),
    Route("/api/fetch", fetch, methods=["POST"]),
    Route("/api/discover", discover, methods=["POST"]),
    Route("/api/delete", delete, methods=["POST"]),
    Route("/api/reindex", reindex, methods=["POST"]),
    Route("/api/compact", compact, methods=["POST"]),
    Route("/api/jobs", jobs),
    Route("/api/jobs/{job_id}", job),
]
