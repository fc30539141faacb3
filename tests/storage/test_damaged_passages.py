"""A library file someone hands you cannot hurt the reader (issue 40): a damaged or
unknown packed passage is one ``damaged_library`` error naming the work in search, the
passage view and reindex, never a traceback; the work can still be shown, exported,
edited and deleted; inflation is bounded; the BM25 postings sidecar is sized by the
number of passages, not by the largest chunk id."""

from __future__ import annotations

import json
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest

from prioris.engines.sqlite import postings, textpack
from prioris.engines.sqlite.postings_rank import PostingsRanker
from prioris.engines.sqlite.queries import fts_search
from prioris.errors import DamagedLibraryError
from prioris.interfaces.cli import main
from prioris.library import Library
from prioris.search.protocols import SearchFilters
from prioris.search.query import plain_to_fts5

DAMAGE = {
    "damaged": b"\x01not deflate at all",
    "cut short": textpack.pack(" ".join(f"coral{i} reef{i * 7}" for i in range(80)))[:40],  # type: ignore[index]
    "unknown format": b"\x07" + zlib.compress(b"a newer format"),
    "not utf-8": bytes((textpack.DEFLATE,)) + zlib.compress(b"\xff\xfe" * 80)[2:-4],
}


def _library(library: Library) -> Library:
    library.import_records(
        [
            {"_id": f"w{i}", "title": f"Coral work {i}", "text": f"coral reef heatwave {i} " * 30}
            for i in range(3)
        ]
    )
    return library


def _damage(library: Library, work_id: str, value: bytes) -> list[int]:
    conn = library.conn
    conn.execute("UPDATE chunks SET text = ? WHERE work_id = ?", (value, work_id))
    return [r[0] for r in conn.execute("SELECT id FROM chunks WHERE work_id = ?", (work_id,))]


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_passage_is_an_error_naming_its_work(library: Library, kind: str) -> None:
    chunk = _damage(_library(library), "w1", DAMAGE[kind])[0]
    for mode in ("fts", "hybrid", "vector"):
        with pytest.raises(DamagedLibraryError, match="work 'w1' cannot be read") as caught:
            library.search("coral heatwave", mode=mode, k=10)
        assert caught.value.code == "damaged_library"
    with pytest.raises(DamagedLibraryError, match="'w1'"):
        library.chunk(chunk)
    library.conn.execute("UPDATE chunks SET embedding_model = NULL")  # reindex reads them
    with pytest.raises(DamagedLibraryError, match="'w1'"):
        library.reindex()
    # the rest of the work stays readable: its record, its Markdown, its export
    assert library.show("w1")["title"] == "Coral work 1"
    exported = json.loads(library.export(["w1"], "jsonl").splitlines()[0])
    assert exported["id"] == "w1"


def test_a_damaged_work_can_be_edited_and_deleted(library: Library) -> None:
    _damage(_library(library), "w1", DAMAGE["damaged"])
    edited = library.edit_work("w1", {"title": "Renamed coral work"})
    assert edited.title == "Renamed coral work"
    assert library.delete(["w1"]) == ["w1"]
    assert sorted(w["id"] for w in library.list_works()) == ["w0", "w2"]
    # FTS5's own check: the index agrees with its content again (no ghost of the damage)
    library.conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")
    hits = [h.id for h in library.search("coral heatwave", mode="fts", k=10).hits]
    assert sorted(hits) == ["w0", "w2"]  # the others answer again
    assert sorted(h.id for h in library.search("coral", mode="hybrid", k=10).hits) == [
        "w0",
        "w2",
    ]


def test_the_cli_says_it_in_one_line(library: Library, capsys: pytest.CaptureFixture[str]) -> None:
    _damage(_library(library), "w1", DAMAGE["unknown format"])
    assert main(["search", "coral heatwave", "--mode", "fts"]) != 0
    err = capsys.readouterr().err
    assert "error [damaged_library]: work 'w1' cannot be read" in err
    assert "Traceback" not in err


def test_inflation_is_bounded(library: Library) -> None:
    """A deflate bomb (128 KiB packed, 128 MiB inflated) stops at the bound instead of
    allocating the whole: the work is named, the memory peak stays far below the bomb."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    bomb = bytes((textpack.DEFLATE,)) + packer.compress(b"a" * (128 << 20)) + packer.flush()
    assert len(bomb) < 256 << 10
    _damage(_library(library), "w2", bomb)
    tracemalloc.start()
    try:
        with pytest.raises(DamagedLibraryError, match=r"'w2' cannot be read: .* inflates past"):
            library.search("coral heatwave", mode="fts", k=10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * textpack.MAX_TEXT_BYTES, peak  # the bound's buffer and its copy


def test_text_within_the_bound_reads_back() -> None:
    text = "passage " * ((textpack.MAX_TEXT_BYTES // 8) - 16)
    assert textpack.unpack(textpack.pack(text), "w") == text


def _copy_with_a_huge_chunk_id(library: Library) -> int:
    """The library with one more passage whose id is 2**40 (as a handed file may hold)."""
    conn = library.conn
    row = conn.execute("SELECT * FROM chunks ORDER BY id LIMIT 1").fetchone()
    columns = list(row.keys())
    values: dict[str, Any] = dict(zip(columns, row, strict=True))
    values["id"] = 1 << 40
    conn.execute("BEGIN IMMEDIATE")
    conn.execute(
        f"INSERT INTO chunks({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
        [values[c] for c in columns],
    )
    conn.execute(
        "INSERT INTO chunks_fts(rowid, text, title, heading) VALUES (?, ?, ?, ?)",
        (1 << 40, "coral passage of a huge id", "Coral work 0", None),
    )
    conn.execute("COMMIT")
    return 1 << 40


def test_the_postings_sidecar_is_sized_by_passages_not_the_largest_id(
    library: Library, tmp_path: Path
) -> None:
    """A copy of a small library with one passage of id 2**40: the sidecar is built over
    its 4 passages (an array per id would be 4 TiB) and ranks as FTS5 does, the huge id
    included, also with passages added after the build."""
    _library(library)
    huge = _copy_with_a_huge_chunk_id(library)
    target = tmp_path / "library.sqlite.bm25"
    conn = library.storage.connect(migrate=False)
    tracemalloc.start()
    try:
        built = postings.build(conn, target)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        conn.close()
    assert built is not None and target.is_file()
    assert peak < 16 << 20, peak
    ranker = PostingsRanker(
        lambda: library.storage.connect(migrate=False), target, min_rows=1, background=False
    )
    ranker._next_build = float("inf")  # this file is the one ranked from
    expression = plain_to_fts5("coral heatwave")
    assert expression is not None
    try:
        with library.lock:
            ranked = ranker.rank(library.conn, expression, 10, title_weight=1.0, rows=4)
            expected = fts_search(library.conn, expression, SearchFilters(), 10, title_weight=1.0)
        assert ranked is not None and ranker.answered == 1
        assert [c for c, _ in ranked] == [s.chunk_id for s in expected]
        assert huge in [c for c, _ in ranked]
        # a passage added since the build: served from the sidecar plus the added one
        library.import_records([{"_id": "w9", "title": "Coral late", "text": "coral late"}])
        with library.lock:
            ranked = ranker.rank(library.conn, expression, 10, title_weight=1.0, rows=5)
            expected = fts_search(library.conn, expression, SearchFilters(), 10, title_weight=1.0)
        assert ranked is not None and ranker.overlaid == 1
        assert [c for c, _ in ranked] == [s.chunk_id for s in expected]
    finally:
        ranker.close()
