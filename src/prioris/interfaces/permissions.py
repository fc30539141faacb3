"""Who may do what through a remote interface: the one table of roles, and per-account limits.

Roles are ordered reader < writer < admin (:func:`prioris.services.accounts.role_allows`):

* reader: search, read, list, show, cite, export, and remote lookups that store nothing;
* writer: also ingest, fetch, upload, edit, sync (Zotero, reference files), delete,
  reindex, dismiss, make collections and tags and put works in them or take them out,
  make, remove, run and triage alerts;
* admin: also manage accounts, read the audit log and compact the library file.

:data:`MCP_TOOL_ROLES` names the role every MCP tool needs and :data:`WEB_POST_ROLES` the
role every web POST route needs (every GET is a read, except :data:`WEB_GET_ROLES`).
A tool with an ``action`` whose actions differ (``research_alerts``: a reader lists, a
writer runs) has its actions' roles in :data:`MCP_ACTION_ROLES`; the server checks the
action's role where it checks a tool's, with the same error.
A tool or route missing from these tables fails a test, and at run time needs ``admin``
(fail closed). Only accounts mode consults them: loopback use and the single-token mode
are unchanged.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

MCP_TOOL_ROLES: dict[str, str] = {
    # remote lookups and reads: nothing is stored
    "research_arxiv_search": "reader",
    "research_arxiv_list_top_n": "reader",
    "research_arxiv_fetch_metadata": "reader",
    "research_europepmc_search": "reader",
    "research_europepmc_fetch_metadata": "reader",
    "research_openalex_search": "reader",
    "research_resolve_identifier": "reader",
    "research_discovery": "reader",
    "research_discovery_snowball": "reader",
    "research_arxiv_parse_full_text": "reader",
    "research_europepmc_parse_full_text": "reader",
    "research_localfile_parse_full_text": "reader",
    "research_list_fetched": "reader",
    "research_search_fetched": "reader",
    "research_cite": "reader",
    "research_format_citation": "reader",
    "research_citations": "reader",
    "research_evidence": "reader",
    "research_cite_check": "reader",
    "research_collections": "reader",
    "research_alerts": "reader",  # list and show; the writing actions: MCP_ACTION_ROLES
    # writes
    "research_arxiv_fetch_full_text": "writer",
    "research_europepmc_fetch_full_text": "writer",
    "research_localfile_fetch_full_text": "writer",
    "research_localfile_begin_upload": "writer",
    "research_localfile_upload_chunk": "writer",
    "research_localfile_finalize_upload": "writer",
    "research_delete_fetched": "writer",
    "research_edit_work": "writer",
    "research_update_metadata": "writer",
    "research_zotero_sync": "writer",
    "research_import_references": "writer",
    "research_dismiss_candidate": "writer",
    "research_edit_collection": "writer",  # collections and tags made in Prioris
    "research_tag_works": "writer",
}

MCP_ACTION_ROLES: dict[str, dict[str, str]] = {
    "research_alerts": {
        "list": "reader",
        "show": "reader",
        "add": "writer",
        "remove": "writer",
        "run": "writer",  # asks the alert's sources, stores its results
        "accept": "writer",  # fetches the candidate into the library
        "dismiss": "writer",
    },
}
"""Per action, for the tools whose ``action`` argument decides what they do. An action
not listed (or none given) needs the strictest role of the tool's actions."""

WEB_POST_ROLES: dict[str, str] = {
    "/login": "none",  # exchanging a token for a session is how one gets an account
    "/logout": "none",
    "/api/discover": "reader",  # a remote search: stores nothing
    "/api/snowball": "reader",  # ranks candidates: stores nothing
    "/api/upload": "writer",
    "/api/import": "writer",
    "/api/folder": "writer",
    "/api/zotero-sync": "writer",
    "/api/references": "writer",
    "/api/fetch": "writer",
    "/api/delete": "writer",
    "/api/reindex": "writer",
    "/api/compact": "admin",  # rewrites the whole library file (VACUUM)
    "/api/edit": "writer",
    "/api/snowball/dismiss": "writer",
    "/api/collections": "writer",  # collections made in Prioris, works put in or taken out
    "/api/tags": "writer",
    "/api/alerts/add": "writer",  # makes an alert (its sources checked, nothing fetched)
    "/api/alerts/remove": "writer",  # removes an alert with its results and triage
    "/api/alerts/run": "writer",  # asks the alert's sources, stores its results
    "/api/alerts/accept": "writer",  # fetches the candidate into the library
    "/api/alerts/dismiss": "writer",
    "/api/feed-tokens": "reader",  # each account's own feed tokens, for its feed reader
    "/api/feed-tokens/revoke": "reader",
}

WEB_GET_ROLES: dict[str, str] = {"/audit": "admin"}
"""GET routes that need more than reader (every other GET is a read)."""

ROLE_ORDER = ("none", "reader", "writer", "admin")
"""Weakest first, as :func:`prioris.services.accounts.role_allows` orders them."""

DEFAULT_REQUESTS_PER_MINUTE = 600


def tool_role(name: str, arguments: Mapping[str, Any] | None = None) -> str:
    """The role an MCP tool call needs (``admin`` for a tool this table does not know):
    for a tool of :data:`MCP_ACTION_ROLES`, its ``action``'s role (an unknown or missing
    action: the strictest of the tool's, so a malformed call is never let through lower)."""
    actions = MCP_ACTION_ROLES.get(name)
    if actions is None:
        return MCP_TOOL_ROLES.get(name, "admin")
    action = (arguments or {}).get("action")
    if isinstance(action, str) and action in actions:
        return actions[action]
    return max(actions.values(), key=ROLE_ORDER.index)


def web_role(method: str, path: str) -> str:
    """The role a web request needs: ``none`` for the login page and static files."""
    if path in ("/login", "/logout") or path.startswith("/static/") or path == "/favicon.ico":
        return "none"
    if method in ("GET", "HEAD"):
        return WEB_GET_ROLES.get(path, "reader")
    return WEB_POST_ROLES.get(path, "admin")


class RateLimiter:
    """Per account: at most ``per_minute`` requests in any sliding minute and at most
    ``upload_bytes_per_hour`` request-body bytes in any sliding hour.

    :meth:`check` returns 0 when the request may go ahead (and counts it), else the seconds
    to wait (the ``Retry-After`` of a 429). In memory, per process: a bound on one person's
    client running away, not an accounting system.
    """

    def __init__(
        self,
        per_minute: int = DEFAULT_REQUESTS_PER_MINUTE,
        upload_bytes_per_hour: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = per_minute
        self.upload_bytes_per_hour = upload_bytes_per_hour
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}
        self._bytes: dict[str, deque[tuple[float, int]]] = {}
        self._lock = threading.Lock()

    def check(self, account: str, body_bytes: int = 0) -> int:
        now = self.clock()
        with self._lock:
            seen = self._seen.setdefault(account, deque())
            while seen and seen[0] <= now - 60:
                seen.popleft()
            if len(seen) >= self.per_minute:
                return max(1, math.ceil(seen[0] + 60 - now))
            if body_bytes and self.upload_bytes_per_hour is not None:
                sent = self._bytes.setdefault(account, deque())
                while sent and sent[0][0] <= now - 3600:
                    sent.popleft()
                total = sum(size for _, size in sent)
                if total + body_bytes > self.upload_bytes_per_hour:
                    if not sent:  # one body over the whole budget never fits
                        return 3600
                    return max(1, math.ceil(sent[0][0] + 3600 - now))
                sent.append((now, body_bytes))
            seen.append(now)
            return 0


def declared_length(headers: dict[str, str], method: str) -> int | None:
    """A request's body size as declared (0 for a body-less GET), or None when a body
    comes without ``Content-Length`` (chunked): in accounts mode that is refused (411),
    so every byte counts against the account's upload budget."""
    value = headers.get("content-length", "").strip()
    if value.isdigit():
        return int(value)
    if "transfer-encoding" in headers or method.upper() not in ("GET", "HEAD", "OPTIONS", "DELETE"):
        return None
    return 0
