"""The account page: a person's feed tokens (issue 37), made and revoked in the browser.

A feed reader cannot log in, so it reads ``/alerts/NAME.atom?token=…`` with a feed token
of the person's account (:mod:`.accounts_web` lets such a token read feeds and nothing
else). ``GET /account`` lists the account's tokens and the feed URLs of its alerts;
``POST /api/feed-tokens`` makes one (shown once), ``POST /api/feed-tokens/revoke`` revokes
one of the account's own. Both are open to readers (a reader reads feeds too), so the
middleware does not audit them as writes; they are recorded in the audit log here, the
token's id and never the token. Without accounts (loopback) there is no token to make: the page
says the feeds need none.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from prioris.errors import InvalidRequestError
from prioris.interfaces.web.alerts_view import account_of
from prioris.interfaces.web.security import read_json
from prioris.interfaces.web.state import blocking, state_of


def _account(request: Request) -> str:
    name = account_of(request)
    if name is None:
        raise InvalidRequestError(
            "this server has no accounts: feeds need no token here (/alerts/NAME.atom)"
        )
    return name


async def account_page(request: Request) -> Response:
    state = state_of(request)
    name = account_of(request)
    tokens = await blocking(state.library.feed_tokens, name) if name else []
    alerts = await blocking(state.library.alerts_list, account=name)
    return state.render(
        request,
        "account.html",
        page="account",
        account_name=name,
        tokens=tokens,
        alerts=alerts,
        base=str(request.base_url).rstrip("/"),
    )


async def add_token(request: Request) -> Response:
    """``{"label"}``: a new feed token of the request's account, shown once."""
    state = state_of(request)
    name = _account(request)
    label = (await read_json(request)).get("label") or ""
    if not isinstance(label, str):
        raise InvalidRequestError("label must be text")
    made = await blocking(state.library.add_feed_token, name, label)
    await blocking(
        state.library.record_audit, name, "POST /api/feed-tokens", made["token_id"], "web"
    )
    return JSONResponse(made, status_code=201)


async def revoke_token(request: Request) -> Response:
    """``{"token_id"}``: revoke one of the account's own feed tokens."""
    state = state_of(request)
    name = _account(request)
    token_id = (await read_json(request)).get("token_id")
    if not isinstance(token_id, str):
        raise InvalidRequestError("give token_id")
    row = await blocking(state.library.revoke_feed_token, token_id, account=name)
    await blocking(
        state.library.record_audit, name, "POST /api/feed-tokens/revoke", token_id, "web"
    )
    return JSONResponse(row)


ROUTES = [
    Route("/account", account_page),
    Route("/api/feed-tokens", add_token, methods=["POST"]),
    Route("/api/feed-tokens/revoke", revoke_token, methods=["POST"]),
]
