"""The fetch ladder: how a discovered work could be turned into full text, decided purely.

:func:`fetch_route` looks only at a :class:`~prioris.models.Work` parsed from OpenAlex and
never touches the network. Rungs, in order (SPEC section 8, design note on discovery):

1. a provider Prioris can fetch from itself: an arXiv id, else a PMCID (Europe PMC);
2. an open-access PDF link, chosen from *all* OA locations rather than OpenAlex's single
   ``best_oa_location`` pick, preferring published > accepted > submitted versions. The link
   is only reported (shape-checked, never requested): fetching arbitrary URLs server-side is
   deliberately out of scope;
3. otherwise the user uploads the PDF themselves.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from prioris.models import Work

VERSION_PREFERENCE = ("publishedVersion", "acceptedVersion", "submittedVersion")
"""OpenAlex location versions, best first; an unknown version ranks after all of them."""
MAX_URL_LENGTH = 2048


def is_https_url(url: Any) -> bool:
    """A plausible public ``https://`` URL: host with a dot, no credentials, no spaces.

    Only the shape is checked (no request): enough to keep ``http://``, ``javascript:``,
    relative paths and junk out of what the caller is invited to open.
    """
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        return False
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        return False
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError:
        return False
    if parts.scheme != "https" or not host or parts.username or parts.password:
        return False
    try:
        ipaddress.ip_address(host)
        return False  # a bare IP address is no publisher's or repository's PDF link
    except ValueError:
        pass
    return "." in host and not host.startswith(".") and not host.endswith(".")


def _alias(work: Work, scheme: str) -> str | None:
    prefix = f"{scheme}:"
    for alias in [work.id, *work.aliases]:
        if alias.startswith(prefix) and len(alias) > len(prefix):
            return alias
    return None


def _rank(version: Any) -> int:
    try:
        return VERSION_PREFERENCE.index(version)
    except ValueError:
        return len(VERSION_PREFERENCE)


def best_oa_pdf(work: Work) -> dict[str, Any] | None:
    """The preferred OA location with a valid https ``pdf_url``: ``{"pdf_url", "version"}``."""
    locations = [loc for loc in work.extra.get("locations") or [] if isinstance(loc, dict)]
    candidates = [
        loc for loc in locations if loc.get("is_oa") is True and is_https_url(loc.get("pdf_url"))
    ]
    if not candidates:
        return None
    chosen = min(candidates, key=lambda loc: _rank(loc.get("version")))  # first of best rank
    return {"pdf_url": chosen["pdf_url"], "version": chosen.get("version")}


def fetch_route(work: Work) -> dict[str, Any]:
    """Where the full text of ``work`` can come from; see the module docstring for the order."""
    arxiv = _alias(work, "arxiv")
    if arxiv:
        return {"provider": "arxiv", "identifier": arxiv}
    for alias in [work.id, *work.aliases]:
        if alias.upper().startswith("EUROPEPMC:PMC"):
            return {"provider": "europepmc", "identifier": alias}
    pdf = best_oa_pdf(work)
    if pdf:
        return pdf
    return {"manual_upload": True}
