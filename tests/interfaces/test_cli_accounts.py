"""``prioris users add|list|revoke`` and ``prioris audit``."""

from __future__ import annotations

import json

import pytest

import prioris.embedding
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main
from prioris.library import Library


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(autouse=True)
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())


def test_users_add_list_revoke(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "users", "add", "ada", "--role", "writer")
    assert code == 0, err
    token = out.strip()
    assert "." in token and "\n" not in token
    assert "shown only now" in err and token not in err
    code, out, err = run(capsys, "users", "list", "--json")
    listed = json.loads(out)
    assert listed["count"] == 1 and listed["accounts"][0]["role"] == "writer"
    assert token not in out
    code, out, _ = run(capsys, "users", "list")
    assert out.startswith("ada\twriter") and "active" in out
    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        assert library.authenticate(token).name == "ada"
    assert run(capsys, "users", "revoke", "ada")[0] == 0
    _, out, _ = run(capsys, "users", "list", "--json")
    assert json.loads(out)["accounts"][0]["revoked_at"]
    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        assert library.authenticate(token) is None


def test_users_errors(capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "users", "add", "ada", "--role", "reader")
    code, _, err = run(capsys, "users", "add", "ada", "--role", "admin")
    assert code == 2 and "error [invalid_request]" in err
    code, _, err = run(capsys, "users", "add", "bad name", "--role", "admin")
    assert code == 2 and "error [invalid_request]" in err
    code, _, err = run(capsys, "users", "revoke", "nobody")
    assert code != 0 and "error [not_found]" in err
    code, _, _ = run(capsys, "users", "add", "bo", "--role", "owner")
    assert code == 2  # argparse refuses the role


@pytest.mark.parametrize("name", ["eve\n", " eve", "eve\t", "e\x1b[31mve"])
def test_users_add_refuses_control_characters_and_surrounding_space(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, out, err = run(capsys, "users", "add", name, "--role", "reader")
    assert code == 2 and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and "error [invalid_request]" in lines[0]
    assert "no control characters or surrounding spaces" in lines[0]
    _, out, _ = run(capsys, "users", "list", "--json")
    assert json.loads(out)["count"] == 0


def test_audit(capsys: pytest.CaptureFixture[str]) -> None:
    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        library.record_audit("ada", "delete", "w1", "mcp")
        library.record_audit("bo", "ingest", "w2", "web")
    code, out, err = run(capsys, "audit", "--json", "--limit", "1")
    assert code == 0, err
    answer = json.loads(out)
    assert answer["count"] == 1 and answer["entries"][0]["account"] == "bo"
    code, out, _ = run(capsys, "audit")
    assert "ada  delete  w1  mcp" in out and out.index("bo") < out.index("ada")
