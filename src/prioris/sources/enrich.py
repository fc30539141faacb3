"""Completing a paper's record from its provider, as reference managers "retrieve metadata".

:class:`ProviderLookup` takes the identifiers a PDF printed and asks the provider that
owns them, through the existing rate-limited clients of :class:`RemoteSources`: arXiv for
an arXiv id (the exact version printed), OpenAlex for a DOI, then Europe PMC when OpenAlex
does not know it or cannot be reached. A provider that cannot be reached is skipped for
the rest of the session, so an offline machine pays for one failed connection, not one per
file; every failure is reported in the :class:`Lookup`, never raised, because enrichment
must not make an ingest fail.

:func:`merge_provider` is the pure merge: the provider's record wins for bibliographic
fields (title, authors, year, venue, abstract, dates, type), the work keeps its id and
source, and identifiers are united. What the paper printed is kept by the caller beside it.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import httpx

from prioris.errors import NotFoundError, PriorisError, ProviderUnavailableError
from prioris.identifiers import Identifier, arxiv_id_from_doi, parse_identifier
from prioris.models import Work
from prioris.text_clean import clean_work

log = logging.getLogger(__name__)

PROVIDER_FIELDS = (
    "title",
    "authors",
    "year",
    "venue",
    "abstract",
    "published",
    "type",
    "is_preprint",
    "is_oa",
    "oa_status",
    "pdf_url",
    "cited_by_count",
    "concepts",
    "volume",
    "issue",
    "pages",
    "publisher",
    "keywords",
)
"""Fields where the provider's value replaces the printed one (when it has a value)."""

_KEPT_EXTRA = (
    "arxiv_id",
    "categories",
    "primary_category",
    "journal_ref",
    "doi",
    "pmid",
    "pmcid",
    "pub_types",
    "peer_reviewed",
    "type_crossref",
    "source_type",
    "oa_url",
)


@dataclass
class Lookup:
    """The outcome of asking providers about one work.

    ``status``: ``found`` (``work`` and ``provider`` set), ``no_identifier`` (nothing
    to ask with), ``not_found`` (the providers do not know it) or ``unavailable``
    (offline, rate limited, an error); ``message`` says what happened.
    """

    status: str
    work: Work | None = None
    provider: str | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "provider": self.provider,
            "provider_id": self.work.id if self.work else None,
            "message": self.message,
        }


def _identifiers(aliases: Sequence[str]) -> tuple[Identifier | None, Identifier | None]:
    """(arXiv id, DOI) among a work's aliases; an arXiv DataCite DOI counts as arXiv."""
    arxiv = doi = None
    for alias in aliases:
        try:
            ident = parse_identifier(alias)
        except PriorisError:
            continue
        if ident.scheme == "arxiv" and arxiv is None:
            arxiv = ident
        elif ident.scheme == "doi" and doi is None:
            doi = ident
            from_doi = arxiv_id_from_doi(ident.value)
            if from_doi and arxiv is None:
                arxiv = Identifier("arxiv", from_doi)
    return arxiv, doi


class ProviderLookup:
    """Asks arXiv, OpenAlex and Europe PMC about a work's printed identifiers."""

    def __init__(self, remote: Any) -> None:
        self.remote = remote
        self.unreachable: set[str] = set()
        self._arxiv: dict[str, Work | None] = {}  # prefetched records (None: arXiv has none)

    def prefetch(self, alias_lists: Sequence[Sequence[str]]) -> None:
        """Ask arXiv about many works at once (batched ``id_list`` requests, so 1,000
        works cost ten requests 3 s apart instead of 1,000); failures are left for
        :meth:`lookup` to report."""
        wanted = [a.value for a, _ in map(_identifiers, alias_lists) if a is not None]
        wanted = [i for i in dict.fromkeys(wanted) if i not in self._arxiv]
        if not wanted or "arxiv" in self.unreachable:
            return
        try:
            works, _ = self.remote.arxiv.fetch_metadata_report(wanted)
        except PriorisError as exc:
            self._note_failure("arxiv", exc)
            return
        by_id: dict[str, Work] = {}
        for work in works:
            by_id[work.extra.get("arxiv_id", "")] = work
            by_id.setdefault(work.extra.get("arxiv_versionless", ""), work)
        for arxiv_id in wanted:
            self._arxiv[arxiv_id] = by_id.get(arxiv_id)

    def _arxiv_record(self, arxiv_id: str) -> Work:
        if arxiv_id in self._arxiv:
            work = self._arxiv[arxiv_id]
            if work is None:
                raise NotFoundError(f"arXiv has no record for: {arxiv_id}")
            return work
        return self.remote.arxiv.fetch_metadata([arxiv_id])[0]  # type: ignore[no-any-return]

    def _ask(self, provider: str, call: Any) -> Lookup:
        if provider in self.unreachable:
            return Lookup("unavailable", message=f"{provider} was unreachable earlier")
        try:
            return Lookup("found", work=call(), provider=provider)
        except NotFoundError as exc:
            return Lookup("not_found", message=exc.message)
        except PriorisError as exc:  # offline, rate limited, no API key, a malformed answer
            self._note_failure(provider, exc)
            return Lookup("unavailable", message=f"{exc.code}: {exc.message}")

    def _note_failure(self, provider: str, exc: PriorisError) -> None:
        """Remember a provider that cannot be reached, so it is not asked again."""
        # no connection, DNS, timeout (not a 5xx): the provider is out of reach
        cause = exc.__cause__
        if isinstance(exc, ProviderUnavailableError) and isinstance(cause, httpx.TransportError):
            self.unreachable.add(provider)

    def lookup(self, aliases: Sequence[str]) -> Lookup:
        """The provider's record of the work these identifiers name (never raises)."""
        arxiv, doi = _identifiers(aliases)
        if arxiv is None and doi is None:
            return Lookup("no_identifier", message="no DOI or arXiv id to look up")
        tried: list[Lookup] = []
        if arxiv is not None:
            found = self._ask("arxiv", lambda: self._arxiv_record(arxiv.value))
            if found.work is not None:
                return found
            tried.append(found)
        if doi is not None:
            found = self._ask("openalex", lambda: self.remote.openalex.get_work(doi.value))
            if found.work is not None:
                return found
            tried.append(found)
            found = self._ask(
                "europepmc", lambda: self.remote.europepmc.fetch_metadata([doi.canonical])[0]
            )
            if found.work is not None:
                return found
            tried.append(found)
        status = "not_found" if all(t.status == "not_found" for t in tried) else "unavailable"
        return Lookup(status, message="; ".join(t.message or t.status for t in tried))


def _title_words(text: str) -> set[str]:
    return {
        w
        for w in re.findall(r"[^\W_]+", unicodedata.normalize("NFKC", text).casefold())
        if len(w) > 2
    }


def same_paper(printed_title: str | None, provider_title: str | None) -> bool:
    """Whether a provider's record is of the paper whose title was printed.

    A DOI on page 1 may be a cited paper's; most of the shorter title's words must be in
    the other (a printed title cut after its first line still matches). No printed title
    to compare with: the identifier is all there is, so it is trusted.
    """
    printed, provided = _title_words(printed_title or ""), _title_words(provider_title or "")
    if not printed or not provided:
        return True
    return len(printed & provided) >= 0.6 * min(len(printed), len(provided))


def provider_record(work: Work) -> dict[str, Any]:
    """The provider's bibliographic record as kept beside the printed one (JSON-ready)."""
    record: dict[str, Any] = {"id": work.id, "aliases": list(work.aliases)}
    for name in PROVIDER_FIELDS:
        record[name] = getattr(work, name)
    return record


def merge_provider(work: Work, provider: Work) -> Work:
    """``work`` completed by ``provider``'s record: the provider wins where it has a value.

    The work keeps its id, source and timestamps; its aliases gain the provider's ids.
    The provider's strings are cleaned first (LaTeX accents, control characters: see
    :func:`prioris.text_clean.clean_work`), as every stored text is.
    """
    provider = clean_work(provider)
    changes: dict[str, Any] = {}
    for name in PROVIDER_FIELDS:
        value = getattr(provider, name)
        if value is not None and value != "" and value != []:
            changes[name] = list(value) if isinstance(value, list) else value
    aliases = list(work.aliases)
    for alias in [provider.id, *provider.aliases]:
        if alias and alias != work.id and alias not in aliases:
            aliases.append(alias)
    extra = dict(work.extra)
    for key in _KEPT_EXTRA:
        if provider.extra.get(key) is not None:
            extra.setdefault(key, provider.extra[key])
    extra["enriched_from"] = provider.source
    return replace(work, aliases=aliases, extra=extra, **changes)
