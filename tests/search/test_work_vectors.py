"""One vector per work (title + abstract) beside its chunks', on both backends.

Vector search scores a work by ``0.3 x`` its own vector's cosine ``+ 0.7 x`` its best
chunk's. The library here is built so the two disagree: work ``b`` has the best chunk,
work ``a`` the abstract that is the query, so the work vectors decide the order.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.ingest.embed import work_text
from prioris.library import Library
from prioris.search.protocols import ChunkScore
from prioris.search.scoring import with_work_vectors
from prioris.storage import work_vectors as work_vector_store

from conftest import FakeOcr

FILLER = " ".join(f"filler{i}" for i in range(30))
RECORDS = [
    {
        "_id": "a",
        "title": "Ocean notes",
        "abstract": "krill penguins glaciers",
        "text": f"krill {FILLER}",
    },
    {
        "_id": "b",
        "title": "Misc",
        "abstract": "tax law courts contracts",
        "text": "krill penguins " + " ".join(f"other{i}" for i in range(10)),
    },
]
QUERY = "krill penguins glaciers"

F16 = 1e-3  # work vectors are stored as float16: ~5e-4 relative per dimension


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    return backend_settings


@pytest.fixture
def lib(settings) -> Any:  # type: ignore[no-untyped-def]
    library = Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr())
    library.import_records(RECORDS)
    yield library
    library.close()


def _weight(library: Library, weight: float) -> None:
    library.searcher.config = dataclasses.replace(
        library.searcher.config, work_vector_weight=weight
    )


def _own_vectors(library: Library, *ids: str) -> dict[str, np.ndarray]:
    with library.lock:
        return work_vector_store.read(library.conn, ids)


def test_ingest_stores_the_title_and_abstract_vector(lib: Library) -> None:
    stored = _own_vectors(lib, "a", "b")
    assert set(stored) == {"a", "b"}
    expected = FakeEmbedder().embed_passages([work_text("Ocean notes", RECORDS[0]["abstract"], "")])
    np.testing.assert_allclose(stored["a"], expected[0], atol=F16)
    assert lib.status()["stale_works"] == 0


def test_work_vectors_decide_between_a_better_chunk_and_a_better_abstract(lib: Library) -> None:
    _weight(lib, 0.0)  # best chunk only: b's passage holds two of the three words
    assert [h.id for h in lib.search(QUERY, mode="vector", k=2).hits] == ["b", "a"]
    _weight(lib, 0.3)  # a's abstract is the query
    hits = lib.search(QUERY, mode="vector", k=2).hits
    assert [h.id for h in hits] == ["a", "b"]
    assert hits[0].snippet and "krill" in hits[0].snippet  # the hit still shows a passage
    hybrid = {h.id: h.ranks for h in lib.search(QUERY, mode="hybrid", k=2).hits}
    assert hybrid["a"]["vector"] == 1 and hybrid["b"]["fts"] == 1  # fusion sees both
    chunk_hits = lib.search(QUERY, mode="vector", k=2, chunks=True).hits
    assert chunk_hits[0].id == "b"  # passages are ranked as passages


def test_weight_comes_from_the_environment(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from prioris.config import load_settings
    from prioris.errors import ConfigurationError

    monkeypatch.setenv("PRIORIS_MCP_WORK_VECTOR_WEIGHT", "0")
    assert load_settings().work_vector_weight == 0.0
    for bad in ("1.5", "-0.1", "half"):
        monkeypatch.setenv("PRIORIS_MCP_WORK_VECTOR_WEIGHT", bad)
        with pytest.raises(ConfigurationError, match="PRIORIS_MCP_WORK_VECTOR_WEIGHT"):
            load_settings()


def test_a_new_abstract_drops_the_vector_and_reindex_embeds_it(lib: Library) -> None:
    before = _own_vectors(lib, "a")["a"]
    with lib.lock:
        lib.conn.execute("BEGIN IMMEDIATE")
        lib.conn.execute("UPDATE works SET abstract = ? WHERE id = ?", ("tax law", "a"))
        lib.conn.execute("COMMIT")
    assert _own_vectors(lib, "a") == {}  # the trigger dropped the stale vector
    assert lib.status()["stale_works"] == 1
    _weight(lib, 0.3)
    hits = lib.search(QUERY, mode="vector", k=2).hits  # a is scored by its chunk alone
    assert [h.id for h in hits] == ["b", "a"]
    assert lib.reindex() == 0  # no chunk was stale; the work vector was
    after = _own_vectors(lib, "a")["a"]
    assert not np.allclose(after, before) and lib.status()["stale_works"] == 0


def test_an_abstract_filled_in_later_is_embedded_at_once(lib: Library) -> None:
    text = "seabirds of the southern ocean and their prey"
    lib.import_records([{"_id": "c", "title": "Seabirds", "text": text}])
    without = _own_vectors(lib, "c")["c"]  # no abstract: the head of the text
    head = work_text("Seabirds", None, f"# Seabirds\n\n{text}")
    np.testing.assert_allclose(without, FakeEmbedder().embed_passages([head])[0], atol=F16)
    # the same text again, now with an abstract: the stored text stays, the gap is filled
    lib.import_records([{"_id": "c", "title": "Seabirds", "text": text, "abstract": QUERY}])
    assert lib.get_work("c").abstract == QUERY
    expected = FakeEmbedder().embed_passages([work_text("Seabirds", QUERY, "")])[0]
    np.testing.assert_allclose(_own_vectors(lib, "c")["c"], expected, atol=F16)
    assert lib.status()["stale_works"] == 0


def test_deleting_a_work_deletes_its_vector(lib: Library) -> None:
    lib.delete(["b"])
    with lib.lock:
        rows = lib.conn.execute("SELECT work_id FROM work_vectors").fetchall()
    assert [r[0] for r in rows] == ["a"]


def test_reads_span_several_batches_of_ids(lib: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reads go by batches of ids (bounded SQL parameters): every batch is kept, not only
    the last, in both the search read and the whole-row read of a copy."""
    monkeypatch.setattr(work_vector_store, "BATCH", 1)
    with lib.lock:
        own = work_vector_store.read(lib.conn, ["a", "b", "a"])
        rows = work_vector_store.read_rows(lib.conn, ["a", "b"])
    assert sorted(own) == ["a", "b"]
    assert [r[0] for r in rows] == ["a", "b"]
    assert all(r[1] == lib.embedder.model_id for r in rows)
    for row in rows:
        stored = work_vector_store.unpack(row[2], len(own[row[0]]))
        np.testing.assert_array_equal(stored, own[row[0]])


def test_a_work_without_abstract_or_markdown_is_listed_with_an_empty_head(lib: Library) -> None:
    """``missing`` hands reindex what ``work_text`` reads: an empty Markdown stays empty
    (no placeholder text gets embedded as the work's own)."""
    from prioris.storage.transaction import immediate

    with lib.lock, immediate(lib.conn):
        lib.conn.execute("UPDATE works SET abstract = NULL, markdown = '' WHERE id = 'a'")
        lib.conn.execute("DELETE FROM work_vectors WHERE work_id = 'a'")
    with lib.lock:
        rows = work_vector_store.missing(lib.conn, lib.embedder.model_id, 10)
    assert rows == [("a", "Ocean notes", None, "")]
    lib.reindex()
    expected = FakeEmbedder().embed_passages([work_text("Ocean notes", None, "")])[0]
    np.testing.assert_allclose(_own_vectors(lib, "a")["a"], expected, atol=F16)


def test_missing_hands_reindex_the_head_of_the_text_of_a_work_without_abstract(
    lib: Library,
) -> None:
    """A work without an abstract is embedded from the head of its Markdown, also when
    reindex (not ingest) embeds it; an empty list of ids asks for no work at all."""
    text = "seabirds of the southern ocean and their prey"
    lib.import_records([{"_id": "c", "title": "Seabirds", "text": text}])
    with lib.lock:
        markdown = lib.conn.execute("SELECT markdown FROM works WHERE id = 'c'").fetchone()[0]
        assert text in markdown
        lib.conn.execute("DELETE FROM work_vectors WHERE work_id = 'c'")
        model = lib.embedder.model_id
        assert work_vector_store.missing(lib.conn, model, 10) == [("c", "Seabirds", None, markdown)]
        assert work_vector_store.missing(lib.conn, model, 10, work_ids=[]) == []
    assert lib.embed_work_vectors(["c"]) == 1
    expected = FakeEmbedder().embed_passages([work_text("Seabirds", None, markdown)])[0]
    np.testing.assert_allclose(_own_vectors(lib, "c")["c"], expected, atol=F16)


def test_a_vector_of_another_float_type_is_stored_as_float16(lib: Library) -> None:
    from prioris.storage.transaction import immediate

    dim = len(_own_vectors(lib, "a")["a"])
    wide = np.linspace(-1.0, 1.0, dim)  # float64
    with lib.lock, immediate(lib.conn):
        work_vector_store.store(lib.conn, "a", wide, lib.embedder.model_id)
    read = _own_vectors(lib, "a")["a"]
    assert read.dtype == np.float32
    np.testing.assert_array_equal(read, wide.astype(np.float16).astype(np.float32))


def test_a_model_change_leaves_old_work_vectors_unused_until_reindex(settings: Any) -> None:
    first = Library.open(settings, embedder=FakeEmbedder(model_id="fake/a"), ocr=FakeOcr())
    first.import_records(RECORDS)
    first.close()
    old_model, new_model = FakeEmbedder(model_id="fake/a"), FakeEmbedder(model_id="fake/b")
    texts = {r["_id"]: work_text(r["title"], r["abstract"], "") for r in RECORDS}
    lib = Library.open(settings, embedder=new_model, ocr=FakeOcr())
    try:
        assert _own_vectors(lib, "a", "b") == {}
        assert lib.status()["stale_works"] == 2
        with lib.lock:  # what is stored is fake/a's, and it really differs from fake/b's
            before = {r[0]: r for r in work_vector_store.read_rows(lib.conn, ["a", "b"])}
        for work_id, text in texts.items():
            stored = work_vector_store.unpack(before[work_id][2], old_model.dim)
            assert before[work_id][1] == "fake/a"
            np.testing.assert_allclose(stored, old_model.embed_passages([text])[0], atol=F16)
            assert not np.allclose(stored, new_model.embed_passages([text])[0], atol=1e-3)
        lib.reindex()
        own = _own_vectors(lib, "a", "b")
        assert set(own) == {"a", "b"}
        for work_id, text in texts.items():  # now the new model's vectors
            np.testing.assert_allclose(own[work_id], new_model.embed_passages([text])[0], atol=F16)
        hits = lib.search(QUERY, mode="vector", k=2).hits
        assert [h.id for h in hits] == ["a", "b"]
    finally:
        lib.close()


def test_with_work_vectors_mixes_and_keeps_works_without_one() -> None:
    query = np.array([1.0, 0.0], dtype=np.float32)
    works = [ChunkScore(1, "x", 0.9), ChunkScore(2, "y", 0.8), ChunkScore(3, "z", 0.5)]
    own = {"y": np.array([2.0, 0.0], dtype=np.float32), "x": np.array([0.0, 1.0], np.float32)}
    mixed = with_work_vectors(works, own, query, 0.3)
    assert [c.work_id for c in mixed] == ["y", "x", "z"]
    assert mixed[0].score == pytest.approx(0.3 * 1.0 + 0.7 * 0.8)  # cosine: norm ignored
    assert mixed[1].score == pytest.approx(0.7 * 0.9)
    assert mixed[2].score == 0.5 and mixed[2].chunk_id == 3  # no vector: its chunk's score
    wrong_size = {"x": np.ones(3, dtype=np.float32)}  # another model's: ignored
    assert with_work_vectors(works, wrong_size, query, 0.3)[0].score == 0.9


def test_with_work_vectors_compares_directions_only() -> None:
    """Cosines: neither the query's length nor a stored vector's changes a score, and a
    zero vector scores 0 (no NaN)."""
    works = [ChunkScore(1, "x", 0.9), ChunkScore(2, "y", 0.8), ChunkScore(3, "z", 0.2)]
    own = {
        "x": np.array([0.0, 5.0], dtype=np.float32),
        "y": np.array([0.5, 0.0], dtype=np.float32),
        "z": np.zeros(2, dtype=np.float32),
    }
    mixed = with_work_vectors(works, own, np.array([3.0, 0.0], dtype=np.float32), 0.4)
    assert [c.work_id for c in mixed] == ["y", "x", "z"]
    assert [c.score for c in mixed] == pytest.approx([0.4 + 0.6 * 0.8, 0.6 * 0.9, 0.6 * 0.2])
    assert [c.chunk_id for c in mixed] == [2, 1, 3]
    zero_query = with_work_vectors(works, own, np.zeros(2, dtype=np.float32), 0.4)
    assert [c.score for c in zero_query] == pytest.approx([0.6 * 0.9, 0.6 * 0.8, 0.6 * 0.2])


def test_with_work_vectors_keeps_the_list_order_of_ties() -> None:
    """Many equal scores (works without a vector keep their chunk's): a stable sort, so a
    tie keeps the order the chunk ranking gave, as the docstring promises."""
    scores = [0.5] * 40 + [0.7] * 40 + [0.5] * 40
    works = [ChunkScore(i, f"w{i}", s) for i, s in enumerate(scores)]
    mixed = with_work_vectors(works, {}, np.array([1.0, 0.0], dtype=np.float32), 0.3)
    expected = [*range(40, 80), *range(40), *range(80, 120)]
    assert [c.chunk_id for c in mixed] == expected


def test_a_library_made_before_work_vectors_is_upgraded_then_reindexed(data_dir: Any) -> None:
    from prioris.config import load_settings

    settings = load_settings()  # a SQLite file (PostgreSQL runs its own migration 2)
    lib = Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr())
    lib.import_records(RECORDS)
    later = ("volume", "issue", "pages", "publisher", "keywords", "origins")  # migration 6
    with lib.lock:  # back to schema 4: no table, no trigger, no record of migration 5
        for statement in (
            "DROP TRIGGER works_vector_stale",
            "DROP TABLE work_vectors",
            *(f"ALTER TABLE works DROP COLUMN {name}" for name in later),
            "DROP TABLE work_edits",
            "ALTER TABLE chunks DROP COLUMN section",  # migration 7
            "DROP TABLE work_collections",  # migration 8
            "DROP TABLE work_tags",
            "DROP TABLE work_notes",  # migration 9
            "DROP TABLE refsync_items",
            "DROP TABLE work_references",  # migration 10
            "DROP TABLE openalex_cache",  # migration 11
            "DROP TABLE openalex_requests",
            "DROP TABLE snowball_dismissed",  # migration 12
            "DROP TABLE accounts",  # migration 13
            "DROP TABLE audit_log",
            "DROP TRIGGER works_title_fts_rewrites",  # migration 15
            "DROP TABLE user_collections",  # migration 16
            "DROP TABLE openalex_account_requests",  # migration 18
            "DROP TABLE alerts",  # migration 19
            "DROP TABLE alert_results",
            "DROP TABLE alert_triage",
            "DROP TABLE feed_tokens",  # migration 20
            "DELETE FROM schema_migrations WHERE version >= 5",
        ):
            lib.conn.execute(statement)
    lib.close()
    lib = Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr())
    try:
        assert lib.work_vectors_pending  # the migration noted it, opening reads it
        assert lib.status()["stale_works"] == 2 and lib.status()["stale_chunks"] == 0
        assert [h.id for h in lib.search(QUERY, mode="vector", k=2).hits] == ["b", "a"]
        assert lib.reindex() == 0
        assert lib.status()["stale_works"] == 0
        assert [h.id for h in lib.search(QUERY, mode="vector", k=2).hits] == ["a", "b"]
    finally:
        lib.close()
    with Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr()) as again:
        assert not again.work_vectors_pending


def test_reindex_goes_by_batches_counts_progress_and_clears_the_pending_flag(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a model change: stale chunks first, then the works' own vectors, a batch of
    one at a time (each its own transaction), progress counting both up to the total;
    only a full pass clears the "made before work vectors" flag."""
    from prioris.ingest import reindex

    # an id that sorts first (capital) and a title that sorts last: the batches go on
    # from the last id (not its title), from the very first id
    records = [*RECORDS, {"_id": "C", "title": "zebra moss", "text": "moss lichen tundra"}]
    with Library.open(settings, embedder=FakeEmbedder(model_id="fake/a"), ocr=FakeOcr()) as old:
        old.import_records(records)
        chunks = old.status()["chunks"]
    monkeypatch.setattr(reindex, "BATCH", 1)
    lib = Library.open(settings, embedder=FakeEmbedder(model_id="fake/b"), ocr=FakeOcr())
    try:
        runner = lib.maintenance._reindexer()
        assert runner.pending() == chunks + 3
        with lib.lock:
            lib.conn.execute(
                "INSERT INTO index_state(key, value) VALUES ('work_vectors_pending', '1')"
            )
        assert reindex.work_vectors_pending(lib.conn)
        # only some works, twice over: those are embedded, the flag stays
        assert runner.works(["b", "b"]) == 1
        assert set(_own_vectors(lib, "a", "b", "C")) == {"b"}
        assert reindex.work_vectors_pending(lib.conn)
        assert runner.works(["b"]) == 0  # already current
        progress: list[tuple[int, int]] = []
        total = runner.pending()
        assert total == chunks + 2
        assert lib.reindex(on_progress=lambda done, of: progress.append((done, of))) == chunks
        assert progress == [(i, total) for i in range(1, total + 1)]
        assert runner.pending() == 0
        assert not reindex.work_vectors_pending(lib.conn)
        assert set(_own_vectors(lib, "a", "b", "C")) == {"a", "b", "C"}
        assert lib.status()["stale_chunks"] == 0
    finally:
        lib.close()


def test_reindexing_chosen_works_goes_by_whole_batches_and_counts_from_zero(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chosen works in batches of two: one embedding call and one progress step per batch
    (no batch overlapping the one before), counted from 0 of an unknown (0) total when the
    caller gives neither."""
    from prioris.ingest import reindex

    records = [{"_id": f"w{i}", "title": f"Moss {i}", "text": f"lichen {i}"} for i in range(4)]
    with Library.open(settings, embedder=FakeEmbedder(model_id="fake/a"), ocr=FakeOcr()) as old:
        old.import_records(records)
    monkeypatch.setattr(reindex, "BATCH", 2)
    embedder = FakeEmbedder(model_id="fake/b")
    calls: list[int] = []
    real = embedder.embed_passages
    monkeypatch.setattr(embedder, "embed_passages", lambda t: calls.append(len(t)) or real(t))
    with Library.open(settings, embedder=embedder, ocr=FakeOcr()) as lib:
        progress: list[tuple[int, int]] = []
        ids = [r["_id"] for r in records]
        runner = lib.maintenance._reindexer()
        assert runner.works(ids, on_progress=lambda d, of: progress.append((d, of))) == 4
        assert progress == [(2, 0), (4, 0)] and calls == [2, 2]
        assert set(_own_vectors(lib, *ids)) == set(ids)


def test_an_embedder_answering_too_few_vectors_stores_none_of_the_batch(settings: Any) -> None:
    """A model that returns fewer vectors than it was given texts is an error, and the
    batch's transaction stores nothing (no work gets another's vector)."""
    with Library.open(settings, embedder=FakeEmbedder(model_id="fake/a"), ocr=FakeOcr()) as old:
        old.import_records(RECORDS)

    class Short(FakeEmbedder):
        def embed_passages(self, texts: list[str]) -> np.ndarray:
            return super().embed_passages(texts)[:-1]

    with Library.open(settings, embedder=Short(model_id="fake/b"), ocr=FakeOcr()) as lib:
        with pytest.raises(ValueError):
            lib.maintenance._reindexer().works(["a", "b"])
        assert _own_vectors(lib, "a", "b") == {}


def test_the_cli_says_an_old_library_wants_a_reindex(
    data_dir: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import prioris.embedding
    from prioris.config import load_settings
    from prioris.interfaces.cli import main

    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    with Library.open(load_settings(), embedder=FakeEmbedder(), ocr=FakeOcr()) as lib:
        lib.import_records(RECORDS)
        with lib.lock:
            lib.conn.execute(
                "INSERT INTO index_state(key, value) VALUES ('work_vectors_pending', '1')"
            )
    assert main(["status"]) == 0
    assert "made before works had vectors of their own" in capsys.readouterr().err
    assert main(["reindex"]) == 0
    assert "re-embedded 0 chunks and 0 work vectors" in capsys.readouterr().out
    assert main(["status"]) == 0
    assert "made before" not in capsys.readouterr().err


def test_a_work_text_is_embedded_once_beside_its_chunks(settings: Any) -> None:
    texts: list[str] = []

    class Recording(FakeEmbedder):
        def embed_passages(self, batch: Any) -> np.ndarray:
            texts.extend(batch)
            return super().embed_passages(batch)

    with Library.open(settings, embedder=Recording(), ocr=FakeOcr()) as library:
        long_text = " ".join(f"Sentence {i} about peat bogs and carbon." for i in range(400))
        library.import_records(
            [
                {
                    "_id": "long",
                    "title": "Peat",
                    "abstract": "Bogs store carbon.",
                    "text": long_text,
                },
                {"_id": "short", "title": "Fens", "text": "Fens are wetlands."},
            ]
        )
        chunks = library.status()["chunks"]
        assert chunks > 2
        # every chunk, plus one work text for the long record; the short record's one
        # chunk is its work text, embedded once for both
        assert len(texts) == len(set(texts)) == chunks + 1
        assert set(_own_vectors(library, "long", "short")) == {"long", "short"}


def test_a_pdf_s_printed_abstract_is_its_work_s_and_its_vector_s_text(
    lib: Library, tmp_path: Any
) -> None:
    import paper_factory

    pdf = tmp_path / "lncs.pdf"
    pdf.write_bytes(paper_factory.single_column_lncs())
    result = lib.ingest_file(pdf)
    work = lib.get_work(result.id)
    printed = lib.metadata_records(result.id)["printed"]
    assert work.title == paper_factory.LNCS_TITLE
    assert work.abstract and work.abstract == printed["abstract"]
    assert work.abstract.startswith("Coral reefs face repeated marine heatwaves")
    expected = FakeEmbedder().embed_passages([work_text(work.title, work.abstract, None)])[0]
    np.testing.assert_allclose(_own_vectors(lib, result.id)[result.id], expected, atol=F16)
