"""Actions and fragments: search results, page images, uploads, fetch, discovery, delete,
export, re-index and job progress.

State-changing routes are POST (the middleware demands the CSRF token on each); long ones
return a job at once and the page polls ``/api/jobs/{id}``. Bodies are size-capped while
they are read: PDFs and JSONL files at ``PRIORIS_MCP_MAX_FILE_BYTES``, JSON at 1 MiB.
Nothing here requests a URL a page supplies: fetches go to the configured providers by
identifier, and discovery's PDF links are only shown.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError, NotFoundError, PriorisError
from prioris.interfaces.web import tasks
from prioris.interfaces.web.pages import SearchForm, int_param, label_params, run_search
from prioris.interfaces.web.security import read_json, save_body
from prioris.interfaces.web.state import blocking, state_of

MAX_IDENTIFIERS = 200
STALE_UPLOAD_SECONDS = 6 * 3600.0
EXPORTS = {
    "bibtex": ("application/x-bibtex; charset=utf-8", "bib"),
    "csl-json": ("application/vnd.citationstyles.csl+json; charset=utf-8", "json"),
    "ris": ("application/x-research-info-systems; charset=utf-8", "ris"),
    "text": ("text/plain; charset=utf-8", "txt"),
}
CITE_STYLES = ("apa", "vancouver", "ieee", "chicago-author-date")
"""The styles the web offers (the bundled ones; no style files from a request)."""
_SAFE_NAME = re.compile(r"[^\w.\- ()\[\]]+")


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


def _filename(request: Request, default: str) -> str:
    """The uploaded file's name as the page gave it, for display only (never a path)."""
    raw = request.query_params.get("name") or default
    name = _SAFE_NAME.sub("_", Path(raw.replace("\\", "/")).name)[:200]
    return name or default


def upload_folder(db_path: Path) -> Path:
    """Where uploads wait for their job: ``uploads/web`` beside the library file."""
    from prioris.ingest.uploads import upload_directory

    return upload_directory(db_path) / "web"


def sweep_uploads(folder: Path, older_than: float = STALE_UPLOAD_SECONDS) -> list[Path]:
    """Remove uploads a killed server left behind (untouched for ``older_than`` seconds;
    a live server's files in transit are fresh and stay)."""
    removed = []
    if not folder.is_dir():
        return removed
    limit = time.time() - older_than
    for path in folder.iterdir():
        try:
            if path.is_file() and path.stat().st_mtime < limit:
                path.unlink()
                removed.append(path)
        except OSError:
            continue
    return removed


def _temp_path(request: Request, suffix: str) -> Path:
    """A new empty file under ``uploads/web`` beside the library for an upload in transit."""
    folder = upload_folder(state_of(request).library.settings.db_path)
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, suffix=suffix)
    os.close(handle)
    return Path(name)


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


async def upload(request: Request) -> Response:
    """One PDF as the raw body (``?name=`` for display); ingested by a job."""
    state = state_of(request)
    name = _filename(request, "upload.pdf")
    limit = state.library.settings.max_file_bytes
    path = _temp_path(request, ".pdf")
    await save_body(request, path, limit, f"{name}")
    job = state.jobs.submit(
        "upload", name, tasks.upload_job(state.library, path, name), items=[name]
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def import_jsonl(request: Request) -> Response:
    """A JSONL file of records as the raw body; imported by a job."""
    state = state_of(request)
    name = _filename(request, "records.jsonl")
    limit = state.library.settings.max_file_bytes
    suffix = Path(name).suffix.lower()
    path = _temp_path(request, suffix if suffix in (".bib", ".bibtex", ".ris") else ".jsonl")
    await save_body(request, path, limit, name)
    if suffix in (".bib", ".bibtex", ".ris"):  # an uploaded reference file: its metadata
        run = tasks.reference_text_job(state.library, path, name)
    else:
        run = tasks.import_job(state.library, path, name)
    job = state.jobs.submit("import", name, run, items=[name])
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def zotero_sync(request: Request) -> Response:
    """``{"path"?}``: sync a Zotero data directory of this computer by a job (one at a
    time: a running sync is returned)."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    running = [j for j in state.jobs.list(["zotero"]) if j["active"]]
    if running:
        return JSONResponse({"job": running[0]}, status_code=202)
    directory = state.library.zotero_dir(raw or None)
    if not directory.is_dir():
        raise NotFoundError(f"no Zotero data directory {str(directory)!r} on this computer")
    job = state.jobs.submit(
        "zotero",
        f"Zotero: {directory}",
        tasks.zotero_job(state.library, str(directory)),
        items=[str(directory)],
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def import_references(request: Request) -> Response:
    """``{"path"}``: a BibTeX or RIS file of this computer, imported with the PDFs its
    entries link to, by a job."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    if not raw:
        raise InvalidRequestError("give the path of a .bib or .ris file")
    file = Path(raw).expanduser()
    if not file.is_file():
        raise NotFoundError(f"no file {raw!r} on this computer")
    job = state.jobs.submit(
        "references", file.name, tasks.references_job(state.library, str(file)), items=[file.name]
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def ingest_folder(request: Request) -> Response:
    """``{"path"}``: every PDF under a folder of this computer, by a job."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    if not raw:
        raise InvalidRequestError("give the path of a folder")
    folder = Path(raw).expanduser()
    if not folder.is_dir():
        raise NotFoundError(f"no folder {raw!r} on this computer")
    job = state.jobs.submit("folder", str(folder), tasks.folder_job(state.library, str(folder)))
    return JSONResponse({"job": job.snapshot()}, status_code=202)


def split_identifiers(text: str) -> list[str]:
    """Identifiers pasted one per line, or separated by spaces, commas or semicolons."""
    return list(dict.fromkeys(t for t in re.split(r"[\s,;]+", text) if t))


async def fetch(request: Request) -> Response:
    """``{"identifiers": "..." | [...]}``: fetch from the providers, by a job."""
    state = state_of(request)
    data = await read_json(request)
    raw = data.get("identifiers") or ""
    identifiers = split_identifiers(" ".join(raw) if isinstance(raw, list) else str(raw))
    if not identifiers:
        raise InvalidRequestError("paste at least one identifier (arXiv, PMCID, DOI, OpenAlex)")
    if len(identifiers) > MAX_IDENTIFIERS:
        raise InvalidRequestError(f"at most {MAX_IDENTIFIERS} identifiers at once")
    title = identifiers[0] if len(identifiers) == 1 else f"{len(identifiers)} identifiers"
    job = state.jobs.submit(
        "fetch", title, tasks.fetch_job(state.library, identifiers), items=identifiers
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


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
