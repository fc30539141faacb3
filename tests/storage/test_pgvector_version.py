"""pgvector older than 0.8 is refused with a clear error: filtered searches rely on its
iterative index scans (engines/postgres/search.py). The server under test runs 0.8, so
an older one is the same real connection with the two version queries answered as an
older server would answer them."""

from __future__ import annotations

from typing import Any

import pytest

from prioris.engines.postgres import storage as pg_storage
from prioris.engines.postgres.connection import connect_raw
from prioris.errors import ConfigurationError
from prioris.interfaces.cli import main


class OlderServer:
    """A real connection whose pgvector reports ``installed`` (and the server offers
    ``available``); every statement is recorded, every other one runs for real."""

    def __init__(self, raw: Any, installed: str, available: str) -> None:
        self.raw, self.installed, self.available = raw, installed, available
        self.statements: list[str] = []

    def execute(self, sql: str, params: Any = None) -> Any:
        self.statements.append(sql)
        if sql.startswith("SELECT extversion FROM pg_extension"):
            return self.raw.execute("SELECT %s::text", (self.installed,))
        if sql.startswith("SELECT default_version FROM pg_available_extensions"):
            return self.raw.execute("SELECT %s::text", (self.available,))
        return self.raw.execute(sql, params)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def test_pgvector_older_than_0_8_is_refused_saying_what_to_install(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = connect_raw(pg_url)
    try:
        older = OlderServer(raw, "0.7.4", "0.7.4")
        with pytest.raises(ConfigurationError) as caught:
            pg_storage.ensure_vector_extension(older, pg_url)
        assert caught.value.code == "configuration_error"
        assert "pgvector 0.7.4, older than 0.8" in caught.value.message
        assert "install pgvector 0.8 or later" in caught.value.message
        assert not any(s.startswith("ALTER EXTENSION") for s in older.statements)
    finally:
        raw.close()
    # through the CLI: one line with the stable code, exit status 2
    monkeypatch.setattr(
        pg_storage,
        "connect_raw",
        lambda url, **kw: OlderServer(connect_raw(url, **kw), "0.6.2", "0.6.2"),
    )
    assert main(["--db", pg_url, "status"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error [configuration_error]: ") and "pgvector 0.6.2" in err
    assert len(err.splitlines()) == 1


def test_an_older_pgvector_is_updated_when_the_server_offers_0_8(pg_url: str) -> None:
    raw = connect_raw(pg_url)
    try:
        raw.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        older = OlderServer(raw, "0.7.0", "0.8.6")
        pg_storage.ensure_vector_extension(older, pg_url)  # no error: updated
        assert "ALTER EXTENSION vector UPDATE" in older.statements
        real = raw.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        major, minor = (int(x) for x in real.fetchone()[0].split(".")[:2])
        assert (major, minor) >= (0, 8)
    finally:
        raw.close()
