"""Read replicas for real: the session's PostgreSQL server and a hot standby streaming
from it (``pg_basebackup -R`` with the same wheel's programs, tests/pg_cluster.py).

Searches and reads are answered by the replica; a process reads its own writes (the
replica's replay paused: the primary answers until it has caught up); a replica that is
down or lags past the bound is skipped with a warning; with the primary down, reads
still answer from the replica and a write fails with one line, nothing lost; ``status``
lists each replica with its lag, its password masked."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres.replicas import parse_lsn
from prioris.engines.postgres.routed import only_reads
from prioris.errors import ConfigurationError, ServerUnavailableError
from prioris.interfaces.cli import main
from prioris.library import Library


def _records(start: int, count: int, word: str = "coral") -> list[dict[str, Any]]:
    return [
        {
            "_id": f"r{i}",
            "title": f"Survey {i} of {word} reefs",
            "text": f"The {word} colonies of transect {i} bleached in warm water.",
            "source": "field",
            "year": 2010 + i % 10,
        }
        for i in range(start, start + count)
    ]


@pytest.fixture
def urls(pg_url: str, pg_server: str, pg_replica: Any) -> tuple[str, str]:
    """The test's library on the primary, and the same schema on the replica."""
    return pg_url, pg_url.replace(pg_server, pg_replica.url, 1)


def _open(url: str, replica: str, **env: str) -> Library:
    values = {"PRIORIS_MCP_ENRICH": "off", "PRIORIS_MCP_DB_REPLICAS": replica, **env}
    return Library.open(load_settings(values).with_library(url), embedder=FakeEmbedder())


def _caught_up(replica: str, primary: str, timeout: float = 30.0) -> None:
    """Wait until the replica has replayed everything the primary has written."""
    with psycopg.connect(primary, autocommit=True) as conn:
        target = parse_lsn(conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()[0])
    deadline = time.monotonic() + timeout
    with psycopg.connect(replica, autocommit=True) as conn:
        while time.monotonic() < deadline:
            row = conn.execute("SELECT pg_last_wal_replay_lsn()::text").fetchone()
            if parse_lsn(row[0]) >= target:
                return
            time.sleep(0.05)
    raise AssertionError("the replica did not catch up")


@pytest.fixture
def paused(urls: tuple[str, str]) -> Iterator[str]:
    """The replica with its WAL replay paused (it receives, does not apply), resumed after."""
    _, replica = urls
    with psycopg.connect(replica, autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_pause()")
    try:
        yield replica
    finally:
        with psycopg.connect(replica, autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_resume()")


def _ids(hits: Any) -> list[str]:
    return [hit.id for hit in hits]


def test_reads_are_served_by_the_replica_with_the_primarys_results(
    urls: tuple[str, str],
) -> None:
    primary, replica = urls
    with Library.open(
        load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(primary),
        embedder=FakeEmbedder(),
    ) as alone:
        alone.import_records(_records(0, 1000))  # the vector copy's least (MIN_VECTORS)
        expected = {m: _ids(alone.search("coral transect", mode=m, k=10).hits) for m in MODES}
        scores = [h.score for h in alone.search("coral transect", mode="vector", k=10).hits]
    _caught_up(replica, primary)
    with _open(primary, replica, PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS="1") as library:
        replicas = library.storage.replicas
        for mode in MODES:
            assert _ids(library.search("coral transect", mode=mode, k=10).hits) == expected[mode]
        assert library.get_work("r3").title == "Survey 3 of coral reefs"
        assert len(library.list_works(limit=100)) == 100
        assert replicas.reads[replica] >= 4 and replicas.primary_reads == 0
        # the in-process vector copy is loaded from the replica, and answers the same
        # (scores: the fake embedder gives many works the same vector, so ties may swap)
        reader = library.storage.connect_reader()
        assert reader.url == replica
        reader.close()
        backend = library.searcher.backend
        assert backend.vector_cache.wait_until_loaded()
        hits = library.search("coral transect", mode="vector", k=10).hits
        assert [h.score for h in hits] == pytest.approx(scores, abs=1e-5)
        assert backend.copied >= 1 and replicas.primary_reads == 0


MODES = ("fts", "vector", "hybrid")


def test_a_process_reads_its_own_writes_while_the_replica_is_behind(
    urls: tuple[str, str], paused: str
) -> None:
    primary, replica = urls
    with _open(primary, replica) as library:
        replicas = library.storage.replicas
        library.import_records(_records(0, 5, word="kelp"))
        # the replica has not applied the import: a read there would miss it
        with psycopg.connect(replica, autocommit=True) as conn:
            schema_tables = conn.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = 'works' "
                "AND table_schema = current_schema()"
            ).fetchone()[0]
        assert schema_tables == 0 or _count_on(replica) == 0
        hits = library.search("kelp", mode="fts", k=10).hits
        assert sorted(_ids(hits)) == [f"r{i}" for i in range(5)]
        assert library.status()["works"] == 5
        assert replicas.primary_reads >= 2 and replicas.reads[replica] == 0
        with psycopg.connect(replica, autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_resume()")
        _caught_up(replica, primary)
        before = replicas.reads[replica]
        assert sorted(_ids(library.search("kelp", mode="fts", k=10).hits)) == sorted(_ids(hits))
        assert replicas.reads[replica] > before  # caught up: the replica answers again


def test_a_token_revoked_on_the_primary_is_refused_at_once_while_the_replica_is_behind(
    urls: tuple[str, str], paused: str
) -> None:
    primary, replica = urls
    with _open(primary, replica) as admin:
        token = admin.add_account("lin", "reader")
        with psycopg.connect(replica, autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_resume()")
        _caught_up(replica, primary)
        with _open(primary, replica) as web:  # another process, as the web app would be
            assert web.authenticate(token) is not None
            with psycopg.connect(replica, autocommit=True) as conn:
                conn.execute("SELECT pg_wal_replay_pause()")
            admin.revoke_account("lin")
            assert web.authenticate(token) is None  # the replica still shows lin active
            assert web.search("anything", mode="fts", k=3).hits == []


def _count_on(url: str) -> int:
    with psycopg.connect(url, autocommit=True) as conn:
        return int(conn.execute("SELECT count(*) FROM works").fetchone()[0])


def test_a_lagging_replica_is_skipped_with_a_warning(
    urls: tuple[str, str], paused: str, caplog: pytest.LogCaptureFixture
) -> None:
    primary, replica = urls
    with _open(primary, replica) as writer:
        writer.import_records(_records(0, 3))
    time.sleep(1.2)  # the replica's last replayed transaction is now over a second old
    with _open(primary, replica, PRIORIS_MCP_DB_REPLICA_MAX_LAG_SECONDS="1") as reader:
        with caplog.at_level(logging.WARNING, logger="prioris.replicas"):
            assert len(reader.search("coral", mode="fts", k=10).hits) == 3
        assert "behind the primary, more than PRIORIS_MCP_DB_REPLICA_MAX_LAG_SECONDS=1" in (
            caplog.text
        )
        (shown,) = reader.status()["replicas"]
        assert shown["state"] == "lagging" and shown["lag_s"] > 1


def test_a_replica_that_is_down_is_skipped_and_status_shows_it(
    urls: tuple[str, str],
    pg_replica: Any,
    caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, replica = urls
    secret = replica.replace("postgres:@", "postgres:s3cret-pw@", 1)  # trust ignores it
    with _open(primary, secret) as library:
        library.import_records(_records(0, 4))
    _caught_up(replica, primary)
    monkeypatch.setenv("PRIORIS_MCP_DB_REPLICAS", secret)
    assert main(["--db", primary, "status", "--json"]) == 0
    (shown,) = json.loads(capsys.readouterr().out)["replicas"]
    assert shown["state"] == "serving" and shown["lag_s"] is not None
    assert "s3cret" not in shown["url"] and shown["url"].startswith("postgresql://postgres:***@")
    pg_replica.stop()
    try:
        with (
            caplog.at_level(logging.WARNING, logger="prioris.replicas"),
            _open(primary, secret) as library,
        ):
            assert len(library.search("coral", mode="hybrid", k=10).hits) == 4
            assert library.storage.replicas.primary_reads >= 1
        assert "skipped: down" in caplog.text and "s3cret" not in caplog.text
        assert main(["--db", primary, "status", "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        assert status["works"] == 4
        assert status["replicas"] == [{"url": shown["url"], "lag_s": None, "state": "down"}]
        assert main(["--db", primary, "status"]) == 0  # for people: one line a replica
        lines = capsys.readouterr().out.splitlines()
        assert [line.split()[1:] for line in lines if line.startswith("replica ")] == [
            [shown["url"], "lag", "?", "down"]
        ]
    finally:
        pg_replica.start()


def test_with_the_primary_down_reads_answer_and_writes_fail_in_one_line(
    urls: tuple[str, str],
    pg_primary: Any,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    primary, replica = urls
    records, more = tmp_path / "records.jsonl", tmp_path / "more.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in _records(0, 6)), encoding="utf-8")
    more.write_text(json.dumps(_records(6, 1)[0]) + "\n", encoding="utf-8")
    monkeypatch.setenv("PRIORIS_MCP_DB_REPLICAS", replica)
    # through the CLI (its model), the library it will read with the primary down
    assert main(["--db", primary, "import", str(records), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["ingested"]) == 6
    assert main(["--db", primary, "search", "coral", "--mode", "hybrid", "--json"]) == 0
    expected = [h["id"] for h in json.loads(capsys.readouterr().out)["hits"]]
    _caught_up(replica, primary)
    pg_primary.stop()
    try:
        assert main(["--db", primary, "search", "coral", "--mode", "hybrid", "--json"]) == 0
        assert [h["id"] for h in json.loads(capsys.readouterr().out)["hits"]] == expected
        assert main(["--db", primary, "status", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["works"] == 6
        assert main(["--db", primary, "import", str(more)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err[-1].startswith("error [configuration_error]: the library's primary server")
        assert "nothing can be written until it is back" in err[-1]
        assert not any(line.startswith("error") for line in err[:-1])  # said once
        with Library.open(load_settings().with_library(primary)) as library:
            assert library.status()["works"] == 6
            with pytest.raises(ServerUnavailableError, match="reads are answered by its"):
                library.import_records(_records(6, 1))
    finally:
        pg_primary.start()
    assert _count_on(primary) == 6  # nothing lost, nothing half-written


def test_without_any_server_the_library_does_not_open() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    nowhere = f"postgresql://postgres@127.0.0.1:{port}/postgres?connect_timeout=1"
    with pytest.raises(ConfigurationError, match="cannot reach"):
        _open(nowhere, nowhere)


def test_statements_that_may_run_on_a_standby() -> None:
    assert only_reads("SELECT id FROM works WHERE id = ?")
    assert only_reads("  with t AS (SELECT 1) SELECT * FROM t")
    assert not only_reads("INSERT INTO works(id) VALUES (?)")
    assert not only_reads("SELECT pg_advisory_lock(1)")
    assert not only_reads("SELECT setval(pg_get_serial_sequence('chunks', 'id'), 1)")
    assert not only_reads("SELECT * FROM works FOR UPDATE")
    assert not only_reads("WITH gone AS (DELETE FROM works RETURNING id) SELECT * FROM gone")
    assert parse_lsn("16/B374D848") == (0x16 << 32) | 0xB374D848 and parse_lsn(None) == 0


def test_replicas_are_postgresql_urls_beside_a_postgresql_library(tmp_path: Any) -> None:
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_DB_REPLICAS takes"):
        load_settings({"PRIORIS_MCP_DB_REPLICAS": "/tmp/replica.sqlite"})
    two = "postgresql://r@h1,h2/db?options=-csearch_path%3Dlab,public, postgres://r@h3/db"
    assert load_settings({"PRIORIS_MCP_DB_REPLICAS": two}).db_replicas == (
        "postgresql://r@h1,h2/db?options=-csearch_path%3Dlab,public",
        "postgres://r@h3/db",
    )
    settings = load_settings({"PRIORIS_MCP_DB_REPLICAS": "postgresql://r@h/db"})
    with pytest.raises(ConfigurationError, match="the library is an SQLite file"):
        Library.open(settings.with_library(tmp_path / "x.sqlite"), embedder=FakeEmbedder())
    config = tmp_path / "config.toml"
    config.write_text(
        'db_replicas = ["postgresql://a@r1/db", "postgresql://a@r2/db"]\n'
        "db_replica_max_lag_seconds = 5\n",
        encoding="utf-8",
    )
    from_file = load_settings({"PRIORIS_MCP_CONFIG": str(config)})
    assert from_file.db_replicas == ("postgresql://a@r1/db", "postgresql://a@r2/db")
    assert from_file.db_replica_max_lag_seconds == 5
