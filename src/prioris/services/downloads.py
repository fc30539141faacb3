"""The file name a stored original is downloaded under.

A work's originals are listed with the name they are given back under (the web app's
download uses it): the file the person put in, under a name safe for any file system.
Deciding that name from a work and its stored document is a rule of its own (tested on
its own), apart from the catalog's reading of stored works
(:mod:`prioris.services.catalog`, which uses it and re-exports it).
"""

from __future__ import annotations

import re

from prioris.models import Document, Work

_EXTENSIONS = {"pdf": "pdf", "html": "html", "xml": "xml", "text": "md"}
_UNSAFE = re.compile(r"[\x00-\x1f\x7f/\\:*?\"<>|]+")


def download_name(work: Work, document: Document) -> str:
    """The file name a stored original is saved under: the name of the file it was
    ingested from or uploaded as (``documents.path``, else the work's ``filename``), so
    a download is the file the person put in; else one made from the work's id.

    Control characters and path separators are replaced; the HTTP layer encodes the rest
    (RFC 6266 / 5987)."""
    extension = _EXTENSIONS.get(document.format, "bin")
    original = document.path or (work.extra or {}).get("filename")
    if isinstance(original, str) and original.strip():
        name = original.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        name = _UNSAFE.sub("_", name).strip(" .")[:200]
        if name:
            return name if "." in name else f"{name}.{extension}"
    return re.sub(r"[^\w.-]+", "_", work.id) + f".{extension}"
