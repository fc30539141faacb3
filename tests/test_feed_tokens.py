"""Feed tokens on both engines: shown once, only a hash stored, per account, revocable
alone, dead with their account; and ``prioris users feed-token add|list|revoke``."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import InvalidRequestError, NotFoundError
from prioris.interfaces.cli import main


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


def test_a_token_is_shown_once_hashed_and_reads_as_its_account(library: Any) -> None:
    library.add_account("ana", "reader")
    made = library.add_feed_token("ana", "phone reader")
    token_id, _, secret = made["token"].partition(".")
    assert token_id == made["token_id"] and token_id.startswith("feed_") and len(secret) >= 40
    rows = library.conn.execute("SELECT * FROM feed_tokens").fetchall()
    flat = " ".join(str(v) for row in rows for v in row)
    assert secret not in flat and hashlib.sha256(secret.encode()).hexdigest() in flat
    assert library.feed_account(made["token"]).name == "ana"
    listed = library.feed_tokens("ana")
    assert [(t["token_id"], t["label"], t["revoked_at"]) for t in listed] == [
        (token_id, "phone reader", None)
    ]
    assert "token" not in listed[0] and "token_hash" not in listed[0]
    # neither a wrong secret, an account token nor garbage reads a feed
    assert library.feed_account(f"{token_id}.{secret[:-1]}x") is None
    assert library.feed_account(library.add_account("ben", "writer")) is None
    assert library.feed_account("feed_.x") is None and library.feed_account(None) is None
    # nor is a feed token an account token
    assert library.authenticate(made["token"]) is None


def test_revoking_one_token_leaves_the_others_and_the_account(library: Any) -> None:
    library.add_account("ana", "reader")
    first, second = (library.add_feed_token("ana") for _ in range(2))
    revoked = library.revoke_feed_token(first["token_id"])
    assert revoked["revoked_at"] is not None
    assert library.feed_account(first["token"]) is None
    assert library.feed_account(second["token"]).name == "ana"
    with pytest.raises(NotFoundError):
        library.revoke_feed_token("feed_0000")
    library.add_account("ben", "admin")
    with pytest.raises(NotFoundError):  # someone else's token answers as unknown
        library.revoke_feed_token(second["token_id"], account="ben")
    library.revoke_account("ana")  # the account revoked: its tokens read nothing
    assert library.feed_account(second["token"]) is None
    with pytest.raises(NotFoundError, match="no active account"):
        library.add_feed_token("ana")


def test_labels_are_checked(library: Any) -> None:
    library.add_account("ana", "reader")
    with pytest.raises(InvalidRequestError):
        library.add_feed_token("ana", "x" * 101)
    with pytest.raises(InvalidRequestError):
        library.add_feed_token("ana", "bell\x07")
    with pytest.raises(NotFoundError):
        library.add_feed_token("nobody")


def test_the_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())

    def run(*argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    assert run("users", "add", "ana", "--role", "reader")[0] == 0
    code, out, err = run("users", "feed-token", "add", "ana", "--label", "laptop")
    token = out.strip()
    assert code == 0 and token.startswith("feed_") and "shown only now" in err
    code, out, _ = run("users", "feed-token", "list", "--json")
    listed = json.loads(out)
    assert listed["count"] == 1 and listed["feed_tokens"][0]["account"] == "ana"
    assert token not in out
    token_id = listed["feed_tokens"][0]["token_id"]
    code, out, _ = run("users", "feed-token", "list", "--user", "ben")
    assert code == 0 and out == ""
    assert run("users", "feed-token", "revoke", token_id)[0] == 0
    _, out, _ = run("users", "feed-token", "list")
    assert token_id in out and "revoked" in out
    code, _, err = run("users", "feed-token", "revoke", "feed_nothing")
    assert code != 0 and "not_found" in err
