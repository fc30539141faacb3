"""Re-running an import: stored records are skipped without chunking or embedding them,
their metadata still merges, and a summary can keep counts only (flat memory)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from prioris.embedding.fake import FakeEmbedder
from prioris.engines.sqlite.connection import connect
from prioris.library import Library

from kill_midway import kill_after, stored_works


class CountingEmbedder(FakeEmbedder):
    """The fake model, counting what it was asked to tokenize and to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.tokenized = 0
        self.embedded = 0

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        self.tokenized += len(texts)
        return super().count_tokens(texts)

    def embed_passages(self, texts: Sequence[str]):  # type: ignore[no-untyped-def]
        self.embedded += len(texts)
        return super().embed_passages(texts)


def _records(count: int, repeat: int = 30) -> list[dict[str, object]]:
    return [
        {"_id": f"r{i}", "title": f"Record {i}", "text": f"Peat bogs store carbon {i}. " * repeat}
        for i in range(count)
    ]


def test_rerun_skips_stored_records_without_chunking_or_embedding_them(settings) -> None:  # type: ignore[no-untyped-def]
    embedder = CountingEmbedder()
    with Library.open(settings, embedder=embedder) as library:
        first = library.import_records(_records(5))
        assert first.ingested_count == 5 and len(first.ingested) == 5
        chunks = library.status()["chunks"]
        tokenized, embedded = embedder.tokenized, embedder.embedded
        # one chunk per record, whose text is also its work's: embedded once for both
        assert tokenized and embedded == chunks == 5

        # the same file again after a crash, one record new and one with a venue added
        records = _records(6)
        records[2]["venue"] = "Mires"
        again = library.import_records(records)
        assert (again.ingested_count, again.skipped_count) == (1, 5)
        # only the new one; a new venue re-embeds nothing (a new title or abstract would)
        assert embedder.embedded - embedded == again.ingested[0].chunks
        assert embedder.tokenized - tokenized == tokenized // 5  # the new record's only
        assert library.get_work("r2").venue == "Mires"  # metadata still merges
        assert library.status()["chunks"] == chunks + again.ingested[0].chunks


def test_a_record_stored_when_prepared_but_deleted_since_is_indexed_whole(library) -> None:  # type: ignore[no-untyped-def]
    record = _records(1)[0]
    library.import_records([record])
    chunks = library.status()["chunks"]
    prepared = library.pipeline.prepare_record(record)
    assert not prepared.chunked and prepared.chunks == []
    library.delete(["r0"])
    [result] = library.pipeline.store_each([prepared])
    assert result.status == "ingested" and result.chunks == chunks
    assert library.status()["chunks"] == chunks
    stored = library.conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0]
    assert stored == chunks  # embedded as well, not left stale


def test_counts_only_summary_holds_no_result_per_record(library) -> None:  # type: ignore[no-untyped-def]
    summary = library.import_records(_records(4), keep_results=False)
    assert (summary.ingested_count, summary.ingested, summary.skipped) == (4, [], [])
    summary = library.import_records(
        [*_records(4), {"_id": "bad", "year": "x"}], keep_results=False
    )
    assert (summary.skipped_count, summary.skipped, len(summary.failed)) == (4, [], 1)


def _import(data_dir: Path, file: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PRIORIS_MCP_DATA_DIR": str(data_dir)}
    return subprocess.Popen(
        [sys.executable, "-m", "prioris", "import", str(file)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_kill_minus_nine_during_import_then_rerun_stores_each_record_once(
    tmp_path: Path,
) -> None:
    """The real CLI and model: SIGKILL once some records are stored, then the same command."""
    count = 120
    file = tmp_path / "records.jsonl"
    lines = [json.dumps(r) + "\n" for r in _records(count, repeat=8)]  # one chunk each
    file.write_text("".join(lines), encoding="utf-8")
    data_dir = tmp_path / "lib"
    db = data_dir / "library.sqlite"
    process = _import(data_dir, file)
    kill_after(process, db, 16, timeout=300)
    partial = stored_works(db)
    assert 0 < partial < count

    rerun = _import(data_dir, file)
    out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err
    assert out.strip() == f"{count - partial} imported, {partial} skipped, 0 failed"
    conn = connect(db, migrate=False)
    try:
        assert conn.execute("SELECT count(*) FROM works").fetchone()[0] == count
        duplicates = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM chunks GROUP BY work_id, ordinal "
            "HAVING count(*) > 1)"
        ).fetchone()[0]
        assert duplicates == 0
        chunks = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0] == chunks
        bare = "SELECT count(*) FROM works WHERE id NOT IN (SELECT work_id FROM chunks)"
        assert conn.execute(bare).fetchone()[0] == 0
    finally:
        conn.close()
