"""The resource URI templates and the MIME type a full-text read is served as.

Shared by :mod:`.resources`, which registers the templates, and :mod:`.runtime`, whose
server sets the MIME type of each ``.../{format}/fulltext`` read; a module of its own so
neither imports the other.
"""

from __future__ import annotations

MARKDOWN_URI = "research://{provider}/{identifier}/{format}/markdown{?offset,limit,page}"
FULLTEXT_URI = "research://{provider}/{identifier}/{format}/fulltext"
FULLTEXT_MIME = {
    "pdf": "application/pdf",
    "html": "text/html",
    "xml": "application/xml",
    "text": "text/plain",
}


def fulltext_mime(uri: str) -> str | None:
    """The MIME type of a ``.../{format}/fulltext`` URI (the template has only one)."""
    parts = uri.split("?", 1)[0].rstrip("/").split("/")
    if len(parts) >= 2 and parts[-1] == "fulltext":
        return FULLTEXT_MIME.get(parts[-2])
    return None
