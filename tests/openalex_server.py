"""A loopback OpenAlex serving the recorded citation-graph works for real over HTTP.

The records are OpenAlex's own (``shared/fixtures/api/openalex-graph/``, every work in
every recorded answer); the server answers ``/works`` lists as OpenAlex does: one filter
``openalex:``, ``doi:`` or ``cites:`` with ``|`` between values (and, after a comma,
``from_publication_date:YYYY-MM-DD``, the one further filter an alert adds), ``select=`` checked
against the field list of OpenAlex's recorded 400 answer, cursor paging where every page
with results carries a ``next_cursor`` and the page after the last is empty with
``next_cursor: null``, and the recorded 400 bodies for an unknown filter or field. Single
works answer ``/works/W123`` and ``/works/doi:10.x/y``. Faults are injected per test:
answers sent first in order (a 429 with ``Retry-After``, a 400), a cursor that leads back
(a cycle), and pages from some offset on that are missing (404). ``paths`` records every
request, query string included.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from conftest import shared_path

SEEDS = ("W3045921891", "W3046863325")
"""The recorded snowball's two seeds (arXiv 2007.14454 and a JCDL 2020 paper)."""


def fixture_folder() -> Path:
    return shared_path("fixtures", "api", "openalex-graph")


def _tail(value: Any) -> str:
    return str(value).rstrip("/").rsplit("/", 1)[-1]


def recorded_works(folder: Path) -> dict[str, dict[str, Any]]:
    """Every work in the recorded answers by id (the fullest copy of each)."""
    works: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        if "error400" in path.name:
            continue
        data = json.loads(path.read_text("utf-8"))
        for obj in data.get("results", [data]) if isinstance(data, dict) else []:
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                wid = _tail(obj["id"])
                if len(obj) > len(works.get(wid, {})):
                    works[wid] = obj
    return works


def valid_select_fields(folder: Path) -> set[str]:
    """The fields OpenAlex accepts in ``select=``, as its recorded 400 answer lists them."""
    body = json.loads((folder / "openalexpro_error400_work_select_DOESNTEXIST.json").read_text())
    listed = body["message"].split("Valid fields for select are:", 1)[1]
    return {name.strip().rstrip(".") for name in listed.split(",") if name.strip()}


def _doi(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return re.sub(r"^https?://(dx\.)?doi\.org/", "", value.strip(), flags=re.I).lower() or None


def _cursor(offset: int) -> str:
    return base64.b64encode(json.dumps([offset, "prioris-test"]).encode()).decode()


def _offset(cursor: str) -> int:
    return int(json.loads(base64.b64decode(cursor))[0])


class OpenAlexServer:
    """The recorded works behind a real socket; see the module docstring."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or fixture_folder()
        self.works = recorded_works(self.folder)
        self.select_fields = valid_select_fields(self.folder)
        self.paths: list[str] = []
        self.faults: list[tuple[int, dict[str, str], bytes]] = []
        self.cycle = False  # the second page's next_cursor leads back to the first page
        self.missing_from: int | None = None  # pages from this offset on answer 404
        self.lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, headers, body = outer.answer(self.path)
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=lambda: self.httpd.serve_forever(poll_interval=0.02), daemon=True
        )

    # -- what was asked ----------------------------------------------------------------
    def queries(self) -> list[dict[str, list[str]]]:
        return [parse_qs(urlsplit(p).query, keep_blank_values=True) for p in self.paths]

    def filters(self) -> list[str]:
        return [q.get("filter", [""])[0] for q in self.queries()]

    def citing(self, ids: set[str]) -> list[str]:
        """Ids of the recorded works that cite any of ``ids``, in the server's order."""
        return [
            wid
            for wid, obj in sorted(self.works.items())
            if ids & {_tail(r) for r in obj.get("referenced_works") or []}
        ]

    # -- answering ---------------------------------------------------------------------
    def _error(self, name: str, status: int = 400) -> tuple[int, dict[str, str], bytes]:
        return status, {}, (self.folder / name).read_bytes()

    def answer(self, raw_path: str) -> tuple[int, dict[str, str], bytes]:
        with self.lock:
            self.paths.append(raw_path)
            if self.faults:
                return self.faults.pop(0)
        parts = urlsplit(raw_path)
        query = {k: v[0] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        if not query.get("api_key"):
            return 401, {}, b'{"error":"API key required"}'
        select = [f for f in query.get("select", "").split(",") if f]
        if any(field not in self.select_fields for field in select):
            return self._error("openalexpro_error400_work_select_DOESNTEXIST.json")
        path = unquote(parts.path)
        if path == "/works":
            return self._list(query, select)
        if path.startswith("/works/"):
            key = path.removeprefix("/works/")
            if key.lower().startswith("doi:"):
                found = [o for o in self.works.values() if _doi(o.get("doi")) == key[4:].lower()]
            else:
                found = [self.works[key]] if key in self.works else []
            if not found:
                return 404, {}, b'{"error":"Not found"}'
            return 200, {}, json.dumps(self._selected(found[0], select)).encode()
        return 404, {}, b'{"error":"Not found"}'

    @staticmethod
    def _selected(obj: dict[str, Any], select: list[str]) -> dict[str, Any]:
        return {k: v for k, v in obj.items() if k in select} if select else obj

    def _matches(self, name: str, values: set[str]) -> list[dict[str, Any]]:
        ordered = [obj for _wid, obj in sorted(self.works.items())]
        if name == "openalex":
            return [o for o in ordered if _tail(o["id"]) in values]
        if name == "doi":
            return [o for o in ordered if _doi(o.get("doi")) in {v.lower() for v in values}]
        return [o for o in ordered if values & {_tail(r) for r in o.get("referenced_works") or []}]

    def _list(self, query: dict[str, str], select: list[str]) -> tuple[int, dict[str, str], bytes]:
        first, *more = query.get("filter", "").split(",")
        name, _, joined = first.partition(":")
        if name not in ("openalex", "doi", "cites"):
            return self._error("openalexpro_error400_filter_DOESNTEXIST.json")
        matches = self._matches(name, set(joined.split("|")))
        for clause in more:  # only the date filter an alert adds: from_publication_date
            key, _, day = clause.partition(":")
            if key != "from_publication_date" or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
                return self._error("openalexpro_error400_filter_DOESNTEXIST.json")
            matches = [o for o in matches if str(o.get("publication_date") or "") >= day]
        per_page = int(query.get("per_page") or query.get("per-page") or 25)
        cursor = query.get("cursor")
        offset = 0 if cursor in (None, "*") else _offset(cursor)
        if self.missing_from is not None and offset >= self.missing_from:
            return 404, {}, b'{"error":"Not found"}'
        page = matches[offset : offset + per_page]
        following = _cursor(offset + per_page) if page and cursor else None
        if self.cycle and page and offset >= per_page:
            following = _cursor(0)  # back to the first page: a cursor already walked
        body = {
            "meta": {
                "count": len(matches),
                "db_response_time_ms": 1,
                "page": None if cursor else 1,
                "per_page": per_page,
                "next_cursor": following,
                "groups_count": None,
            },
            "results": [self._selected(o, select) for o in page],
            "group_by": [],
        }
        return 200, {}, json.dumps(body).encode()

    # -- lifetime ----------------------------------------------------------------------
    def start(self) -> OpenAlexServer:
        self.thread.start()
        return self

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> OpenAlexServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
