"""The web app's record editing: ``POST /api/edit`` behind the CSRF check.

The Read page carries an edit form (each field with its origin, an Undo button); its
script posts ``{"id", "fields": {field: value or null}}`` or ``{"id", "undo": true}`` here
with the page's CSRF token, like every other state change. The checks and the precedence
are the Library's (:meth:`Library.edit_work`); this only reshapes.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of
from prioris.provenance import FIELDS, LIST_FIELDS

LABELS = {
    "title": "Title",
    "authors": "Authors (one per line, in order)",
    "year": "Year",
    "published": "Date (YYYY-MM-DD)",
    "venue": "Journal / venue",
    "volume": "Volume",
    "issue": "Issue",
    "pages": "Pages",
    "publisher": "Publisher",
    "type": "Entry type",
    "abstract": "Abstract",
    "keywords": "Keywords (one per line)",
    "doi": "DOI",
    "arxiv": "arXiv id",
    "pmid": "PMID",
    "pmcid": "PMCID",
    "openalex": "OpenAlex id",
}
"""What the edit form calls each field (every name of :data:`~prioris.provenance.FIELDS`)."""


def form_fields(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The edit form's rows: name, label, value as the form shows it, origin, multiline."""
    rows = []
    for name in FIELDS:
        value = record.get(name)
        multiline = name in LIST_FIELDS or name == "abstract"
        if name in LIST_FIELDS:
            text = "\n".join(value or [])
        else:
            text = "" if value is None else str(value)
        rows.append(
            {
                "name": name,
                "label": LABELS[name],
                "value": text,
                "origin": record["origins"].get(name),
                "multiline": multiline,
            }
        )
    return rows


async def edit(request: Request) -> Response:
    """``{"id", "fields"}`` corrects a work, ``{"id", "undo": true}`` takes back its newest
    edit; answers ``{"record": ...}`` with each field's origin."""
    state = state_of(request)
    data = await read_json(request)
    work_id, fields, undo = data.get("id"), data.get("fields"), data.get("undo", False)
    if not isinstance(work_id, str) or not work_id:
        raise InvalidRequestError("id must be a work id")
    if undo is not True and undo is not False:
        raise InvalidRequestError("undo must be true or false")
    if undo and fields:
        raise InvalidRequestError("give fields or undo, not both")
    library = state.library
    if undo:
        work = await blocking(library.undo_edit, work_id)
    else:
        if not isinstance(fields, dict):
            raise InvalidRequestError("fields must be an object {field: value}")
        work = await blocking(library.edit_work, work_id, fields)
    record = await blocking(library.work_fields, work.id)
    return JSONResponse({"record": record})


ROUTES = [Route("/api/edit", edit, methods=["POST"])]
