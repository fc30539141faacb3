"""The HTML pages about the library as a whole: Library, Add, Discover, Status.

The listing of every work (sorted, filtered, paged), the forms that grow the library
(uploads, imports, fetches; searching the providers) and its health (counts, plots, the
re-index and compaction jobs). They are apart from :mod:`.pages` (Search and Read: finding
a work and reading it), whose URL parameters and facets they reuse; the app registers
their routes right after those pages', in the same order as ever.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError
from prioris.interfaces.web import charts, views
from prioris.interfaces.web.pages import MAX_NUMBER, int_param, label_facets, label_params
from prioris.interfaces.web.state import blocking, state_of

LIBRARY_PAGE = 50
UPLOAD_KINDS = ("upload", "folder", "fetch", "import", "zotero", "references")


async def library_page(request: Request) -> Response:
    state = state_of(request)
    params = request.query_params
    sort = params.get("sort") or "added"
    order = params.get("order") or ("asc" if sort == "title" else "desc")
    if order not in ("asc", "desc"):
        raise InvalidRequestError(f"order must be asc or desc, got {order!r}")
    # the page's offset (p - 1) x 50 must still be a number the database takes
    number = int_param(params, "p", low=1, high=MAX_NUMBER // LIBRARY_PAGE) or 1
    text = (params.get("q") or "").strip()
    source = (params.get("source") or "").strip()
    collection, tags = label_params(params)
    listing = await blocking(
        state.library.browse,
        sort=sort,
        descending=order == "desc",
        text=text or None,
        source=source or None,
        limit=LIBRARY_PAGE,
        offset=(number - 1) * LIBRARY_PAGE,
        collections=collection or None,
        tags=tags or None,
    )
    counts = await blocking(state.library.year_source_counts)
    names = {  # what the collection and tag boxes offer
        "collections": [c["path"] for c in await blocking(state.library.list_collections)],
        "tags": [t for t, _ in await blocking(state.library.tag_counts)],
    }
    last = max(1, -(-listing["total"] // LIBRARY_PAGE))
    filters = {
        "sort": sort,
        "order": order,
        "q": text,
        "source": source,
        "collection": collection,
        "tag": list(tags),
    }
    sort_links = {}
    for key in ("added", "year", "title"):
        flipped = "asc" if order == "desc" else "desc"
        default = "asc" if key == "title" else "desc"
        sort_links[key] = "/library" + views.query_string(
            filters, sort=key, order=flipped if key == sort else default
        )
    return state.render(
        request,
        "library.html",
        listing=listing,
        filters=filters,
        sort_links=sort_links,
        sources=sorted({row["source"] for row in counts}),
        facets=await label_facets(request, tags),
        names=names,
        number=number,
        last=last,
        page="library",
    )


async def add_page(request: Request) -> Response:
    state = state_of(request)
    settings = state.library.settings
    remote = request.app.state.sessions is not None  # accounts mode: paths of the server
    return state.render(
        request,
        "add.html",
        jobs=state.jobs.list(UPLOAD_KINDS)[:20],
        max_file_bytes=settings.max_file_bytes,
        zotero_dir="" if remote else str(state.library.zotero_dir()),
        remote=remote,
        import_dirs=[str(folder) for folder in settings.allowed_import_dirs],
        page="add",
    )


async def discover_page(request: Request) -> Response:
    state = state_of(request)
    return state.render(
        request,
        "discover.html",
        has_key=bool(state.library.settings.openalex_api_key),
        page="discover",
    )


async def status_page(request: Request) -> Response:
    state = state_of(request)
    status = await blocking(state.library.status)
    counts = await blocking(state.library.year_source_counts)
    reindex = next(iter(state.jobs.list(["reindex"])), None)
    compact = next(iter(state.jobs.list(["compact"])), None)
    return state.render(
        request,
        "status.html",
        status=status,
        counts=counts,
        year_plot=charts.works_per_year_svg(counts),
        year_rows=charts.works_per_year_rows_svg(counts),
        legend=charts.legend_html(counts),
        source_plot=charts.works_by_source_svg(counts),
        undated=sum(r["count"] for r in counts if r["year"] is None),
        reindex=reindex,
        compact=compact,
        engine=state.library.storage.kind,
        page="status",
    )


ROUTES = [
    Route("/library", library_page),
    Route("/add", add_page),
    Route("/discover", discover_page),
    Route("/status", status_page),
]
