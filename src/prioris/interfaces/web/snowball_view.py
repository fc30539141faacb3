"""The Snowball page: seeds chosen, candidates triaged (accept -> the fetch job, dismiss ->
remembered), and a small citation view drawn as server-side SVG.

``GET /snowball`` is the page; ``POST /api/snowball`` runs a snowball and returns the
candidates and the SVG as an HTML fragment (like Discover's); ``POST /api/snowball/dismiss``
remembers a candidate as not wanted. Accepting reuses ``/api/fetch`` with the candidate's
route identifier. Nothing here downloads a candidate's PDF link: it is only shown.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any
from urllib.parse import quote

from markupsafe import Markup, escape
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of
from prioris.interfaces.web.views import read_url

GRAPH_CANDIDATES = 12
"""Candidates drawn in the citation view (the list below it has them all)."""
GRAPH_SEEDS = 12
WIDTH, ROW, TOP = 900, 34, 30
SEED_X, CANDIDATE_X = 200, 560
LABEL_MARGIN = 6  # px kept free at the view's left and right edges
MAX_IDS = 500


async def snowball_page(request: Request) -> Response:
    """The form: seeds (every work, a collection, or ``?ids=``; the Library page's
    "Snowball from these" sends its ticked works as ``?id=``)."""
    state = state_of(request)
    collections = await blocking(state.library.collection_counts)
    given = [*request.query_params.getlist("ids"), *request.query_params.getlist("id")]
    ids = list(dict.fromkeys(i for i in given if i.strip()))[:MAX_IDS]
    return state.render(
        request,
        "snowball.html",
        collections=collections,
        ids=ids,
        has_key=bool(state.library.settings.openalex_api_key),
        page="snowball",
    )


def _str_list(value: Any) -> list[str]:
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [v for v in value.split() if v]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v for v in value if v.strip()]
    raise InvalidRequestError("ids must be a list of work ids")


async def run_snowball(request: Request) -> Response:
    """``{"seeds": "all"|"collection"|"ids", "collection", "ids", "direction", "offline",
    "limit"}``: the candidates and the citation view as HTML."""
    state = state_of(request)
    data = await read_json(request)
    seeds = data.get("seeds") or "all"
    ids = _str_list(data.get("ids"))
    if len(ids) > MAX_IDS:
        raise InvalidRequestError(f"at most {MAX_IDS} seed works at once")
    direction = str(data.get("direction") or "both")
    try:
        raw = data.get("limit")
        limit = 25 if raw in (None, "") else int(raw)
    except (TypeError, ValueError):
        raise InvalidRequestError(f"limit must be a number, got {data.get('limit')!r}") from None
    kwargs: dict[str, Any] = {
        "direction": direction,
        "limit": limit,
        "offline": bool(data.get("offline")),
    }
    if seeds == "all":
        kwargs["all"] = True
    elif seeds == "collection":
        kwargs["collection"] = str(data.get("collection") or "")
        if not kwargs["collection"].strip():
            raise InvalidRequestError("choose a collection")
    elif seeds == "ids":
        if not ids:
            raise InvalidRequestError("tick works on the Library page to use them as seeds")
    else:
        raise InvalidRequestError(f"seeds must be all, collection or ids, got {seeds!r}")
    account = request.scope.get(ACCOUNT_SCOPE_KEY)  # accounts mode: its share of the budget
    kwargs["account"] = None if account is None else account.name
    answer = await blocking(state.library.snowball, ids if seeds == "ids" else [], **kwargs)
    titles = await blocking(_seed_titles, state.library, answer)
    html = state.templates.get_template("_snowball_results.html").render(
        answer=answer,
        seed_titles=titles,
        graph=citation_svg(answer, titles),
        record_url=record_url,
        csrf_token=state.csrf_token,
    )
    return Response(html, media_type="text/html; charset=utf-8")


def _seed_titles(library: Any, answer: dict[str, Any]) -> dict[str, str]:
    wanted = {s for c in answer["candidates"] for s in c["why"]["cited_by_seeds"]}
    wanted |= {s for c in answer["candidates"] for s in c["why"]["cites_seeds"]}
    found = {}
    for work_id in sorted(wanted)[: GRAPH_SEEDS * 4]:
        work = library.get_work(work_id)
        found[work_id] = work.title if work else work_id
    return found


async def dismiss(request: Request) -> Response:
    """``{"key", "title"}``: never show this candidate again."""
    state = state_of(request)
    data = await read_json(request)
    key, title = data.get("key"), data.get("title") or ""
    if not isinstance(key, str) or not isinstance(title, str):
        raise InvalidRequestError("key and title must be strings")
    result = await blocking(state.library.dismiss_candidate, key, title)
    return JSONResponse(result)


def record_url(candidate: dict[str, Any]) -> str | None:
    """Where a person reads the candidate's record: its DOI, arXiv or OpenAlex page."""
    ids = candidate.get("ids") or {}
    if ids.get("doi"):
        return "https://doi.org/" + quote(ids["doi"], safe="/:;()._-")
    if ids.get("arxiv"):
        return "https://arxiv.org/abs/" + quote(ids["arxiv"], safe="/.")
    if ids.get("openalex"):
        return "https://openalex.org/" + quote(ids["openalex"], safe="")
    return None


def _clip(text: str, width: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _glyph_px(ch: str) -> float:
    """A generous width of one character at the view's 12 px font: labels are measured
    before the browser lays them out, so a wide title (capitals, CJK) must not run past
    the SVG's edge (issue 39: seed labels clipped at the left)."""
    if unicodedata.east_asian_width(ch) in ("W", "F"):
        return 12.5
    if ch in "WMmw@ÆŒ":
        return 11.5
    if ch.isupper() or ch.isdigit():
        return 9.0
    if ch in " .,:;'|!il":
        return 4.0
    return 7.0


def _clip_px(text: str, room: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``room`` pixels at 12 px."""
    text = " ".join((text or "").split())
    if sum(_glyph_px(c) for c in text) <= room:
        return text
    used, kept = _glyph_px("…"), []
    for ch in text:
        used += _glyph_px(ch)
        if used > room:
            break
        kept.append(ch)
    return "".join(kept).rstrip() + "…"


def citation_svg(answer: dict[str, Any], seed_titles: dict[str, str]) -> Markup:
    """Seeds (left, linking to the Read page) and the top candidates (right, linking to
    their record), with an arrow from each citing work to the work it cites. Every text
    is escaped; colours are attributes (the CSP allows no inline style)."""
    candidates = answer["candidates"][:GRAPH_CANDIDATES]
    if not candidates:
        return Markup("")
    linked: dict[str, int] = {}
    for cand in candidates:
        for seed in [*cand["why"]["cited_by_seeds"], *cand["why"]["cites_seeds"]]:
            linked[seed] = linked.get(seed, 0) + 1
    seeds = sorted(linked, key=lambda s: (-linked[s], s))[:GRAPH_SEEDS]
    rows = max(len(seeds), len(candidates))
    height = TOP * 2 + ROW * (rows - 1) + 20

    def y(index: int, count: int) -> float:
        offset = (rows - count) * ROW / 2
        return TOP + offset + index * ROW

    seed_y = {s: y(i, len(seeds)) for i, s in enumerate(seeds)}
    parts = [
        f'<svg class="citation-graph" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        'aria-labelledby="cg-title cg-desc">',
        '<title id="cg-title">Citation view</title>',
        f'<desc id="cg-desc">{len(seeds)} seed(s) on the left, the top {len(candidates)} '
        "candidate(s) on the right; an arrow goes from the citing work to the cited one."
        "</desc>",
        '<defs><marker id="cg-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#555"/></marker></defs>',
        f'<text x="{SEED_X}" y="14" text-anchor="end" font-size="12" font-weight="bold">'
        "Your seeds</text>",
        f'<text x="{CANDIDATE_X}" y="14" font-size="12" font-weight="bold">Candidates</text>',
    ]
    for index, cand in enumerate(candidates):
        cy = y(index, len(candidates))
        for seed in cand["why"]["cited_by_seeds"]:  # the seed cites it: seed -> candidate
            if seed in seed_y:
                parts.append(_edge(SEED_X + 8, seed_y[seed], CANDIDATE_X - 8, cy, "#1f5fa8"))
        for seed in cand["why"]["cites_seeds"]:  # it cites the seed: candidate -> seed
            if seed in seed_y:
                parts.append(_edge(CANDIDATE_X - 8, cy, SEED_X + 8, seed_y[seed], "#c26a00"))
    for seed in seeds:
        title = seed_titles.get(seed) or seed
        parts.append(
            f'<a href="{escape(read_url(seed))}"><title>{escape(title)}</title>'
            f'<circle cx="{SEED_X}" cy="{seed_y[seed]:.1f}" r="7" fill="#2e7d32"/>'
            f'<text x="{SEED_X - 12}" y="{seed_y[seed] + 4:.1f}" text-anchor="end" '
            f'font-size="12">{escape(_clip_px(title, SEED_X - 12 - LABEL_MARGIN))}</text></a>'
        )
    for index, cand in enumerate(candidates):
        cy = y(index, len(candidates))
        radius = 5 + 6 * max(0.0, min(1.0, float(cand["score"])))
        room = WIDTH - (CANDIDATE_X + 16) - LABEL_MARGIN
        label = _clip_px(f"{index + 1}. {cand['title']}", room)
        tip = f"{cand['title']} ({cand['year'] or 'n.d.'}), score {cand['score']:.3f}"
        dot = (
            f"<title>{escape(tip)}</title>"
            f'<circle cx="{CANDIDATE_X}" cy="{cy:.1f}" r="{radius:.1f}" fill="#8e24aa"/>'
            f'<text x="{CANDIDATE_X + 16}" y="{cy + 4:.1f}" font-size="12">'
            f"{escape(label)}</text>"
        )
        url = record_url(cand)
        if url:
            parts.append(
                f'<a href="{escape(url)}" target="_blank" rel="noopener noreferrer">{dot}</a>'
            )
        else:
            parts.append(f"<g>{dot}</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def _edge(x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    bend = (x2 - x1) / 2
    if math.isclose(y1, y2):
        return (
            f'<line x1="{x1}" y1="{y1:.1f}" x2="{x2}" y2="{y2:.1f}" stroke="{colour}" '
            'stroke-width="1.4" marker-end="url(#cg-arrow)" opacity="0.7"/>'
        )
    return (
        f'<path d="M{x1},{y1:.1f} C{x1 + bend},{y1:.1f} {x2 - bend},{y2:.1f} {x2},{y2:.1f}" '
        f'fill="none" stroke="{colour}" stroke-width="1.4" marker-end="url(#cg-arrow)" '
        'opacity="0.7"/>'
    )


ROUTES = [
    Route("/snowball", snowball_page),
    Route("/api/snowball", run_snowball, methods=["POST"]),
    Route("/api/snowball/dismiss", dismiss, methods=["POST"]),
]
