"""Accounts of a shared library and the audit log of their writes (``accounts``, ``audit_log``).

Only a salted hash of each token is stored: ``hashlib.scrypt`` (n=2**14, r=8, p=1) with a
per-account random salt. A token is ``<token_id>.<secret>``: ``token_id`` is a short,
non-secret lookup key kept in clear, so verifying a presented token costs one scrypt (the
account it names), never a scan over every hash; the secret is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any

ROLES = ("reader", "writer", "admin")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
SECRET_BYTES = 32
TOKEN_ID_BYTES = 8


@dataclass(frozen=True)
class Account:
    """An account as the interfaces see it (never its hash)."""

    name: str
    role: str
    created_at: str
    revoked_at: str | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "role": self.role,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
        }


def hash_secret(secret: str, salt: bytes) -> bytes:
    """The scrypt hash of a token's secret part under ``salt``."""
    return hashlib.scrypt(
        secret.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32
    )


def new_token() -> tuple[str, str]:
    """A fresh ``(token_id, secret)``; the token handed out is ``f"{token_id}.{secret}"``."""
    return secrets.token_hex(TOKEN_ID_BYTES), secrets.token_urlsafe(SECRET_BYTES)


def insert_account(conn: Any, name: str, role: str, now: str) -> str:
    """Store a new account and return its token (the only time it exists in clear)."""
    token_id, secret = new_token()
    salt = secrets.token_bytes(16)
    conn.execute(
        "INSERT INTO accounts(name, role, token_id, token_hash, salt, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (name, role, token_id, hash_secret(secret, salt).hex(), salt.hex(), now),
    )
    return f"{token_id}.{secret}"


def get_account(conn: Any, name: str) -> Account | None:
    row = conn.execute(
        "SELECT name, role, created_at, revoked_at FROM accounts WHERE name = ?", (name,)
    ).fetchone()
    return Account(*row) if row else None


def list_accounts(conn: Any) -> list[Account]:
    rows = conn.execute(
        "SELECT name, role, created_at, revoked_at FROM accounts ORDER BY name"
    ).fetchall()
    return [Account(*r) for r in rows]


def count_active(conn: Any) -> int:
    """How many accounts are not revoked (none: the library is not in accounts mode)."""
    row = conn.execute("SELECT COUNT(*) FROM accounts WHERE revoked_at IS NULL").fetchone()
    return int(row[0])


def revoke(conn: Any, name: str, now: str) -> bool:
    cur = conn.execute(
        "UPDATE accounts SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (now, name)
    )
    return bool(cur.rowcount)


def verify(conn: Any, token: str) -> Account | None:
    """The active account whose token this is, else None (one scrypt at most)."""
    token_id, dot, secret = token.strip().partition(".")
    if not dot or not token_id or not secret or len(token) > 256:
        return None
    row = conn.execute(
        "SELECT name, role, created_at, revoked_at, token_hash, salt FROM accounts "
        "WHERE token_id = ?",
        (token_id,),
    ).fetchone()
    if row is None:
        return None
    presented = hash_secret(secret, bytes.fromhex(row[5]))
    if not hmac.compare_digest(presented, bytes.fromhex(row[4])) or row[3] is not None:
        return None
    return Account(row[0], row[1], row[2], row[3])


def record(conn: Any, at: str, account: str, action: str, target: str, detail: str) -> None:
    conn.execute(
        "INSERT INTO audit_log(at, account, action, target, detail) VALUES (?, ?, ?, ?, ?)",
        (at, account, action, target, detail),
    )


def entries(conn: Any, limit: int, offset: int) -> list[dict[str, Any]]:
    """The audit log, newest first."""
    rows = conn.execute(
        "SELECT id, at, account, action, target, detail FROM audit_log "
        "ORDER BY id DESC LIMIT ? OFFSET ?",
        (limit, offset),
    ).fetchall()
    keys = ("id", "at", "account", "action", "target", "detail")
    return [dict(zip(keys, r, strict=True)) for r in rows]
