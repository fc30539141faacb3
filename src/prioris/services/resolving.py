"""``research_resolve_identifier``: which provider serves an identifier, and whether the
library already holds the work it names.

The library's answer does not depend on the network, so it is found first and stands when
a provider cannot be reached: a work already stored is ``in_library`` (with its id) even
offline, and ``provider_error`` says why the provider's part (``result``) is missing.
Only an identifier the library does not hold still fails with the provider's error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from prioris.errors import (
    InvalidRequestError,
    NotFoundError,
    SourceError,
    UnsupportedProviderError,
)
from prioris.identifiers import parse_identifier

if TYPE_CHECKING:
    from prioris.services.catalog import Catalog
    from prioris.sources.remote import RemoteSources


def _stored(catalog: Catalog, *candidates: str) -> str | None:
    """The id of the stored work the first resolvable candidate names, else None."""
    for candidate in candidates:
        try:
            return catalog.resolve_work_id(candidate)
        except (NotFoundError, InvalidRequestError):
            continue
    return None


def resolve_identifier(
    catalog: Catalog,
    remote: Callable[[], RemoteSources],
    text: str,
    format: str | None = None,
) -> dict[str, Any]:
    """Which provider serves ``text``, its canonical id, whether the library holds it, and
    (for arXiv and Europe PMC ids) PriorisMCP's resolution under ``"result"``.

    DOIs go through the resolver (allowlisted hosts only) and OpenAlex ids to their arXiv
    id or PMCID; text that is no identifier at all is unsupported_provider.
    """
    try:
        ident = parse_identifier(text)
    except InvalidRequestError as exc:
        raise UnsupportedProviderError(exc.message) from exc
    work_id = _stored(catalog, text, ident.canonical)
    result = None
    provider_error = None
    try:
        if ident.scheme in ("doi", "openalex"):
            ident = remote().resolve(ident)
            work_id = work_id or _stored(catalog, ident.canonical)
        if ident.scheme in ("arxiv", "europepmc"):
            result = remote().resolve_full_text(ident, format)
    except SourceError as exc:  # unreachable, rate limited: the library's answer stands
        if work_id is None:
            raise
        provider_error = f"{exc.code}: {exc.message}"
    return {
        "result": result,
        "input": text,
        "id": ident.canonical,
        "provider": ident.scheme,
        "in_library": work_id is not None,
        "work_id": work_id,
        "provider_error": provider_error,
    }
