"""MCP tool ``research_alerts``: the library's alerts made, removed, listed, shown, run
and triaged (as ``prioris alerts ...`` and the web app's Alerts page do).

One tool with an ``action``, as the alerts are one thing to an assistant: ``list`` and
``show`` read; ``add`` makes an alert (its sources checked, nothing fetched) and
``remove`` deletes one; ``run`` asks the alert's sources and stores a new ranking;
``accept`` fetches a candidate into the library and ``dismiss`` hides it for good. In
accounts mode the role is per action (:data:`~prioris.interfaces.permissions.
MCP_ACTION_ROLES`, checked by the server before the tool runs): a reader may list and
show, the other actions need a writer; an account sees and triages only its own alerts
(an admin every alert), and an alert it adds is its own. A thin adapter over
:class:`~prioris.services.alerts.Alerts`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from prioris.errors import InvalidRequestError
from prioris.interfaces.mcp.runtime import (
    CALLER,
    PriorisMCPServer,
    ServerState,
    blocking,
    prioris_tool,
)


class _Out(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ErrorOut(_Out):
    code: str = Field(description="a stable error code (provider_unavailable, parse_error, ...)")
    message: str
    source: str | None = Field(None, description="the source that failed, as the alert names it")


class ResultOut(_Out):
    place: int = Field(description="1 = best")
    id: str = Field(description="the candidate's id: accept or dismiss it by this")
    title: str
    url: str | None = None
    identifiers: list[str] = Field(description="doi:, arxiv:, europepmc:, pmid:, openalex:")
    published: str | None = None
    score: float = Field(description="higher first")
    why: dict[str, Any] = Field(
        description="nearest: the library works closest to it; terms: the words that weighed"
    )
    in_library: bool = Field(description="the library holds it already (alias or title + year)")
    source: str = Field(description="the alert source it came from")


class AlertOut(_Out):
    name: str
    owner: str | None = Field(description="its account in a shared library (null: local user)")
    collection: str | None = Field(description="the collection it ranks for")
    search: str | None = Field(description="its saved search (ranked for the whole library)")
    sources: str
    created_at: str
    last_run: str | None = Field(description="the last successful run (null: never run)")
    last_error: ErrorOut | None = Field(description="the last failed run's error, if any since")
    results: int | list[ResultOut] = Field(
        description="list: how many results are stored; show: the results, best first"
    )
    accepted: list[str] | None = None
    dismissed: list[str] | None = None


class RunOut(_Out):
    alert: str
    ok: bool = Field(description="false: a source failed; the previous results are kept")
    since: str | None = Field(description="what the sources were asked from")
    candidates: int | None = None
    results: int | None = None
    last_run: str | None = None
    notes: list[str] = Field(description="what a source could not do fully (budget, dates)")
    error: ErrorOut | None = None


class AlertsOut(_Out):
    action: str
    alerts: list[AlertOut] | None = Field(None, description="list")
    alert: AlertOut | None = Field(None, description="show; add: the alert made")
    runs: list[RunOut] | None = Field(None, description="run: one report per alert")
    accepted: str | None = Field(None, description="accept: the candidate fetched")
    work_id: str | None = Field(None, description="accept: the work stored")
    status: str | None = Field(None, description="accept: ingested or skipped (held already)")
    dismissed: str | None = Field(None, description="dismiss: the candidate hidden")
    removed: str | None = Field(None, description="remove: the alert removed")


def register_alert_tools(server: PriorisMCPServer, state: ServerState) -> None:
    """Add ``research_alerts``."""

    @server.tool(
        name="research_alerts",
        annotations=ToolAnnotations(
            read_only_hint=False,
            destructive_hint=True,  # remove deletes an alert with its results
            idempotent_hint=False,
            open_world_hint=True,
        ),
    )
    @prioris_tool
    async def alerts(
        action: Annotated[
            Literal["list", "show", "add", "remove", "run", "accept", "dismiss"],
            Field(
                description="list, show (one alert's results), add, remove, run, accept or "
                "dismiss; list and show need the reader role, the others a writer"
            ),
        ],
        name: Annotated[
            str | None,
            Field(min_length=1, max_length=64, description="the alert (run: default all)"),
        ] = None,
        candidate: Annotated[
            str | None,
            Field(min_length=1, max_length=1000, description="accept/dismiss: a result's id"),
        ] = None,
        since: Annotated[
            str | None,
            Field(max_length=40, description="run: ask from this day (default: the last run)"),
        ] = None,
        k: Annotated[int, Field(ge=1, le=1000, description="run: results kept")] = 50,
        collection: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=1000,
                description="add: the collection it ranks for (its path or last name; it "
                "must hold works); give it or search",
            ),
        ] = None,
        search: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=1000,
                description="add: a saved search, re-run on arXiv, Europe PMC (and OpenAlex "
                "with a key) and ranked for the whole library; give it or collection",
            ),
        ] = None,
        sources: Annotated[
            str | None,
            Field(
                min_length=1,
                max_length=8000,
                description="add: where candidates come from, comma separated, e.g. "
                'arxiv:cs.LG,europepmc:"protein folding",openalex-cites,feed:URL,'
                "jsonl:PATH (needed with a collection; beside a search's own)",
            ),
        ] = None,
    ) -> AlertsOut:
        """The library's alerts: new papers from arXiv, Europe PMC, OpenAlex or feeds,
        ranked for a collection (or a saved search) by a model of its works, each with
        `why` (nearest library works, weighing terms) and `in_library`. `list`; `show`
        an alert's last results; `add` one (`name` with `collection` and `sources`, or
        `search`); `remove` one (its results and triage go with it; works accepted stay
        in the library); `run` one alert (`name`) or all, asking the sources
        since the last run (a failing source is named in `error`, the previous results
        kept); `accept` a result (fetched into the library, a positive of later runs);
        `dismiss` one (never shown again for that alert, a negative of later runs)."""
        account = CALLER.get()  # accounts mode: an account's own alerts
        if action in ("show", "add", "remove", "accept", "dismiss") and not name:
            raise InvalidRequestError(f"{action} needs the alert's name")
        if action in ("accept", "dismiss") and not candidate:
            raise InvalidRequestError(f"{action} needs a candidate (a result's id)")
        if action != "run" and since is not None:
            raise InvalidRequestError("since is for action run")
        if action != "add" and (collection, search, sources) != (None, None, None):
            raise InvalidRequestError("collection, search and sources are for action add")

        def run() -> dict[str, Any]:
            library = state.library()
            if action == "list":
                return {"alerts": library.alerts_list(account=account)}
            if action == "show":
                return {"alert": library.alerts_show(name, account=account)}
            if action == "add":
                made = library.alerts_add(
                    name, collection=collection, search=search, sources=sources, account=account
                )
                return {"alert": made}
            if action == "remove":
                return library.alerts_remove(name, account=account)
            if action == "run":
                return {"runs": library.alerts_run(name, since=since, k=k, account=account)}
            triage = library.alerts_accept if action == "accept" else library.alerts_dismiss
            done = triage(name, candidate, account=account)
            return {k: v for k, v in done.items() if k != "alert"}  # the name was given

        return AlertsOut.model_validate({**await blocking(run), "action": action})
