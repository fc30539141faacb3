"""Presentation helpers for the templates: escaping with marks, short author lists, links.

Everything that reaches a page from the library (titles, snippets, Markdown) is escaped
here or by Jinja's autoescape; the only markup added is ``<mark>`` around matched words
and passages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote, urlencode

from markupsafe import Markup, escape

_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)

SOURCE_LABELS = {
    "arxiv": "arXiv",
    "europepmc": "Europe PMC",
    "openalex": "OpenAlex",
    "file": "PDF file",
    "import": "import",
}


def snippet_html(snippet: str) -> Markup:
    """A hit's snippet, escaped, its ``**matched words**`` as ``<mark>``."""
    escaped = str(escape(snippet or ""))
    return Markup(_BOLD.sub(r"<mark>\1</mark>", escaped))


def authors_short(authors: Sequence[str], limit: int = 3) -> str:
    if not authors:
        return ""
    if len(authors) <= limit:
        return ", ".join(authors)
    return f"{', '.join(authors[:limit])} et al."


def pages_label(start: int | None, end: int | None) -> str:
    if not start:
        return ""
    return f"p. {start}" if not end or end == start else f"pp. {start}–{end}"


def human_bytes(size: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def source_label(source: str | None) -> str:
    return SOURCE_LABELS.get(source or "", source or "")


def alias_links(aliases: Sequence[str]) -> list[dict[str, str | None]]:
    """Identifiers as ``{"label", "value", "url"}`` (url None when there is no public page).

    Links are for the person to follow in their browser; the server never requests them.
    """
    links: list[dict[str, str | None]] = []
    for alias in aliases:
        scheme, _, value = alias.partition(":")
        url: str | None = None
        label = scheme
        if scheme == "arxiv":
            label, url = "arXiv", f"https://arxiv.org/abs/{quote(value, safe='/.')}"
        elif scheme == "doi":
            label, url = "DOI", f"https://doi.org/{quote(value, safe='/.():;-_')}"
        elif scheme == "europepmc" and value.upper().startswith("PMC"):
            label, url = "PMCID", f"https://europepmc.org/article/PMC/{quote(value[3:])}"
        elif scheme == "europepmc":
            label = "Europe PMC"
        elif scheme == "pmid":
            label, url = "PMID", f"https://pubmed.ncbi.nlm.nih.gov/{quote(value)}/"
        elif scheme == "openalex":
            label, url = "OpenAlex", f"https://openalex.org/{quote(value)}"
        elif scheme == "file":
            label = "file"
        links.append({"label": label, "value": value or alias, "url": url})
    return links


def is_public_https(url: Any) -> bool:
    """Only ``https://`` links are rendered as links (no ``javascript:`` or local URLs)."""
    from prioris.discovery.routes import is_https_url

    return is_https_url(url)


def query_string(params: dict[str, Any], **changes: Any) -> str:
    """``params`` with ``changes`` applied, empty values dropped, as ``?a=1&b=2``."""
    merged = {**params, **changes}
    pairs = []
    for key, value in merged.items():
        if value is None or value == "" or value is False:
            continue
        if isinstance(value, list | tuple):
            pairs += [(key, str(v)) for v in value]
        else:
            pairs.append((key, "1" if value is True else str(value)))
    return "?" + urlencode(pairs) if pairs else ""


def read_url(
    work_id: str,
    page: int | None = None,
    chunk: int | None = None,
    start: int | None = None,
    end: int | None = None,
) -> str:
    """The Read page of a work: at a page, a search hit's passage or a quoted sentence's
    characters ``start:end`` (each marked on its page)."""
    query = {"id": work_id, "page": page, "chunk": chunk, "start": start, "end": end}
    return "/read" + query_string(query)
