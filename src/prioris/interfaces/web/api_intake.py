"""What comes into the library from the pages: uploads, imports, folders, a Zotero sync,
reference files and fetches by identifier, each handed to a job.

State-changing POST routes (the middleware demands the CSRF token on each); each returns
its job at once and the page polls ``/api/jobs/{id}`` (:mod:`.api`). Bodies are
size-capped while they are read: PDFs and JSONL files at ``PRIORIS_MCP_MAX_FILE_BYTES``,
JSON at 1 MiB; an upload waits in ``uploads/web`` beside the library until its job takes
it, and the app sweeps what a killed server left there. Nothing here requests a URL a page
supplies: fetches go to the configured providers by identifier.
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from pathlib import Path

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.interfaces.web import tasks
from prioris.interfaces.web.security import read_json, save_body
from prioris.interfaces.web.state import state_of

MAX_IDENTIFIERS = 200
STALE_UPLOAD_SECONDS = 6 * 3600.0
_SAFE_NAME = re.compile(r"[^\w.\- ()\[\]]+")


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


def remote(request: Request) -> bool:
    """Accounts mode (``prioris ui --allow-remote``): the person at the page is not the one
    at the server, so a path in a request names nothing of the server's disk except under
    the folders an admin listed (``PRIORIS_MCP_ALLOWED_IMPORT_DIRS``)."""
    return request.app.state.sessions is not None


def confinement(request: Request) -> tuple[Path, ...] | None:
    """The folders a job started by ``request`` may read files from: None (anywhere the
    server's user may) on loopback, the admin's list in accounts mode."""
    return state_of(request).library.settings.allowed_import_dirs if remote(request) else None


def server_path(request: Request, raw: str, kind: str) -> Path:
    """The ``kind`` (``folder``, ``file``) a request names. On loopback: that path of this
    computer (``~`` expanded), NotFoundError if absent. In accounts mode: only an absolute
    path whose real location (links followed) lies under an allowed folder, and one answer,
    the same words, for a path that is missing, not allowed or of the wrong kind, so a
    request learns nothing of the server's disk."""
    if not remote(request):
        path = Path(raw).expanduser()
        if not (path.is_dir() if kind == "folder" else path.is_file()):
            raise NotFoundError(f"no {kind} {raw!r} on this computer")
        return path
    allowed = confinement(request) or ()
    listed = ", ".join(str(folder) for folder in allowed) or "none: use the uploads"
    refused = NotFoundError(
        f"no {kind} {raw!r} among the server's import folders ({listed}); "
        "an admin lists them in PRIORIS_MCP_ALLOWED_IMPORT_DIRS"
    )
    path = Path(raw)
    if "\x00" in raw or not path.is_absolute():
        raise refused
    try:
        real = Path(os.path.realpath(path))
        inside = any(real.is_relative_to(os.path.realpath(folder)) for folder in allowed)
        found = real.is_dir() if kind == "folder" else real.is_file()
    except (OSError, ValueError):
        raise refused from None
    if not (inside and found):
        raise refused
    return real


async def zotero_sync(request: Request) -> Response:
    """``{"path"?}``: sync a Zotero data directory by a job (one at a time: a running sync
    is returned): the server's own (``PRIORIS_MCP_ZOTERO_DIR``) when no path is given,
    else a folder of this computer (in accounts mode, under an allowed folder)."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    running = [j for j in state.jobs.list(["zotero"]) if j["active"]]
    if running:
        return JSONResponse({"job": running[0]}, status_code=202)
    if raw:
        directory = server_path(request, raw, "folder")
    else:
        directory = state.library.zotero_dir()
        if not directory.is_dir():
            where = "" if remote(request) else f" {str(directory)!r}"
            raise NotFoundError(f"no Zotero data directory{where} on the server")
    confine = confinement(request)
    job = state.jobs.submit(
        "zotero",
        f"Zotero: {raw or directory}" if remote(request) else f"Zotero: {directory}",
        tasks.zotero_job(  # its own storage/ besides the allowed folders
            state.library, str(directory), None if confine is None else (*confine, directory)
        ),
        items=[(raw or "the server's Zotero library") if remote(request) else str(directory)],
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def import_references(request: Request) -> Response:
    """``{"path"}``: a BibTeX or RIS file of this computer, imported with the PDFs its
    entries link to, by a job (in accounts mode: a file under an allowed folder, and only
    the linked PDFs under one)."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    if not raw:
        raise InvalidRequestError("give the path of a .bib or .ris file")
    file = server_path(request, raw, "file")
    job = state.jobs.submit(
        "references",
        file.name,
        tasks.references_job(state.library, str(file), confinement(request)),
        items=[file.name],
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def ingest_folder(request: Request) -> Response:
    """``{"path"}``: every PDF under a folder of this computer, by a job (in accounts
    mode: a folder under an allowed one)."""
    state = state_of(request)
    data = await read_json(request)
    raw = str(data.get("path") or "").strip()
    if not raw:
        raise InvalidRequestError("give the path of a folder")
    folder = server_path(request, raw, "folder")
    job = state.jobs.submit(
        "folder", raw, tasks.folder_job(state.library, str(folder), confinement(request))
    )
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
