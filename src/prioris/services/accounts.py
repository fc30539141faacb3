"""Accounts, roles and the audit log of a shared library (issue 24).

A library with no active account is used as today (loopback without login, or the single
``PRIORIS_MCP_HTTP_TOKEN``). Once an account exists, the remote interfaces ask every
request for one: :meth:`Accounts.authenticate` turns a token into its :class:`Account`,
:func:`role_allows` says whether its role may do what a route or tool needs, and each
write is recorded with :meth:`Accounts.record`.

Verifying a token costs one scrypt (tens of milliseconds, by design); a remote client sends
its token with every request, so a verified token's SHA-256 is remembered with its account
name (bounded, in memory). The account row is still read on every call, so a revocation
takes effect at the next request.

Feed tokens (issue 37) let a feed reader, which cannot log in, read an account's alert
feeds: each account may hold several, each revocable alone; a token reads feeds only, as
its account, and stops with it.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.storage import accounts as store
from prioris.storage import feed_tokens
from prioris.storage.accounts import ROLES, Account
from prioris.storage.transaction import immediate

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@-]{0,63}")
RANK = {"reader": 0, "writer": 1, "admin": 2}
VERIFIED_CACHE = 256
MAX_AUDIT_FIELD = 2_000

__all__ = ["ROLES", "Account", "Accounts", "role_allows"]


def role_allows(role: str, needed: str) -> bool:
    """Whether ``role`` covers ``needed`` (reader < writer < admin)."""
    return RANK.get(role, -1) >= RANK[needed]


def check_role(role: str) -> str:
    if role not in ROLES:
        raise InvalidRequestError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    return role


def check_name(name: str) -> str:
    """``name`` when it is a valid account name, else InvalidRequestError.

    The whole string must match (``fullmatch``): ``$`` alone also matches before a final
    newline, which let ``"ana\\n"`` in, a name that then differs from ``ana`` in the audit
    log and in every listing while looking the same.
    """
    if not isinstance(name, str) or not NAME.fullmatch(name):
        odd = isinstance(name, str) and (
            name != name.strip() or any(not c.isprintable() for c in name)
        )
        raise InvalidRequestError(
            "an account name is 1-64 characters: letters, digits, '.', '_', '-', '@', "
            "starting with a letter or digit"
            + ("; no control characters or surrounding spaces" if odd else "")
            + f" (got {name!r})"
        )
    return name


class Accounts:
    """The accounts table, token verification and the audit log."""

    def __init__(self, conn: Any, lock: threading.RLock, now: Callable[[], str]) -> None:
        self.conn = conn
        self.lock = lock
        self.now = now
        self._verified: OrderedDict[str, str] = OrderedDict()

    def add(self, name: str, role: str) -> str:
        """Create an account; its token is returned once and never stored in clear."""
        check_name(name)
        check_role(role)
        with self.lock, immediate(self.conn):
            if store.get_account(self.conn, name) is not None:
                raise InvalidRequestError(f"an account named {name!r} already exists")
            return store.insert_account(self.conn, name, role, self.now())

    def list(self) -> list[Account]:
        with self.lock:
            return store.list_accounts(self.conn)

    def active_count(self) -> int:
        with self.lock:
            return store.count_active(self.conn)

    def revoke(self, name: str) -> Account:
        """Revoke an account: its token stops working at the next request.

        The name is looked up as given, not checked: an account made before names were
        checked whole (``"ana\\n"``) can still be revoked."""
        if not isinstance(name, str) or not name:
            raise InvalidRequestError("an account name is required")
        with self.lock, immediate(self.conn):
            account = store.get_account(self.conn, name)
            if account is None:
                raise NotFoundError(f"no account named {name!r}")
            store.revoke(self.conn, name, self.now())
            revoked = store.get_account(self.conn, name)
        assert revoked is not None
        return revoked

    def authenticate(self, token: str | None) -> Account | None:
        """The active account holding ``token``, else None (unknown, malformed, revoked)."""
        if not token or len(token) > 256:
            return None
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        with self.lock:
            name = self._verified.get(digest)
            if name is not None:
                account = store.get_account(self.conn, name)
                return account if account is not None and account.active else None
            account = store.verify(self.conn, token)
            if account is not None:
                self._verified[digest] = account.name
                while len(self._verified) > VERIFIED_CACHE:
                    self._verified.popitem(last=False)
            return account

    def record(self, account: str, action: str, target: str = "", detail: str = "") -> None:
        """Append one entry to the audit log (who, what, on what, when)."""
        with self.lock, immediate(self.conn):
            store.record(
                self.conn,
                self.now(),
                account,
                action[:200],
                target[:MAX_AUDIT_FIELD],
                detail[:MAX_AUDIT_FIELD],
            )

    def audit(self, limit: int = 50, offset: int = 0) -> list[dict[str, Any]]:
        """The audit log, newest first."""
        if limit < 1 or limit > 10_000 or offset < 0:
            raise InvalidRequestError("limit must be 1..10000 and offset >= 0")
        with self.lock:
            return store.entries(self.conn, limit, offset)

    # -- feed tokens ---------------------------------------------------------------------
    def add_feed_token(self, account: str, label: str = "") -> dict[str, Any]:
        """A new feed token of ``account`` (an active one): its row and, under ``token``,
        the token itself, returned once and never stored in clear."""
        if not isinstance(label, str) or len(label) > feed_tokens.MAX_LABEL:
            raise InvalidRequestError(f"a label is at most {feed_tokens.MAX_LABEL} characters")
        if any(not c.isprintable() for c in label):
            raise InvalidRequestError("a label holds no control characters")
        with self.lock, immediate(self.conn):
            found = store.get_account(self.conn, account) if isinstance(account, str) else None
            if found is None or not found.active:
                raise NotFoundError(f"no active account named {account!r}")
            return feed_tokens.insert(self.conn, account, label.strip(), self.now())

    def feed_tokens(self, account: str | None = None) -> list[dict[str, Any]]:
        """The feed tokens (of ``account`` when given), never their secrets."""
        with self.lock:
            return feed_tokens.listed(self.conn, account)

    def revoke_feed_token(self, token_id: str, account: str | None = None) -> dict[str, Any]:
        """Revoke a feed token: feeds read with it get 401 from the next request. With
        ``account`` only that account's own token (anyone else's answers as unknown)."""
        if not isinstance(token_id, str) or not token_id:
            raise InvalidRequestError("a feed token id is required")
        with self.lock, immediate(self.conn):
            row = feed_tokens.get(self.conn, token_id)
            if row is None or (account is not None and row["account"] != account):
                raise NotFoundError(f"no feed token {token_id!r}")
            feed_tokens.revoke(self.conn, token_id, self.now())
            revoked = feed_tokens.get(self.conn, token_id)
        assert revoked is not None
        return revoked

    def feed_account(self, token: str | None) -> Account | None:
        """The active account a feed token reads as, else None (unknown, revoked token or
        account)."""
        if not token or not isinstance(token, str) or len(token) > 256:
            return None
        with self.lock:
            name = feed_tokens.verify(self.conn, token)
            account = store.get_account(self.conn, name) if name else None
        return account if account is not None and account.active else None
