"""The role each MCP tool and web route needs, written out from docs/security.md's table
"Accounts and roles" (reader: search, read, list, show, cite, export, remote searches and
the snowball; writer: also ingest, upload, fetch, edit, sync, delete, reindex, dismiss,
make collections and tags; admin: also the audit log and compacting the file), each with
the word of that table that puts it there. The tests compare this with
``interfaces/permissions.py`` and with what the MCP server and the web app enforce, route
by route (issue 40)."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "security.md"
ORDER = ("none", "reader", "writer", "admin")

MCP_TOOLS: dict[str, tuple[str, str]] = {
    "research_arxiv_search": ("reader", "remote searches"),
    "research_arxiv_list_top_n": ("reader", "remote searches"),
    "research_arxiv_fetch_metadata": ("reader", "remote searches"),
    "research_europepmc_search": ("reader", "remote searches"),
    "research_europepmc_fetch_metadata": ("reader", "remote searches"),
    "research_openalex_search": ("reader", "remote searches"),
    "research_resolve_identifier": ("reader", "remote searches"),
    "research_discovery": ("reader", "remote searches"),
    "research_discovery_snowball": ("reader", "snowball"),
    "research_arxiv_parse_full_text": ("reader", "read"),
    "research_europepmc_parse_full_text": ("reader", "read"),
    "research_localfile_parse_full_text": ("reader", "read"),
    "research_list_fetched": ("reader", "list"),
    "research_search_fetched": ("reader", "search"),
    "research_cite": ("reader", "cite"),
    "research_format_citation": ("reader", "cite"),
    "research_citations": ("reader", "read"),
    "research_evidence": ("reader", "read"),
    "research_cite_check": ("reader", "cite"),
    "research_collections": ("reader", "list"),
    "research_alerts": ("reader", "read their alerts"),  # list, show: MCP_ACTIONS the rest
    "research_arxiv_fetch_full_text": ("writer", "fetch"),
    "research_europepmc_fetch_full_text": ("writer", "fetch"),
    "research_localfile_fetch_full_text": ("writer", "ingest"),
    "research_localfile_begin_upload": ("writer", "upload"),
    "research_localfile_upload_chunk": ("writer", "upload"),
    "research_localfile_finalize_upload": ("writer", "upload"),
    "research_delete_fetched": ("writer", "delete"),
    "research_edit_work": ("writer", "edit"),
    "research_update_metadata": ("writer", "edit"),
    "research_zotero_sync": ("writer", "sync"),
    "research_import_references": ("writer", "reference files"),
    "research_dismiss_candidate": ("writer", "dismiss"),
    "research_edit_collection": ("writer", "make collections"),
    "research_tag_works": ("writer", "tags and put works in them"),
}

MCP_ACTIONS: dict[str, dict[str, tuple[str, str]]] = {
    "research_alerts": {
        "list": ("reader", "read their alerts"),
        "show": ("reader", "read their alerts"),
        "add": ("writer", "make or remove them"),
        "remove": ("writer", "make or remove them"),
        "run": ("writer", "run and triage alerts"),
        "accept": ("writer", "accept or dismiss their candidates"),
        "dismiss": ("writer", "accept or dismiss their candidates"),
    },
}
"""The tools whose role is per ``action`` (docs: a reader reads alerts, a writer makes,
removes, runs and triages them)."""

WEB_POSTS: dict[str, tuple[str, str]] = {
    "/login": ("none", ""),  # how one gets a session
    "/logout": ("none", ""),
    "/api/discover": ("reader", "remote searches"),
    "/api/snowball": ("reader", "snowball"),
    "/api/upload": ("writer", "upload"),
    "/api/import": ("writer", "ingest"),
    "/api/folder": ("writer", "ingest"),
    "/api/zotero-sync": ("writer", "sync"),
    "/api/references": ("writer", "reference files"),
    "/api/fetch": ("writer", "fetch"),
    "/api/delete": ("writer", "delete"),
    "/api/reindex": ("writer", "reindex"),
    "/api/compact": ("admin", "compact"),
    "/api/edit": ("writer", "edit"),
    "/api/snowball/dismiss": ("writer", "dismiss"),
    "/api/collections": ("writer", "make collections"),
    "/api/tags": ("writer", "tags and put works in them"),
    "/api/alerts/add": ("writer", "make or remove them"),
    "/api/alerts/remove": ("writer", "make or remove them"),
    "/api/alerts/run": ("writer", "run and triage alerts"),
    "/api/alerts/accept": ("writer", "accept or dismiss their candidates"),
    "/api/alerts/dismiss": ("writer", "accept or dismiss their candidates"),
    "/api/feed-tokens": ("reader", "own feed tokens"),
    "/api/feed-tokens/revoke": ("reader", "own feed tokens"),
}

WEB_GETS_ABOVE_READER: dict[str, tuple[str, str]] = {"/audit": ("admin", "audit log")}
"""Every other GET is a read (docs: "read, list, show")."""


def doc_rows() -> dict[str, str]:
    """The "may" cell of each role in docs/security.md's table (lower case)."""
    rows: dict[str, str] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0] in ORDER:
            rows[cells[0]] = cells[1].lower()
    return rows


def below(role: str) -> str | None:
    """The role just under ``role`` (None under ``none``)."""
    index = ORDER.index(role)
    return ORDER[index - 1] if index > 0 else None
