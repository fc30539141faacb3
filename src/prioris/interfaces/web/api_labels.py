"""Collections and tags made in Prioris, for the Library page: ``/api/collections`` and
``/api/tags``.

``GET /api/collections`` lists every collection (with its works and origins) and every
tag; ``POST /api/collections`` ``{"action": "create"|"rename"|"delete"|"add"|"remove",
"name", "parent", "new_name", "ids"}`` and ``POST /api/tags`` ``{"action": "add"|"remove",
"tag", "ids"}`` change them behind the CSRF token (and, with accounts, the writer role,
:mod:`prioris.interfaces.permissions`). The rules are the Library's; this only reshapes.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of

COLLECTION_ACTIONS = ("create", "rename", "delete", "add", "remove")


def _text(data: dict[str, Any], name: str, required: bool = True) -> str | None:
    value = data.get(name)
    if value is None or value == "":
        if required:
            raise InvalidRequestError(f"{name} is required")
        return None
    if not isinstance(value, str):
        raise InvalidRequestError(f"{name} must be a string")
    return value


def _ids(data: dict[str, Any]) -> list[str]:
    ids = data.get("ids")
    if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
        raise InvalidRequestError("ids must be a non-empty list of work ids")
    return ids


async def collections(request: Request) -> Response:
    """GET: ``{"collections": [...], "tags": [{"tag", "works"}]}``; POST: a change."""
    library = state_of(request).library
    if request.method == "GET":
        found = await blocking(library.list_collections)
        tags = await blocking(library.tag_counts)
        return JSONResponse(
            {"collections": found, "tags": [{"tag": t, "works": n} for t, n in tags]},
            headers={"Cache-Control": "no-store"},
        )
    data = await read_json(request)
    action = data.get("action")
    if action not in COLLECTION_ACTIONS:
        raise InvalidRequestError(f"action must be one of {', '.join(COLLECTION_ACTIONS)}")
    name = _text(data, "name")
    assert name is not None
    if action == "create":
        result = await blocking(
            library.create_collection, name, parent=_text(data, "parent", required=False)
        )
    elif action == "rename":
        result = await blocking(library.rename_collection, name, _text(data, "new_name"))
    elif action == "delete":
        result = await blocking(library.delete_collection, name)
    elif action == "add":
        result = await blocking(library.add_to_collection, name, _ids(data))
    else:
        result = await blocking(library.remove_from_collection, name, _ids(data))
    return JSONResponse({"action": action, **result})


async def tags(request: Request) -> Response:
    """``{"action": "add"|"remove", "tag", "ids"}``: tag the works or untag them."""
    library = state_of(request).library
    data = await read_json(request)
    action = data.get("action")
    if action not in ("add", "remove"):
        raise InvalidRequestError("action must be add or remove")
    tag = _text(data, "tag")
    change = library.add_tag if action == "add" else library.remove_tag
    result = await blocking(change, tag, _ids(data))
    return JSONResponse({"action": action, **result})


ROUTES = [
    Route("/api/collections", collections, methods=["GET", "POST"]),
    Route("/api/tags", tags, methods=["POST"]),
]
