"""The connection router (``engines/router.py``): where each connection goes, and that a
library opened through ``open_storage`` reaches its file through it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from pathlib import Path

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.engines import open_storage
from prioris.engines.router import Router
from prioris.engines.sqlite.storage import SqliteStorage
from prioris.library import Library

SHARDS = ("postgresql://a/lib", "postgresql://b/lib", "postgresql://c/lib")


def test_one_server_takes_every_connection() -> None:
    router = Router("postgresql://u:secret@db/lib")
    assert router.for_write() == router.for_read() == "postgresql://u:secret@db/lib"
    assert router.shard_of("W1") == router.shard_of(42) == router.primary
    assert router.locations() == {
        "primary": "postgresql://u:secret@db/lib",
        "replicas": [],
        "shards": [],
    }


def test_writes_stay_on_the_primary_when_there_are_replicas_and_shards() -> None:
    router = Router("postgresql://p/lib", replicas=("postgresql://r/lib",), shards=SHARDS)
    assert router.for_write() == "postgresql://p/lib"
    assert router.for_read() == "postgresql://p/lib"  # no replica chosen yet
    assert router.locations() == {
        "primary": "postgresql://p/lib",
        "replicas": ["postgresql://r/lib"],
        "shards": list(SHARDS),
    }


def test_a_works_shard_is_a_stable_hash_of_its_id() -> None:
    """Pinned: a change of formula would move stored works to another server."""
    router = Router("postgresql://p/lib", shards=SHARDS)
    ids = ["W1", "arxiv:2101.00001", "file:0123456789abcdef", 42]
    assert [router.shard_of(i) for i in ids] == [SHARDS[2], SHARDS[2], SHARDS[2], SHARDS[0]]
    two = Router("postgresql://p/lib", shards=SHARDS[:2])
    assert [two.shard_of(i) for i in ids] == [SHARDS[0], SHARDS[0], SHARDS[1], SHARDS[1]]
    # an id as a number or as text is the same work
    assert router.shard_of(42) == router.shard_of("42")
    assert Router("x", shards=SHARDS).shard_of("W1") == router.shard_of("W1")


def test_shards_share_the_works_evenly() -> None:
    router = Router("postgresql://p/lib", shards=SHARDS)
    counts = Counter(router.shard_of(f"work-{n}") for n in range(3000))
    assert set(counts) == set(SHARDS)
    assert all(900 < c < 1100 for c in counts.values())


def test_a_router_is_a_value() -> None:
    router = Router(Path("lib.sqlite"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        router.primary = Path("other.sqlite")  # type: ignore[misc]
    assert router == Router(Path("lib.sqlite"))


def test_open_storage_routes_an_sqlite_library_to_its_file(tmp_path: Path) -> None:
    db = tmp_path / "lib.sqlite"
    storage = open_storage(str(db))
    assert isinstance(storage, SqliteStorage)
    assert storage.router == Router(db)
    conn = storage.connect()
    try:
        assert Path(conn.execute("PRAGMA database_list").fetchone()[2]) == db
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        conn.close()


def test_a_storage_refuses_a_router_for_another_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="primary"):
        SqliteStorage(tmp_path / "a.sqlite", router=Router(tmp_path / "b.sqlite"))


def test_search_readers_connect_where_the_router_reads(tmp_path: Path) -> None:
    """The writer opens at ``for_write()``, each search thread's reader at ``for_read()``."""
    asked: list[str] = []

    @dataclasses.dataclass(frozen=True)
    class Recording(Router):
        def for_write(self) -> Path | str:
            asked.append("write")
            return super().for_write()

        def for_read(self) -> Path | str:
            asked.append("read")
            return super().for_read()

    db = tmp_path / "lib.sqlite"
    storage = SqliteStorage(db, router=Recording(db))
    asked.clear()
    writer = storage.connect()
    backend = storage.search_backend()
    try:
        assert asked == ["write"]
        assert backend.conn.execute("SELECT count(*) FROM works").fetchone()[0] == 0
        assert asked == ["write", "read"]
    finally:
        backend.close()
        writer.close()


def test_a_library_opened_through_open_storage_still_works(settings) -> None:  # type: ignore[no-untyped-def]
    with Library.open(settings, embedder=FakeEmbedder()) as library:
        assert library.storage.router == Router(Path(settings.library_location))
        library.import_records(
            [{"_id": "q", "title": "Quokka habitats", "text": "Quokkas live on islands."}]
        )
        assert [h.id for h in library.search("quokka", mode="fts").hits] == ["q"]
        assert [h.id for h in library.search("quokka islands", mode="vector").hits] == ["q"]
