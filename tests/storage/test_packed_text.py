"""Passage text stored packed on SQLite: read back the same everywhere, the FTS5 index
consistent with it, old unpacked libraries readable and packed by ``reindex --compact``."""

from __future__ import annotations

import json
import random
import threading
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prioris.engines.sqlite import compact as compact_module
from prioris.engines.sqlite import textpack
from prioris.errors import DamagedLibraryError
from prioris.interfaces.cli import main
from prioris.library import Library
from prioris.models import Work
from prioris.storage import browse, work_vectors
from prioris.storage import works as work_store

WORDS = (
    "coral reef bleaching heatwave lattice hadron tau protein ageing brain sparse attention "
    "window retrieval passage index deflate entropy ocean salinity kinase receptor"
).split()


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)) + " ünïcode — “quotes” 10⁻³."


def _check(conn: Any) -> None:
    """FTS5's own check: the index against the content it reads through the view."""
    conn.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('integrity-check', 1)")


def _stored(conn: Any) -> dict[int, tuple[str, str]]:
    """``{chunk id: (SQLite type of the stored value, text read through prioris_text)}``."""
    rows = conn.execute("SELECT id, typeof(text), prioris_text(text) FROM chunks")
    return {r[0]: (r[1], r[2]) for r in rows}


def _records(count: int, seed: int = 3) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [
        {"_id": f"w{i}", "title": f"Work {i}", "text": _text(rng, rng.randint(40, 120))}
        for i in range(count)
    ]


def test_pack_round_trips_and_keeps_short_or_incompressible_text_as_text() -> None:
    rng = random.Random(1)
    for _ in range(50):
        text = _text(rng, rng.randint(20, 400))
        packed = textpack.pack(text)
        assert isinstance(packed, bytes) and len(packed) < len(text.encode())
        assert textpack.unpack(packed) == text
    assert textpack.pack("Short note.") == "Short note."
    noise = "".join(chr(rng.randint(0x4E00, 0x9FFF)) for _ in range(200))  # CJK, no repeats
    assert textpack.unpack(textpack.pack(noise)) == noise
    assert textpack.unpack("plain") == "plain" and textpack.unpack(None) is None
    assert textpack.unpack(memoryview(textpack.pack("x" * 100))) == "x" * 100


def test_a_value_of_an_unknown_format_is_refused_not_shown_as_garbage() -> None:
    with pytest.raises(DamagedLibraryError, match="newer Prioris"):
        textpack.unpack(b"\x07" + zlib.compress(b"text"))
    with pytest.raises(DamagedLibraryError, match="format byte none"):
        textpack.unpack(b"")


def test_new_passages_are_packed_and_read_back_the_same_everywhere(library: Library) -> None:
    records = _records(40)
    library.import_records([*records, {"_id": "tiny", "title": "Tiny", "text": "Short."}])
    conn = library.conn
    stored = _stored(conn)
    kinds = {kind for kind, _ in stored.values()}
    assert kinds == {"blob", "text"}  # the long ones packed, "Short." kept as it is
    texts = [text for _, text in stored.values()]
    assert all(any(r["text"] in t for t in texts) for r in records)
    assert any(t.endswith("Short.") for t in texts)
    _check(conn)
    packed = sum(len(v) for (v,) in conn.execute("SELECT text FROM chunks WHERE id > 0"))
    plain = sum(len(r["text"].encode()) for r in records)
    assert packed < 0.75 * plain  # random words from a short list pack well
    # a search hit's snippet, the chunk lookup and FTS all see the text
    hit = library.search("coral heatwave", mode="fts", chunks=True).hits[0]
    assert hit.snippet and "ünïcode" in browse.get_chunk(conn, hit.chunk_id)["text"]
    assert library.search("ünïcode", mode="fts").hits


def test_a_title_change_reindexes_packed_passages(library: Library) -> None:
    library.import_records([*_records(4), {"_id": "w4", "title": "", "text": "Catalysis " * 20}])
    conn = library.conn
    conn.execute("BEGIN IMMEDIATE")
    work_store.upsert_work(conn, Work(id="w4", title="Zeolite catalysis", source="import"), "now")
    conn.execute("COMMIT")
    _check(conn)
    assert [h.id for h in library.search("zeolite", mode="fts").hits] == ["w4"]
    library.delete(["w4"])
    _check(conn)
    assert library.search("zeolite", mode="fts").hits == []


def _hits(library: Library, query: str) -> list[dict[str, Any]]:
    return [h.to_dict() for h in library.search(query, mode="fts", k=20, chunks=True).hits]


def _unpack_all(conn: Any) -> None:
    """Store every passage as TEXT and every work vector as float32, as a release before
    packing did."""
    wide = [
        (np.frombuffer(bytes(blob), dtype="<f2").astype("<f4").tobytes(), work_id)
        for work_id, blob in conn.execute("SELECT work_id, embedding FROM work_vectors")
    ]
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("UPDATE chunks SET text = prioris_text(text)")
    conn.executemany("UPDATE work_vectors SET embedding = ? WHERE work_id = ?", wide)
    conn.execute("COMMIT")


def _work_vectors(library: Library) -> dict[str, np.ndarray]:
    ids = [r[0] for r in library.conn.execute("SELECT id FROM works")]
    return work_vectors.read(library.conn, ids)


def test_work_vectors_are_stored_as_float16_and_old_float32_rows_still_read(
    library: Library,
) -> None:
    library.import_records(_records(20))
    conn = library.conn
    dim = library.embedder.dim
    lengths = {r[0] for r in conn.execute("SELECT length(embedding) FROM work_vectors")}
    assert lengths == {2 * dim}
    halves = _work_vectors(library)
    _unpack_all(conn)
    wholes = _work_vectors(library)
    assert set(halves) == set(wholes) and len(wholes) == 20
    for work_id, vector in wholes.items():
        assert vector.dtype == halves[work_id].dtype == np.float32
        assert np.array_equal(vector, halves[work_id])  # float16 widened exactly
    rng = np.random.default_rng(2)
    vector = rng.normal(size=dim).astype(np.float32)
    vector /= np.linalg.norm(vector)
    back = work_vectors.unpack(work_vectors.pack(vector), dim)
    assert abs(float(back @ vector) - 1.0) < 1e-3


def test_compact_packs_an_old_library_resumably_and_the_file_shrinks(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_records(_records(600, seed=9))
    conn = library.conn
    _unpack_all(conn)
    conn.execute("VACUUM")
    before = _stored(conn)
    assert {kind for kind, _ in before.values()} == {"text"}
    vectors = _work_vectors(library)
    queries = ["coral reef", "tau protein ageing", "deflate entropy window"]
    answers = {q: _hits(library, q) for q in queries}
    _check(conn)

    monkeypatch.setattr(compact_module, "BATCH_ROWS", 100)
    seen: list[int] = []

    def stop_after_two_batches(done: int, total: int) -> None:
        seen.append(done)
        if len(seen) == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        library.compact(on_progress=stop_after_two_batches)
    halfway = _stored(conn)
    assert sum(kind == "blob" for kind, _ in halfway.values()) == 200  # two whole batches
    assert {i: t for i, (_, t) in halfway.items()} == {i: t for i, (_, t) in before.items()}
    _check(conn)

    report = library.compact()
    assert report["packed"] == len(before) - 200 and report["vacuumed"]
    assert report["work_vectors"] == 600
    halved = _work_vectors(library)
    assert set(halved) == set(vectors)
    assert all(np.allclose(halved[w], v, atol=1e-3) for w, v in vectors.items())
    assert report["bytes_after"] < 0.8 * report["bytes_before"]
    after = _stored(conn)
    assert {kind for kind, _ in after.values()} == {"blob"}
    assert {i: t for i, (_, t) in after.items()} == {i: t for i, (_, t) in before.items()}
    _check(conn)
    for query, answer in answers.items():
        assert _hits(library, query) == answer
    again = library.compact()
    assert again["packed"] == again["work_vectors"] == 0 and not again["vacuumed"]


def test_compact_lets_other_writers_of_the_process_in_between_batches(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_records(_records(300, seed=4))
    _unpack_all(library.conn)
    monkeypatch.setattr(compact_module, "BATCH_ROWS", 50)
    imported = threading.Event()

    def import_between(done: int, total: int) -> None:
        if done == 100 and not imported.is_set():
            worker = threading.Thread(
                target=library.import_records,
                args=([{"_id": "late", "title": "Late", "text": "Kinase receptor " * 10}],),
            )
            worker.start()
            worker.join(timeout=30)
            imported.set()

    library.compact(on_progress=import_between)
    assert imported.is_set() and library.search("kinase receptor", mode="fts").hits
    assert {kind for kind, _ in _stored(library.conn).values()} == {"blob"}
    _check(library.conn)


def test_reindex_compact_on_the_command_line(
    data_dir: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import prioris.embedding
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder

    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())

    library = Library.open(load_settings(), embedder=FakeEmbedder())
    library.import_records(_records(50, seed=5))
    _unpack_all(library.conn)
    library.close()
    assert main(["reindex", "--compact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["compact"]["packed"] == out["compact"]["work_vectors"] == 50
    assert out["compact"]["vacuumed"] is True
    assert main(["reindex", "--compact"]) == 0
    assert "packed 0 passages and 0 work vectors; the library takes" in capsys.readouterr().out
