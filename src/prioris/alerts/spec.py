"""An alert's sources as the CLI takes them, parsed and built:
``arxiv:cs.LG,europepmc:"query",openalex-cites,feed:URL,jsonl:PATH``.

Two steps, so an alert can be checked when it is added (:func:`parse_sources`, pure: no
client, no request) and its sources built when it runs (:func:`build_sources`, given the
clients). Items are separated by commas outside double quotes; a value may be quoted
(``europepmc:"malaria, vaccine"``; ``\\"`` inside a quoted value is a quote).

=========================  ====================================================
``arxiv:cs.LG``            new submissions in a category (``cs.LG+stat.ML``: any of them)
``arxiv:"words"``          a search on arXiv, newest first (unquoted words that are no
                           category, ``arxiv:graph neural``, are a search too)
``europepmc:"query"``      a Europe PMC search, first published since the last run
``europepmc-preprints:"query"``  the same, preprints only (``SRC:PPR``)
``openalex:"query"``       an OpenAlex keyword search, published since the last run
``openalex-cites``         works citing the alert's collection (its OpenAlex ids/DOIs)
``search:"query"``         a saved search: the query on arXiv, Europe PMC and (with a key)
                           OpenAlex, merged
``feed:URL`` / ``feed:PATH``  an Atom or RSS feed on the web or on disk
``jsonl:PATH``             a JSONL file of candidates
=========================  ====================================================
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prioris.alerts.feed_source import FeedSource, is_url
from prioris.alerts.jsonl_source import JsonlSource
from prioris.alerts.openalex_sources import (
    CitationGraph,
    OpenAlexCitingSource,
    OpenAlexSearchSource,
)
from prioris.alerts.protocols import CandidateSource
from prioris.alerts.provider_sources import CATEGORY_RE, ArxivNewSource, EuropePmcSource
from prioris.alerts.saved_search import SavedSearch
from prioris.alerts.source_kit import DEFAULT_MAX_RESULTS, check_max
from prioris.errors import ConfigurationError, InvalidRequestError, NotFoundError
from prioris.sources.http import ProviderHttp
from prioris.sources.openalex_graph_cache import RequestBudget

KINDS = (
    "arxiv",
    "europepmc",
    "europepmc-preprints",
    "openalex",
    "openalex-cites",
    "search",
    "feed",
    "jsonl",
)
ARXIV_ARCHIVES = frozenset(
    "astro-ph cond-mat cs econ eess gr-qc hep-ex hep-lat hep-ph hep-th math math-ph nlin "
    "nucl-ex nucl-th physics q-bio q-fin quant-ph stat".split()
)
"""arXiv's archives (its category taxonomy's first part): ``arxiv:WORD`` is a category
only when WORD names one of them, so a search word is never sent as a category."""
MAX_ITEMS = 32
"""Sources one alert may name (each costs requests every run)."""
MAX_SPEC_CHARS = 8000


@dataclass(frozen=True)
class SourceSpec:
    """One parsed item: its kind, its value ('' for ``openalex-cites``) and whether the
    value was quoted; ``text`` is the item written back, the source's name."""

    kind: str
    value: str = ""
    quoted: bool = False

    @property
    def text(self) -> str:
        if not self.value:
            return self.kind
        value = self.value.replace('"', '\\"')
        return f'{self.kind}:"{value}"' if self.quoted else f"{self.kind}:{self.value}"

    @property
    def arxiv_categories(self) -> list[str]:
        """The categories of an ``arxiv:`` item, [] when it is a search."""
        if self.kind != "arxiv" or self.quoted:
            return []
        cats = [c.strip() for c in self.value.split("+")]
        known = all(
            CATEGORY_RE.match(c) and c.split(".", 1)[0].lower() in ARXIV_ARCHIVES for c in cats
        )
        return cats if cats and known else []


def _split(spec: str) -> list[tuple[str, bool]]:
    """Items at commas outside quotes: (text with the quotes removed, had a quoted part)."""
    items: list[tuple[str, bool]] = []
    current: list[str] = []
    quoted = in_quotes = False
    chars = iter(spec)
    for char in chars:
        if in_quotes and char == "\\":
            current.append(next(chars, "\\"))
        elif char == '"':
            in_quotes, quoted = not in_quotes, True
        elif char == "," and not in_quotes:
            items.append(("".join(current), quoted))
            current, quoted = [], False
        else:
            current.append(char)
    if in_quotes:
        raise InvalidRequestError(f"sources: a quote is not closed in {spec!r}")
    items.append(("".join(current), quoted))
    return items


def parse_sources(spec: str) -> list[SourceSpec]:
    """The items of ``spec`` (module docstring), each checked; invalid_request naming the
    item and what is accepted otherwise."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidRequestError(f"sources: none given; accepted kinds: {', '.join(KINDS)}")
    if len(spec) > MAX_SPEC_CHARS:
        raise InvalidRequestError(f"sources: more than {MAX_SPEC_CHARS} characters")
    out: list[SourceSpec] = []
    for raw, quoted in _split(spec):
        item = raw.strip()
        if not item:
            raise InvalidRequestError(f"sources: an empty item in {spec!r} (two commas?)")
        kind, _, value = item.partition(":")
        kind, value = kind.strip().lower(), value.strip()
        if kind not in KINDS:
            raise InvalidRequestError(
                f"sources: unknown kind {kind!r} in {item!r}; accepted: {', '.join(KINDS)}"
            )
        if kind == "openalex-cites":
            if value:
                raise InvalidRequestError(
                    "sources: openalex-cites takes no value (it cites the alert's collection)"
                )
        elif not value:
            raise InvalidRequestError(f"sources: {kind} needs a value, e.g. {_EXAMPLES[kind]}")
        if kind == "feed" and "://" in value and not is_url(value):
            raise InvalidRequestError(f"sources: a feed is an http(s) URL or a file, not {value!r}")
        out.append(SourceSpec(kind, value, quoted))
    if len(out) > MAX_ITEMS:
        raise InvalidRequestError(f"sources: at most {MAX_ITEMS} items, got {len(out)}")
    return list(dict.fromkeys(out))


_EXAMPLES = {
    "arxiv": "arxiv:cs.LG",
    "europepmc": 'europepmc:"malaria vaccine"',
    "europepmc-preprints": 'europepmc-preprints:"malaria vaccine"',
    "openalex": 'openalex:"graph neural networks"',
    "search": 'search:"graph neural networks"',
    "feed": "feed:https://connect.biorxiv.org/biorxiv_xml/neuroscience",
    "jsonl": "jsonl:candidates.jsonl",
}


@dataclass
class AlertClients:
    """What building the sources needs: the provider clients (None: not available), the
    OpenAlex citation graph (built on first use, over the library's cache and budget),
    the budget an OpenAlex keyword search takes its requests from, the HTTP layer
    feeds are fetched through and what a feed's URL must pass first (``feed_guard``: in a
    shared library, only public addresses)."""

    arxiv: Any = None
    europepmc: Any = None
    openalex: Any = None
    graph: Callable[[], CitationGraph] | None = None
    budget: RequestBudget | None = None
    feed_http: ProviderHttp | None = None
    feed_guard: Callable[[str], None] | None = None

    @classmethod
    def from_remote(
        cls,
        remote: Any,
        *,
        graph: Callable[[], CitationGraph] | None = None,
        budget: RequestBudget | None = None,
        feed_guard: Callable[[str], None] | None = None,
        feed_peer_check: Callable[[Any], None] | None = None,
    ) -> AlertClients:
        """The clients of a :class:`~prioris.sources.remote.RemoteSources` (its settings'
        base URLs, spacing and answer caps; OpenAlex only with an API key), feeds fetched
        over its HTTP client as provider ``feed`` (``feed_guard`` asked about each URL
        first, ``feed_peer_check`` about each connection before its body is read)."""
        settings = remote.settings
        feed_http = ProviderHttp(
            "feed",
            remote.client,
            min_interval=settings.min_intervals.get("feed", 0.0),
            backoff_budget=settings.backoff_budget_seconds,
            clock=remote.clock,
            max_response_bytes=settings.max_response_bytes,
            peer_check=feed_peer_check,
        )
        openalex = remote.openalex if settings.openalex_api_key else None
        return cls(remote.arxiv, remote.europepmc, openalex, graph, budget, feed_http, feed_guard)


def _need(client: Any, what: str, item: SourceSpec) -> Any:
    if client is None:
        raise ConfigurationError(f"alert source {item.text!r} needs {what}, which is not set up")
    return client


def confined_path(raw: str, roots: Sequence[str | Path] | None) -> str:
    """``raw`` when no roots bound the files a source may read (None), else only when its
    real location (``~`` expanded, links followed) lies under one of ``roots``: in
    accounts mode the person naming the file is not the server's user, and a path outside
    the allowed folders answers as a missing one (nothing learnt of the server's disk)."""
    if roots is None:
        return raw
    real = Path(os.path.realpath(Path(raw).expanduser()))
    if not any(real.is_relative_to(os.path.realpath(root)) for root in roots):
        raise NotFoundError(
            f"no file {raw!r} among the server's import folders; an admin lists them in "
            "PRIORIS_MCP_ALLOWED_IMPORT_DIRS"
        )
    return raw


def build_source(
    item: SourceSpec,
    clients: AlertClients,
    *,
    seeds: Sequence[str] | None = None,
    max_results: int = DEFAULT_MAX_RESULTS,
    allowed_roots: Sequence[str | Path] | None = None,
) -> CandidateSource:
    """The source for one parsed item; configuration_error when its provider is not set
    up (OpenAlex without a key), invalid_request for ``openalex-cites`` without a
    collection (``seeds`` None); a file outside ``allowed_roots`` (when given: accounts
    mode, ``PRIORIS_MCP_ALLOWED_IMPORT_DIRS``) is not_found."""
    name, value, bound = item.text, item.value, check_max(max_results, item.text)
    if item.kind == "jsonl" or (item.kind == "feed" and not is_url(value)):
        value = confined_path(value, allowed_roots)
    if item.kind == "arxiv":
        client = _need(clients.arxiv, "the arXiv client", item)
        cats = item.arxiv_categories
        query = None if cats else value
        return ArxivNewSource(client, categories=cats, query=query, max_results=bound, name=name)
    if item.kind in ("europepmc", "europepmc-preprints"):
        client = _need(clients.europepmc, "the Europe PMC client", item)
        preprints = item.kind == "europepmc-preprints"
        return EuropePmcSource(
            client, value, max_results=bound, preprints_only=preprints, name=name
        )
    if item.kind == "openalex":
        client = _need(clients.openalex, "an OpenAlex API key (PRIORIS_MCP_OPENALEX_API_KEY)", item)
        return OpenAlexSearchSource(
            client, value, budget=clients.budget, max_results=bound, name=name
        )
    if item.kind == "openalex-cites":
        if seeds is None:
            raise InvalidRequestError(
                "alert source 'openalex-cites' needs a collection: its works are the ones cited"
            )
        graph = _need(clients.graph, "an OpenAlex API key (PRIORIS_MCP_OPENALEX_API_KEY)", item)
        return OpenAlexCitingSource(graph(), seeds, max_results=bound, name=name)
    if item.kind == "search":
        return _saved_search(item, clients, bound)
    if item.kind == "feed":
        http = clients.feed_http if is_url(value) else None
        if is_url(value):
            _need(http, "the HTTP layer", item)
        return FeedSource(value, http=http, max_results=bound, name=name, guard=clients.feed_guard)
    return JsonlSource(value, max_results=bound, name=name)


def _saved_search(item: SourceSpec, clients: AlertClients, bound: int) -> SavedSearch:
    targets: list[CandidateSource] = []
    query = item.value
    if clients.arxiv is not None:
        targets.append(ArxivNewSource(clients.arxiv, query=query, max_results=bound))
    if clients.europepmc is not None:
        targets.append(EuropePmcSource(clients.europepmc, query, max_results=bound))
    if clients.openalex is not None:
        targets.append(
            OpenAlexSearchSource(clients.openalex, query, budget=clients.budget, max_results=bound)
        )
    return SavedSearch(query, targets, max_results=bound, name=item.text)


def build_sources(
    spec: str | Sequence[SourceSpec],
    clients: AlertClients,
    *,
    seeds: Sequence[str] | None = None,
    max_results: int = DEFAULT_MAX_RESULTS,
    allowed_roots: Sequence[str | Path] | None = None,
) -> list[CandidateSource]:
    """Every source of ``spec`` (a string, parsed first, or parsed items), in order."""
    items = parse_sources(spec) if isinstance(spec, str) else list(spec)
    return [
        build_source(i, clients, seeds=seeds, max_results=max_results, allowed_roots=allowed_roots)
        for i in items
    ]
