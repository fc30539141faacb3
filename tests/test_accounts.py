"""Accounts, roles and the audit log on both engines: tokens shown once and stored hashed."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.services.accounts import role_allows
from prioris.storage import accounts as store
from prioris.storage.transaction import immediate


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def test_token_shown_once_and_only_its_hash_stored(library: Any) -> None:
    token = library.add_account("ada", "writer")
    token_id, _, secret = token.partition(".")
    assert token_id and len(secret) >= 40
    rows = library.conn.execute(
        "SELECT name, role, token_id, token_hash, salt, revoked_at FROM accounts"
    ).fetchall()
    assert len(rows) == 1
    name, role, stored_id, token_hash, salt, revoked = rows[0]
    assert (name, role, stored_id, revoked) == ("ada", "writer", token_id, None)
    flat = " ".join(str(v) for v in rows[0])
    assert secret not in flat and token not in flat
    expected = hashlib.scrypt(
        secret.encode(), salt=bytes.fromhex(salt), n=2**14, r=8, p=1, dklen=32
    )
    assert token_hash == expected.hex()
    assert [a.to_dict()["name"] for a in library.accounts()] == ["ada"]
    assert "token" not in library.accounts()[0].to_dict()


def test_salts_differ_per_account(library: Any) -> None:
    library.add_account("a", "reader")
    library.add_account("b", "reader")
    salts = {r[0] for r in library.conn.execute("SELECT salt FROM accounts").fetchall()}
    assert len(salts) == 2


def test_authenticate_and_revoke(library: Any) -> None:
    token = library.add_account("bo", "reader")
    assert library.authenticate(token).name == "bo"
    assert library.authenticate(token).role == "reader"  # the cached path
    token_id, _, secret = token.partition(".")
    assert library.authenticate(f"{token_id}.{secret[:-1]}x") is None
    assert library.authenticate(f"{'0' * 16}.{secret}") is None
    assert library.authenticate("no-dot") is None
    assert library.authenticate("") is None
    assert library.authenticate(None) is None
    assert library.active_accounts() == 1
    revoked = library.revoke_account("bo")
    assert revoked.revoked_at is not None
    assert library.authenticate(token) is None
    assert library.active_accounts() == 0


def test_verify_without_cache_is_one_lookup(library: Any) -> None:
    token = library.add_account("cy", "admin")
    assert store.verify(library.conn, token).name == "cy"
    library.revoke_account("cy")
    assert store.verify(library.conn, token) is None


@pytest.mark.parametrize("name", ["", "a b", "x" * 65, "-lead", "semi;colon", "é"])
def test_bad_names_are_invalid(library: Any, name: str) -> None:
    with pytest.raises(InvalidRequestError):
        library.add_account(name, "reader")


@pytest.mark.parametrize(
    "name",
    [
        "ana\n",
        "ana\r\n",
        "ana\r",
        " ana",
        "ana ",
        "\tana",
        "a\x00na",
        "ana\x7f",
        "ana\x85",
        "ana\u2028",
        "an\x1ba",
    ],
)
def test_names_with_control_characters_or_surrounding_space_are_refused(
    library: Any, name: str
) -> None:
    """``$`` matched before a final newline: ``"ana\\n"`` was a second account that looks
    like ``ana`` everywhere it is printed."""
    with pytest.raises(InvalidRequestError, match="no control characters or surrounding"):
        library.add_account(name, "reader")
    assert library.accounts() == []


def test_an_account_made_before_names_were_checked_whole_can_be_revoked(library: Any) -> None:
    with library.lock, immediate(library.conn):
        token = store.insert_account(library.conn, "ana\n", "admin", "2026-01-01T00:00:00Z")
    assert library.authenticate(token).name == "ana\n"
    with pytest.raises(NotFoundError):
        library.revoke_account("ana")  # not the same account
    assert library.revoke_account("ana\n").revoked_at
    assert library.authenticate(token) is None


def test_bad_role_duplicate_and_unknown(library: Any) -> None:
    with pytest.raises(InvalidRequestError):
        library.add_account("dee", "owner")
    library.add_account("dee", "reader")
    with pytest.raises(InvalidRequestError, match="already exists"):
        library.add_account("dee", "admin")
    with pytest.raises(NotFoundError):
        library.revoke_account("nobody")


def test_audit_newest_first_and_paged(library: Any) -> None:
    for i in range(3):
        library.record_audit("ada", "delete", f"w{i}", "")
    entries = library.audit(limit=2)
    assert [e["target"] for e in entries] == ["w2", "w1"]
    assert [e["target"] for e in library.audit(limit=2, offset=2)] == ["w0"]
    assert entries[0]["account"] == "ada" and entries[0]["action"] == "delete"
    with pytest.raises(InvalidRequestError):
        library.audit(limit=0)


def test_role_order() -> None:
    assert role_allows("admin", "writer") and role_allows("writer", "reader")
    assert not role_allows("reader", "writer") and not role_allows("writer", "admin")
    assert not role_allows("nobody", "reader")
