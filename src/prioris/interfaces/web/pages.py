"""The HTML pages for finding and reading a work: Search and Read, with the URL
parameters every page and the JSON API share (:func:`int_param`, :func:`label_params`,
:class:`SearchForm`, :func:`run_search`) and the collection and tag facets.

Each handler reads its query parameters, calls the Library (in a worker thread) and
renders a template; a page's state lives in its URL, so any view can be bookmarked.
The pages about the library as a whole (Library, Add, Discover, Status) are in
:mod:`.library_pages`, registered right after these.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.web.edit import form_fields
from prioris.interfaces.web.state import blocking, state_of

MODES = ("hybrid", "fts", "vector")
K_CHOICES = (10, 20, 50)
HEX_COLOUR = re.compile(r"#[0-9A-Fa-f]{3,8}")
CITE_CHOICES = (
    ("style:apa", "APA"),
    ("style:vancouver", "Vancouver"),
    ("style:ieee", "IEEE"),
    ("style:chicago-author-date", "Chicago (author-date)"),
    ("format:bibtex", "BibTeX"),
    ("format:ris", "RIS"),
)
"""The read page's "Cite as" menu: the bundled styles, then the citation files."""


MAX_NUMBER = 2**63 - 1  # the largest whole number either database takes
MAX_TAGS = 20  # tags one page's URL may filter by
MAX_LABEL_CHARS = 300
TAG_FACETS = 40  # the most used tags offered as chips


def label_params(params: Any) -> tuple[str, tuple[str, ...]]:
    """The ``collection`` and repeated ``tag`` parameters, bounded: one collection path
    and at most :data:`MAX_TAGS` tags of :data:`MAX_LABEL_CHARS` characters each."""
    collection = (params.get("collection") or "").strip()
    tags = tuple(dict.fromkeys(t.strip() for t in params.getlist("tag") if t.strip()))
    if len(tags) > MAX_TAGS:
        raise InvalidRequestError(f"at most {MAX_TAGS} tags, got {len(tags)}")
    for name in (collection, *tags):
        if len(name) > MAX_LABEL_CHARS:
            raise InvalidRequestError(
                f"a collection or tag is at most {MAX_LABEL_CHARS} characters, got {len(name)}"
            )
    return collection, tags


async def label_facets(request: Request, tags: tuple[str, ...]) -> dict[str, Any]:
    """The collection and tag facets with their work counts: every collection (a tree in
    path order) and the most used tags, the active ones always among them."""
    library = state_of(request).library
    collections = await blocking(library.collection_counts)
    tag_counts = await blocking(library.tag_counts)
    active = {t.casefold() for t in tags}
    shown = list(tag_counts[:TAG_FACETS])
    shown += [t for t in tag_counts[TAG_FACETS:] if t[0].casefold() in active]
    return {
        "collections": [
            {
                "path": path,
                "count": count,
                "depth": path.count(" / "),
                "name": path.split(" / ")[-1],
            }
            for path, count in collections
        ],
        "tags": [{"name": name, "count": count} for name, count in shown],
        "more_tags": max(0, len(tag_counts) - len(shown)),
    }


def int_param(params: Any, name: str, *, low: int = 0, high: int = MAX_NUMBER) -> int | None:
    """A whole-number parameter within ``low..high`` (by default any a database takes:
    a larger one is invalid_request, never an OverflowError from the driver)."""
    raw = (params.get(name) or "").strip()
    if not raw:
        return None
    if len(raw.lstrip("+-")) > len(str(MAX_NUMBER)):
        raise InvalidRequestError(f"{name} must be between {low} and {high}, got {raw[:24]}…")
    try:
        value = int(raw)
    except ValueError:
        raise InvalidRequestError(f"{name} must be a whole number, got {raw[:40]!r}") from None
    if not low <= value <= high:
        raise InvalidRequestError(f"{name} must be between {low} and {high}, got {value}")
    return value


@dataclass
class SearchForm:
    """The search page's parameters, as the URL carries them."""

    q: str = ""
    mode: str = "hybrid"
    passages: bool = False
    source: str = ""
    from_year: int | None = None
    to_year: int | None = None
    k: int = 10
    undated: bool = False  # keep works without a year when a year filter is set
    collection: str = ""  # a collection path (its subcollections included)
    tags: tuple[str, ...] = ()  # all of them
    evidence: bool = False  # the sentences that state the query, not works or passages

    @classmethod
    def parse(cls, params: Any) -> SearchForm:
        mode = params.get("mode") or "hybrid"
        if mode not in MODES:
            raise InvalidRequestError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        k = int_param(params, "k", low=1, high=100) or 10
        collection, tags = label_params(params)
        return cls(
            q=(params.get("q") or "").strip(),
            mode=mode,
            passages=params.get("passages") in ("1", "on", "true"),
            source=(params.get("source") or "").strip(),
            from_year=int_param(params, "from", low=0, high=9999),
            to_year=int_param(params, "to", low=0, high=9999),
            k=k,
            undated=params.get("undated") in ("1", "on", "true"),
            collection=collection,
            tags=tags,
            evidence=params.get("evidence") in ("1", "on", "true"),
        )

    def filters(self) -> dict[str, Any]:
        """The Library's filter arguments (a search's and evidence's alike)."""
        return {
            "source": self.source or None,
            "from_year": self.from_year,
            "to_year": self.to_year,
            "include_undated": self.undated,
            "collections": self.collection or None,
            "tags": self.tags or None,
        }

    def params(self) -> dict[str, Any]:
        return {
            "q": self.q,
            "mode": self.mode,
            "passages": self.passages,
            "source": self.source,
            "from": self.from_year,
            "to": self.to_year,
            "k": self.k if self.k != 10 else None,
            "undated": self.undated or None,
            "collection": self.collection,
            "tag": list(self.tags),
            "evidence": self.evidence or None,
        }


async def run_search(request: Request, form: SearchForm) -> dict[str, Any]:
    """The hits of ``form`` (or the error that explains why there are none)."""
    library = state_of(request).library
    started = time.perf_counter()
    if form.evidence:
        return await run_evidence(library, form, started)
    try:
        response = await blocking(
            library.search,
            form.q,
            mode=form.mode,
            k=form.k,
            chunks=form.passages,
            **form.filters(),
        )
    except PriorisError as exc:
        return {"error": exc.to_dict(), "hits": [], "took_ms": 0.0, "server_ms": 0.0}
    return {
        "error": None,
        "hits": response.hits,
        "left_out_no_year": response.left_out_no_year,
        "missing_shards": response.missing_shards,
        "took_ms": response.took_ms,
        "server_ms": (time.perf_counter() - started) * 1000,
    }


async def run_evidence(library: Any, form: SearchForm, started: float) -> dict[str, Any]:
    """The Evidence view of a search: the sentences that state the query, each linking to
    the Read page with the sentence marked (:func:`read_page`'s ``start`` and ``end``)."""
    try:
        found = await blocking(
            library.evidence,
            form.q,
            k=min(form.k, 50),
            **form.filters(),
        )
    except PriorisError as exc:
        return {"error": exc.to_dict(), "hits": [], "took_ms": 0.0, "server_ms": 0.0}
    server_ms = (time.perf_counter() - started) * 1000
    return {
        "error": None,
        "hits": [],
        "evidence": found["evidence"],
        "took_ms": server_ms,
        "server_ms": server_ms,
    }


async def search_page(request: Request) -> Response:
    state = state_of(request)
    error = None
    try:
        form = SearchForm.parse(request.query_params)
    except InvalidRequestError as exc:
        form, error = SearchForm(q=(request.query_params.get("q") or "").strip()), exc.to_dict()
    results = None
    if form.q and error is None:
        results = await run_search(request, form)
    elif error is not None:
        results = {"error": error, "hits": [], "took_ms": 0.0, "server_ms": 0.0}
    counts = await blocking(state.library.year_source_counts)
    sources = sorted({row["source"] for row in counts})
    total = sum(row["count"] for row in counts)
    return state.render(
        request,
        "search.html",
        form=form,
        results=results,
        sources=sources,
        facets=await label_facets(request, form.tags),
        total_works=total,
        modes=MODES,
        k_choices=K_CHOICES,
        page="search",
    )


def _page_of(chunk: dict[str, Any], pages: list[dict[str, Any]]) -> int:
    """The page holding most of a passage (one that runs over a page break mostly sits on
    one side; its first page may hold only the overlap with the previous passage)."""

    def share(span: dict[str, Any]) -> int:
        return min(chunk["char_end"], span["char_end"]) - max(
            chunk["char_start"], span["char_start"]
        )

    candidates = [p for p in pages if chunk["page_start"] <= p["number"] <= chunk["page_end"]]
    if not candidates:
        return int(chunk["page_start"])
    return int(max(candidates, key=share)["number"])


def _quote_span(params: Any) -> tuple[int, int] | None:
    """``start``/``end`` of a quoted sentence in the work's text, when both are given."""
    start, end = int_param(params, "start"), int_param(params, "end")
    if start is None or end is None or end <= start:
        return None
    return start, end


def _page_at(quote: tuple[int, int] | None, pages: list[dict[str, Any]]) -> int:
    """The page a quoted sentence starts on (page 1 without one)."""
    if quote is not None:
        for span in pages:
            if span["char_start"] <= quote[0] < span["char_end"]:
                return int(span["number"])
    return 1


READ_REFERENCES = 500  # entries the Read page lists (the count says how many there are)
READ_CITATIONS = 200  # works of the library it cites / that cite it, listed


async def read_page(request: Request) -> Response:
    state = state_of(request)
    library = state.library
    params = request.query_params
    work = await blocking(library.get_work, params.get("id") or "")
    pages = await blocking(library.pages, work.id)
    chunk_id = int_param(params, "chunk", low=0)
    chunk = None
    if chunk_id is not None:
        try:
            chunk = await blocking(library.chunk, chunk_id)
        except PriorisError:
            chunk = None
        if chunk is not None and chunk["work_id"] != work.id:
            chunk = None
    wanted = int_param(params, "page")
    # a quoted sentence (the Evidence view): its characters, marked on the page they start on
    quote = _quote_span(params)
    number = wanted or (_page_of(chunk, pages) if chunk else _page_at(quote, pages))
    notice = None
    if pages and not 1 <= number <= len(pages):
        notice = f"There is no page {number}; showing page 1 of {len(pages)}."
        number = 1
    view = await blocking(library.show, work.id, page=number) if pages else None
    span = pages[number - 1] if pages else None
    passage = None
    marked = (chunk["char_start"], chunk["char_end"]) if chunk else quote
    if marked and view and span:
        start = max(marked[0], span["char_start"]) - view["offset"]
        end = min(marked[1], span["char_end"]) - view["offset"]
        if start < end:
            passage = (start, end)
    _, documents = await blocking(library.original, work.id)
    pdf = next((d for d in documents if d["format"] == "pdf"), None)
    bibtex = await blocking(library.export, [work.id], "bibtex")
    citation = (await blocking(library.cite, [work.id], "apa"))["items"][0]["citation"]
    record = await blocking(library.work_fields, work.id)
    notes = [  # a colour names a CSS class (the CSP allows no inline style): hex only
        {**n, "color": n["color"] if HEX_COLOUR.fullmatch(n["color"] or "") else ""}
        for n in await blocking(library.notes, work.id)
    ]
    valid_pages = range(1, len(pages) + 1)
    note_page = {id(n): (n["page"] if n["page"] in valid_pages else 1) for n in notes}
    page_notes = [n for n in notes if not pages or note_page[id(n)] == number]
    other_note_pages = sorted({note_page[id(n)] for n in notes} - {number})
    labels = await blocking(library.labels, work.id)
    references = await blocking(library.references, work.id)  # read from its text
    cites = await blocking(library.cites, work.id)  # the local citation graph
    cited_by = await blocking(library.cited_by, work.id)
    return state.render(
        request,
        "read.html",
        references=references[:READ_REFERENCES],
        reference_count=len(references),
        cites=cites[:READ_CITATIONS],
        cites_count=len(cites),
        cited_by=cited_by[:READ_CITATIONS],
        cited_by_count=len(cited_by),
        notes=notes,
        page_notes=page_notes,
        other_note_pages=other_note_pages,
        work=work,
        labels=labels,
        pages=pages,
        number=number,
        view=view,
        span=span,
        chunk=chunk,
        quote=quote,
        passage=passage,
        documents=documents,
        pdf=pdf,
        bibtex=bibtex,
        citation=citation,
        cite_choices=CITE_CHOICES,
        notice=notice,
        record=record,
        edit_rows=form_fields(record),
        edit_open=params.get("edit") in ("1", "on", "true"),
        page="read",
    )


ROUTES = [
    Route("/", search_page),
    Route("/read", read_page),
]
