"""The Alerts page and each alert's Atom feed (issue 37).

``GET /alerts`` lists the alerts the person may see with their last run's ranked
candidates (score, why, already in the library or not); each candidate is accepted (the
fetch job: fetched into the library, remembered as a positive) or dismissed (remembered,
never shown again for that alert) by a button or one key (``j``/``k`` move, ``a`` accept,
``d`` dismiss, ``o`` open its link); ``Run`` runs an alert as a job. The page's "New
alert" form makes an alert (``POST /api/alerts/add``: a name, a collection or a search,
sources as the CLI's ``--sources``) and each alert's Remove button deletes it (``POST
/api/alerts/remove``); their errors come back as the Library's, shown beside the form. ``GET
/alerts/NAME.atom`` is the same Atom as ``prioris alerts feed NAME``: in accounts mode a
session or a feed token (``?token=``, :mod:`.accounts_web`) reads it, as its account.
Every call goes to the Library with the account of the request (None without accounts):
an account sees, runs and triages its own alerts (admins every one).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.alerts.atom import why_text
from prioris.alerts.digest import candidate_link
from prioris.errors import InvalidRequestError, PriorisError
from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY
from prioris.interfaces.web.jobs import JobContext, JobFunction
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of

FEED_TYPE = "application/atom+xml; charset=utf-8"


def account_of(request: Request) -> str | None:
    """The request's account name in accounts mode, None for the machine's own user."""
    account = request.scope.get(ACCOUNT_SCOPE_KEY)
    return None if account is None else str(account.name)


def _shown(library: Any, account: str | None) -> list[dict[str, Any]]:
    """Every alert the account sees, each with its results (and where to read each)."""
    shown = [
        library.alerts_show(alert["name"], account=account)
        for alert in library.alerts_list(account=account)
    ]
    for alert in shown:
        for row in alert["results"]:
            row["link"] = candidate_link({"id": row["id"], "link": row.get("url")})
    return shown


async def alerts_page(request: Request) -> Response:
    state = state_of(request)
    account = account_of(request)
    alerts = await blocking(_shown, state.library, account)
    collections = await blocking(state.library.list_collections)
    return state.render(
        request,
        "alerts.html",
        page="alerts",
        alerts=alerts,
        collections=[c["path"] for c in collections if c["works"]],
        why_text=why_text,
        link_of=candidate_link,
        accounts_mode=request.app.state.sessions is not None,
    )


async def alert_feed(request: Request) -> Response:
    """``/alerts/NAME.atom``: the alert's stored ranking as Atom."""
    state = state_of(request)
    name = request.path_params["name"]
    xml = await blocking(state.library.alerts_feed, name, account=account_of(request))
    return Response(xml, media_type=FEED_TYPE, headers={"cache-control": "private, no-cache"})


def _names(data: dict[str, Any], *keys: str) -> list[str]:
    values = [data.get(k) for k in keys]
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise InvalidRequestError(f"give {' and '.join(keys)}")
    return [str(v) for v in values]


def _optional(data: dict[str, Any], key: str) -> str | None:
    """A form field: None when left empty (the form sends every field), else its text."""
    value = data.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise InvalidRequestError(f"{key} must be text")
    return value.strip()


def run_job(library: Any, name: str, account: str | None) -> JobFunction:
    """Run one alert: its sources asked, the candidates ranked and stored."""

    def job(context: JobContext) -> str:
        context.item(0, state="running", stage="asking its sources")
        (report,) = library.alerts_run(
            name, account=account, on_progress=lambda line: context.item(0, stage=line)
        )
        if not report["ok"]:
            error = report["error"]
            where = f" (source {error['source']})" if error.get("source") else ""
            context.item(
                0,
                state="failed",
                stage="",
                error_code=error["code"],
                message=f"{error['message']}{where}",
            )
            return f"failed: {error['message']}"
        message = f"{report['results']} result(s) from {report['candidates']} candidate(s)"
        context.item(0, state="done", stage="", message=message)
        return message

    return job


def accept_job(library: Any, name: str, candidate: str, account: str | None) -> JobFunction:
    """Accept a candidate: the fetch (as ``/api/fetch``'s job), then remembered."""

    def job(context: JobContext) -> str:
        context.item(0, state="running", stage="fetching")
        try:
            found = library.alerts_accept(name, candidate, account=account)
        except PriorisError as exc:
            context.fail_item(0, exc)
            return "0 ingested, 0 skipped, 1 failed"
        skipped = found["status"] == "skipped"
        context.item(
            0,
            state="skipped" if skipped else "ingested",
            stage="",
            work_id=found["work_id"],
            message="already in the library" if skipped else "fetched",
        )
        return f"{0 if skipped else 1} ingested, {1 if skipped else 0} skipped, 0 failed"

    return job


async def run_alert(request: Request) -> Response:
    """``{"alert"}``: run it as a job."""
    state = state_of(request)
    (name,) = _names(await read_json(request), "alert")
    await blocking(state.library.alerts_show, name, account=account_of(request))  # 404 now
    job = state.jobs.submit(
        "alerts", f"alert {name}", run_job(state.library, name, account_of(request)), items=[name]
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def add_alert(request: Request) -> Response:
    """``{"name", "collection" | "search", "sources"}``: make an alert (the Library checks
    the name, the collection, the sources and, in accounts mode, the folders a file source
    may lie in); 201 with the alert."""
    state = state_of(request)
    data = await read_json(request)
    (name,) = _names(data, "name")
    made = await blocking(
        state.library.alerts_add,
        name.strip(),
        collection=_optional(data, "collection"),
        search=_optional(data, "search"),
        sources=_optional(data, "sources"),
        account=account_of(request),
    )
    return JSONResponse({"alert": made}, status_code=201)


async def remove_alert(request: Request) -> Response:
    """``{"alert"}``: remove it with its results and triage (accepted works stay)."""
    state = state_of(request)
    (name,) = _names(await read_json(request), "alert")
    done = await blocking(state.library.alerts_remove, name, account=account_of(request))
    return JSONResponse(done)


async def accept(request: Request) -> Response:
    """``{"alert", "candidate"}``: fetch it into the library (a job) and remember it."""
    state = state_of(request)
    name, candidate = _names(await read_json(request), "alert", "candidate")
    account = account_of(request)
    job = state.jobs.submit(
        "fetch", candidate, accept_job(state.library, name, candidate, account), items=[candidate]
    )
    return JSONResponse({"job": job.snapshot()}, status_code=202)


async def dismiss(request: Request) -> Response:
    """``{"alert", "candidate"}``: never show it again for this alert."""
    state = state_of(request)
    name, candidate = _names(await read_json(request), "alert", "candidate")
    result = await blocking(
        state.library.alerts_dismiss, name, candidate, account=account_of(request)
    )
    return JSONResponse(result)


ROUTES = [
    Route("/alerts", alerts_page),
    Route("/alerts/{name}.atom", alert_feed),
    Route("/api/alerts/add", add_alert, methods=["POST"]),
    Route("/api/alerts/remove", remove_alert, methods=["POST"]),
    Route("/api/alerts/run", run_alert, methods=["POST"]),
    Route("/api/alerts/accept", accept, methods=["POST"]),
    Route("/api/alerts/dismiss", dismiss, methods=["POST"]),
]
