"""Feed tokens of accounts (``feed_tokens``): secrets a feed reader puts in an alert feed's
URL, since it cannot log in (migration 0020 on SQLite, 0018 on PostgreSQL).

A token is ``<token_id>.<secret>``; only the SHA-256 of the secret is stored. The secret
is 256 random bits, so a fast hash is as safe as scrypt here and keeps every feed poll
cheap; it is compared in constant time. ``token_id`` names the token in listings and
when it is revoked.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

PREFIX = "feed_"
SECRET_BYTES = 32
MAX_LABEL = 100
_COLUMNS = "token_id, account, label, created_at, revoked_at"
_KEYS = ("token_id", "account", "label", "created_at", "revoked_at")


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def insert(conn: Any, account: str, label: str, now: str) -> dict[str, Any]:
    """A new token of ``account``: its row, with the token itself under ``token`` (the
    only time it exists in clear)."""
    token_id = PREFIX + secrets.token_hex(8)
    secret = secrets.token_urlsafe(SECRET_BYTES)
    conn.execute(
        "INSERT INTO feed_tokens(token_id, account, token_hash, label, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (token_id, account, _digest(secret), label, now),
    )
    row = get(conn, token_id)
    assert row is not None
    return {**row, "token": f"{token_id}.{secret}"}


def get(conn: Any, token_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {_COLUMNS} FROM feed_tokens WHERE token_id = ?", (token_id,)
    ).fetchone()
    return dict(zip(_KEYS, row, strict=True)) if row else None


def listed(conn: Any, account: str | None = None) -> list[dict[str, Any]]:
    """Every token (of ``account`` when given), oldest first; never a hash."""
    if account is None:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM feed_tokens ORDER BY created_at, token_id"
        ).fetchall()
    else:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM feed_tokens WHERE account = ? ORDER BY created_at, token_id",
            (account,),
        ).fetchall()
    return [dict(zip(_KEYS, r, strict=True)) for r in rows]


def revoke(conn: Any, token_id: str, now: str) -> bool:
    cur = conn.execute(
        "UPDATE feed_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
        (now, token_id),
    )
    return bool(cur.rowcount)


def verify(conn: Any, token: str) -> str | None:
    """The account of an unrevoked feed token, else None."""
    token_id, dot, secret = token.strip().partition(".")
    if not dot or not token_id.startswith(PREFIX) or not secret or len(token) > 256:
        return None
    row = conn.execute(
        "SELECT account, token_hash, revoked_at FROM feed_tokens WHERE token_id = ?",
        (token_id,),
    ).fetchone()
    if row is None or row[2] is not None:
        return None
    if not hmac.compare_digest(_digest(secret), str(row[1])):
        return None
    return str(row[0])
