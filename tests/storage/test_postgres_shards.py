"""Shards for real: a library whose primary is the session's PostgreSQL server and whose
works live on three more servers (tests/pg_cluster.py, ``pg_shard_servers``).

Placement is stable and spread; ingest, import, edit, delete and reindex write to the
owning shard only (the primary keeps the works' rows, the shards their passages,
vectors and pages beside a copy of the row); the same corpus searched on one server and
on three shards gives the same hits and scores in every mode, with filters; a stopped
shard fails a search naming it, or (partial) is flagged in every interface; ``migrate-to``
copies a one-server library into shards and back, ids and vectors kept; ``status`` lists
the shards."""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psycopg
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.engines.router import Router
from prioris.errors import ConfigurationError, ShardUnavailableError
from prioris.interfaces.cli import main
from prioris.library import Library, migrate_library

MODES = ("fts", "vector", "hybrid")
WORDS = (
    "coral reef bleaching heat ocean acidity kelp forest urchin grazing plankton bloom "
    "nitrogen runoff estuary salinity mangrove carbon seagrass turtle migration sonar whale "
    "song krill ice melt current upwelling fishery collapse trawl bycatch"
).split()


def _records(count: int, start: int = 0) -> list[dict[str, Any]]:
    """Varied texts (each a different draw of words), so that few scores tie."""
    out = []
    for i in range(start, start + count):
        draw = random.Random(i)
        words = draw.sample(WORDS, 8) + draw.sample(WORDS, 4)
        out.append(
            {
                "_id": f"w{i}",
                "title": f"On {words[0]} and {words[1]} {i}",
                "text": " ".join(words) + f". Site {i % 7} saw {words[2]} near {words[3]}.",
                "source": ("field", "lab")[i % 2],
                "year": 2000 + i % 12,
            }
        )
    return out


class SpreadEmbedder(FakeEmbedder):
    """A vector drawn at random from each text (seeded by it): no two texts' vectors, nor
    their scores against a query, tie, so one server's order among equal scores (the
    index's) never decides a comparison."""

    def _vector(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
        vector = np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return vector / float(np.linalg.norm(vector))


def _open(url: str, shards: list[str] | None = None, **env: str) -> Library:
    values = {"PRIORIS_MCP_ENRICH": "off", **env}
    if shards:
        values["PRIORIS_MCP_DB_SHARDS"] = ",".join(shards)
    return Library.open(load_settings(values).with_library(url), embedder=SpreadEmbedder())


@contextmanager
def _schema(server: str) -> Iterator[str]:
    """A library URL in a new schema of ``server`` (a second library beside the test's)."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield f"{server}&options=-csearch_path%3D{schema},public"
    finally:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


def _rows(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as conn:
        return [tuple(r) for r in conn.execute(sql, params).fetchall()]


def _held(url: str) -> dict[str, int]:
    """Each work's passages on one server."""
    return dict(_rows(url, "SELECT work_id, count(*) FROM chunks GROUP BY work_id"))


def _hits(library: Library, query: str, mode: str, **filters: Any) -> list[tuple[Any, ...]]:
    """The hits as (score, work, chunk), best first, hits of equal score in id order: on
    one server the order among equal scores is the index's, which may differ."""
    response = library.search(query, mode=mode, k=10, chunks=True, **filters)
    found = [(round(h.score, 6), h.id, h.chunk_id) for h in response.hits]
    return sorted(found, key=lambda hit: (-hit[0], hit[1]))


def test_placement_is_stable_and_spread() -> None:
    shards = ("postgresql://a/x", "postgresql://b/x", "postgresql://c/x")
    router = Router("postgresql://p/x", shards=shards)
    ids = [f"doi:10.1000/{i}" for i in range(3000)]
    placed = [router.shard_of(i) for i in ids]
    assert placed == [Router("postgresql://p/x", shards=shards).shard_of(i) for i in ids]
    for shard in shards:
        assert 850 < placed.count(shard) < 1150  # about a third each
    assert Router("postgresql://p/x").shard_of("w1") == "postgresql://p/x"


def test_writes_land_on_the_owning_shard_only(pg_url: str, pg_shard_urls: list[str]) -> None:
    router = Router(pg_url, shards=tuple(pg_shard_urls))
    with _open(pg_url, pg_shard_urls) as library:
        library.import_records(_records(60))
        # the primary keeps every work's row and no passage; each shard its own works
        assert _rows(pg_url, "SELECT count(*) FROM works")[0][0] == 60
        assert _rows(pg_url, "SELECT count(*) FROM chunks")[0][0] == 0
        for shard in pg_shard_urls:
            held = _held(shard)
            assert held and all(router.shard_of(w) == shard for w in held)
            copies = {r[0] for r in _rows(shard, "SELECT id FROM works")}
            assert copies == {f"w{i}" for i in range(60) if router.shard_of(f"w{i}") == shard}
            vectors = _rows(shard, "SELECT count(*) FROM chunk_vectors")[0][0]
            assert vectors == sum(held.values())
        assert sum(sum(_held(s).values()) for s in pg_shard_urls) == 60
        assert library.status()["chunks"] == 60 and len(library.list_works(limit=100)) == 60
        # per-work counts gathered from the shards, beside the primary's rows
        assert [w["chunks"] for w in library.list_works(limit=100)] == [1] * 60
        assert [w["chunks"] for w in library.browse(limit=100)["works"]] == [1] * 60

        owner = router.shard_of("w7")
        others = [s for s in pg_shard_urls if s != owner]
        # an edit: the shard's copy of the row and its passages' title follow
        library.edit_work("w7", {"title": "Narwhal tusks at dusk", "year": 1999})
        assert _rows(owner, "SELECT title, year FROM works WHERE id = 'w7'") == [
            ("Narwhal tusks at dusk", 1999)
        ]
        assert _rows(owner, "SELECT DISTINCT year FROM chunk_vectors WHERE work_id = 'w7'") == [
            (1999,)
        ]
        hits = library.search("narwhal", mode="fts", k=5).hits
        assert [h.id for h in hits] == ["w7"]
        assert all(not _rows(s, "SELECT 1 FROM works WHERE id = 'w7'") for s in others)
        # a delete: gone from the primary and from its shard
        library.delete(["w7"])
        assert not _rows(pg_url, "SELECT 1 FROM works WHERE id = 'w7'")
        assert not _rows(owner, "SELECT 1 FROM works WHERE id = 'w7'")
        assert not _rows(owner, "SELECT 1 FROM chunks WHERE work_id = 'w7'")
        # a new import lands where its id says; chunk ids stay unique across the shards
        library.import_records(_records(20, start=100))
        ids = [r[0] for s in pg_shard_urls for r in _rows(s, "SELECT id FROM chunks")]
        assert len(ids) == len(set(ids)) == 79
        for i in range(100, 120):
            assert f"w{i}" in _held(router.shard_of(f"w{i}"))
    # reindex: a new model makes every passage stale on every shard; reindex gives each
    # its vectors where it lives
    settings = load_settings({"PRIORIS_MCP_ENRICH": "off"})
    settings = settings.with_library(pg_url)
    from dataclasses import replace

    settings = replace(settings, db_shards=tuple(pg_shard_urls))
    with Library.open(settings, embedder=FakeEmbedder(dim=32, model_id="other")) as library:
        assert library.status()["stale_chunks"] == 79
        assert library.reindex() == 79
        assert library.status()["stale_chunks"] == 0
    for shard in pg_shard_urls:
        assert _rows(shard, "SELECT count(*) FROM chunk_vectors")[0][0] == sum(
            _held(shard).values()
        )
        assert _rows(shard, "SELECT DISTINCT embedding_model FROM chunks") == [("other",)]
    # a shard is a library of its own works, opened alone (its schema is the library's)
    shard = router_of(pg_url, pg_shard_urls, "w3")
    with Library.open(
        load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(shard),
        embedder=FakeEmbedder(dim=32, model_id="other"),
    ) as alone:
        assert {w["id"] for w in alone.list_works(limit=200)} == set(_held(shard))
        title = alone.get_work("w3").title
        assert "w3" in {h.id for h in alone.search(title, mode="fts", k=50).hits}
        assert title == _rows(pg_url, "SELECT title FROM works WHERE id = 'w3'")[0][0]


@pytest.mark.parametrize("ranking", ["sql", "postings"])
def test_one_server_and_three_shards_give_the_same_hits(
    pg_url: str, pg_server: str, pg_shard_urls: list[str], ranking: str
) -> None:
    """Plain queries ranked by BM25 in SQL, or from the postings tables (one server's, or
    each shard's scored with the library's statistics): the same hits either way."""
    env = {"PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS": "0" if ranking == "sql" else "1"}
    records = _records(150)
    queries = ["coral reef bleaching", "whale song krill", "estuary salinity runoff"]
    filters: list[dict[str, Any]] = [
        {},
        {"from_year": 2003, "to_year": 2008},
        {"source": "lab"},
        {"collections": "picked"},
    ]
    picked = [f"w{i}" for i in range(0, 150, 3)]
    results = {}
    with _schema(pg_server) as alone_url:
        for name, url, shards in (("one", alone_url, None), ("three", pg_url, pg_shard_urls)):
            with _open(url, shards, **env) as library:
                library.import_records(records)
                library.create_collection("picked")
                library.add_to_collection("picked", picked)
                if ranking == "postings":
                    built = library.build_postings()
                    assert built["built"] and built["rows"] == len(records)
                results[name] = {
                    (q, m, json.dumps(f)): _hits(library, q, m, **f)
                    for q in queries
                    for m in MODES
                    for f in filters
                }
                backend = library.searcher.backend
                postings = [b.postings for b in getattr(backend, "shards", {}).values()]
                answered = sum(p.answered for p in postings or [backend.postings])
                assert (answered > 0) == (ranking == "postings")
    assert results["one"] == results["three"]
    assert all(results["three"].values())  # every query found something
    # the filters did filter
    lab = results["three"][(queries[0], "fts", json.dumps({"source": "lab"}))]
    assert all(int(work[1:]) % 2 == 1 for _, work, _ in lab)
    kept = results["three"][(queries[1], "vector", json.dumps({"collections": "picked"}))]
    assert {work for _, work, _ in kept} <= set(picked)


def test_status_lists_each_shard_with_its_works(
    pg_url: str, pg_shard_urls: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    secret = [u.replace("postgres:@", "postgres:hunter2@", 1) for u in pg_shard_urls]
    with _open(pg_url, secret) as library:  # trust auth: the password is not checked
        library.import_records(_records(30))
    env = {"PRIORIS_MCP_DB_SHARDS": ",".join(secret), "PRIORIS_MCP_ENRICH": "off"}
    with pytest.MonkeyPatch.context() as patch:
        for key, value in env.items():
            patch.setenv(key, value)
        patch.setenv("PRIORIS_MCP_EMBEDDER", "fake")
        assert main(["--db", pg_url, "status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    shards = status["shards"]
    assert [s["up"] for s in shards] == [True, True, True]
    assert sum(s["works"] for s in shards) == 30 and sum(s["passages"] for s in shards) == 30
    assert all("hunter2" not in s["url"] and "***" in s["url"] for s in shards)


def test_settings_that_cannot_work_are_refused(
    pg_url: str, pg_shard_urls: list[str], tmp_path: Any
) -> None:
    with pytest.raises(ConfigurationError, match="SQLite"):
        _open(str(tmp_path / "lib.sqlite"), pg_shard_urls)
    with pytest.raises(ConfigurationError, match="REPLICAS and PRIORIS_MCP_DB_SHARDS"):
        _open(pg_url, pg_shard_urls, PRIORIS_MCP_DB_REPLICAS=pg_shard_urls[0])
    with pytest.raises(ConfigurationError, match=r"fail.*partial"):
        _open(pg_url, pg_shard_urls, PRIORIS_MCP_DB_SHARD_MISSING="sometimes")
    with _open(pg_url, pg_shard_urls) as library:
        library.import_records(_records(5))
    with pytest.raises(ConfigurationError, match="spread over 3 shards"):
        _open(pg_url)  # the primary alone would look empty
    with pytest.raises(ConfigurationError, match="spread over 3 shards"):
        _open(pg_url, pg_shard_urls[:2])  # placement follows from the number of shards
    with pytest.raises(ConfigurationError, match="order"):
        _open(pg_url, list(reversed(pg_shard_urls)))


def test_migrate_to_shards_and_back_keeps_ids_and_vectors(
    pg_url: str, pg_server: str, pg_shard_urls: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    def snapshot(url: str, shards: list[str]) -> dict[str, Any]:
        servers = shards or [url]
        chunks = sorted(
            r for s in servers for r in _rows(s, "SELECT id, work_id, text FROM chunks")
        )
        vectors = sorted(
            (r[0], str(r[1]))
            for s in servers
            for r in _rows(s, "SELECT chunk_id, embedding::text FROM chunk_vectors")
        )
        works = _rows(url, "SELECT id, title, year FROM works ORDER BY id")
        return {"chunks": chunks, "vectors": vectors, "works": works}

    with _schema(pg_server) as one, _schema(pg_server) as back:
        with _open(one) as library:
            library.import_records(_records(40))
            before = snapshot(one, [])
            expected = {m: _hits(library, "kelp urchin", m) for m in MODES}
        settings = load_settings({"PRIORIS_MCP_ENRICH": "off"}).with_library(one)
        shards = ",".join(pg_shard_urls)
        assert main(["--db", one, "migrate-to", pg_url, "--shards", shards, "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["works"] == 40 and report["vectors"] == 40
        assert snapshot(pg_url, pg_shard_urls) == before
        again = migrate_library(settings, pg_url, target_shards=pg_shard_urls)
        assert again["works"] == 0 and again["skipped"] == 40  # resumable: nothing twice
        with _open(pg_url, pg_shard_urls) as library:
            assert {m: _hits(library, "kelp urchin", m) for m in MODES} == expected
            library.import_records(_records(1, start=500))  # new ids past the copied ones
            new = _rows(
                router_of(pg_url, pg_shard_urls, "w500"),
                "SELECT id FROM chunks WHERE work_id = 'w500'",
            )[0][0]
            assert new > max(c[0] for c in before["chunks"])
            library.delete(["w500"])
        sharded = load_settings(
            {"PRIORIS_MCP_ENRICH": "off", "PRIORIS_MCP_DB_SHARDS": ",".join(pg_shard_urls)}
        ).with_library(pg_url)
        report = migrate_library(sharded, back)
        assert report["works"] == 40 and report["chunks"] == 40 and report["vectors"] == 40
        assert snapshot(back, []) == before


def router_of(primary: str, shards: list[str], work_id: str) -> str:
    return str(Router(primary, shards=tuple(shards)).shard_of(work_id))


def test_a_stopped_shard_is_named_or_flagged(
    pg_url: str,
    pg_shard_urls: list[str],
    pg_shard_servers: list[Any],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with _open(pg_url, pg_shard_urls) as library:
        library.import_records(_records(45))
        whole = {m: _hits(library, "coral reef", m) for m in MODES}
    down = pg_shard_servers[2]
    down.stop()
    try:
        with _open(pg_url, pg_shard_urls) as library:
            for mode in MODES:
                with pytest.raises(ShardUnavailableError, match="shard 3 of 3") as caught:
                    library.search("coral reef", mode=mode, k=10)
                assert caught.value.shards and "127.0.0.1" in caught.value.shards[0]
            # a write to a work placed there fails whole, naming it; nothing is written
            placed = next(
                r
                for r in _records(40, start=200)
                if router_of(pg_url, pg_shard_urls, r["_id"]) == pg_shard_urls[2]
            )
            with pytest.raises(ShardUnavailableError, match="shard 3 of 3"):
                library.import_records([placed])
            assert not _rows(pg_url, "SELECT 1 FROM works WHERE id = %s", (placed["_id"],))
            # works placed on the shards that are up are written, edited and deleted as usual
            up = next(
                r
                for r in _records(40, start=300)
                if router_of(pg_url, pg_shard_urls, r["_id"]) == pg_shard_urls[0]
            )
            library.import_records([up])
            library.edit_work(up["_id"], {"title": "Kelp written while a shard was down"})
            assert _rows(pg_shard_urls[0], "SELECT title FROM works WHERE id = %s", (up["_id"],))
            library.delete([up["_id"]])
            assert not _rows(
                pg_shard_urls[0], "SELECT 1 FROM chunks WHERE work_id = %s", (up["_id"],)
            )
        with _open(pg_url, pg_shard_urls, PRIORIS_MCP_DB_SHARD_MISSING="partial") as library:
            for mode in MODES:
                response = library.search("coral reef", mode=mode, k=10, chunks=True)
                assert response.to_dict()["missing_shards"] == response.missing_shards
                assert len(response.missing_shards) == 1
                assert f":{down.port}/" in response.missing_shards[0]
                away = _held_ids(pg_url, pg_shard_urls, 2)
                assert response.hits and not {h.id for h in response.hits} & away
                if mode != "hybrid":  # the others' hits, as they ranked with all shards up
                    assert {h.id for h in response.hits} >= {
                        w for _, w, _ in whole[mode][:5] if w not in away
                    }
        # the MCP tool's result names the missing shard too
        from interfaces.mcp_helpers import data, with_client

        async def body(client: Any) -> dict[str, Any]:
            call = {"query": "coral reef", "mode": "hybrid", "limit": 5}
            return data(await client.call_tool("research_search_fetched", call))

        partial = _open(pg_url, pg_shard_urls, PRIORIS_MCP_DB_SHARD_MISSING="partial")
        try:
            answered = with_client(partial, body)
        finally:
            partial.close()
        assert answered["hits"] and len(answered["missing_shards"]) == 1
        assert f":{down.port}/" in answered["missing_shards"][0]
        monkeypatch.setenv("PRIORIS_MCP_DB_SHARDS", ",".join(pg_shard_urls))
        monkeypatch.setenv("PRIORIS_MCP_DB_SHARD_MISSING", "partial")
        monkeypatch.setenv("PRIORIS_MCP_ENRICH", "off")
        monkeypatch.setenv("PRIORIS_MCP_EMBEDDER", "fake")
        assert main(["--db", pg_url, "search", "coral reef", "--mode", "fts", "--json"]) == 0
        out, err = capsys.readouterr()
        assert len(json.loads(out)["missing_shards"]) == 1
        assert "shards missing" in err
        monkeypatch.setenv("PRIORIS_MCP_DB_SHARD_MISSING", "fail")
        assert main(["--db", pg_url, "search", "coral reef", "--mode", "fts"]) != 0
        assert "shard 3 of 3" in capsys.readouterr().err
        assert main(["--db", pg_url, "status", "--json"]) == 0
        status = json.loads(capsys.readouterr().out)
        assert [s["up"] for s in status["shards"]] == [True, True, False]
    finally:
        down.start()
    with _open(pg_url, pg_shard_urls, PRIORIS_MCP_DB_SHARD_MISSING="partial") as library:
        response = library.search("coral reef", mode="fts", k=10, chunks=True)
        assert not response.missing_shards and "missing_shards" not in response.to_dict()


def _held_ids(primary: str, shards: list[str], index: int) -> set[str]:
    """The works placed on shard ``index`` (by the router, as it is down)."""
    ids = {r[0] for r in _rows(primary, "SELECT id FROM works")}
    return {w for w in ids if router_of(primary, shards, w) == shards[index]}
