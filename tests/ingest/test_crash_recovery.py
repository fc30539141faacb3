"""kill -9 in the middle of a batch: the file stays sound and a re-run finishes the rest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from prioris.engines.sqlite.connection import connect

from kill_midway import kill_after
from pdf_factory import make_text_pdf

N_FILES = 72  # about 1.5 s of commits on this machine: room to be killed midway under load


def _ingest(folder: Path, data_dir: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PRIORIS_MCP_DATA_DIR": str(data_dir), "PRIORIS_MCP_OCR": "never"}
    return subprocess.Popen(
        [sys.executable, "-m", "prioris", "ingest", str(folder), "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def test_kill_minus_nine_leaves_whole_documents_and_rerun_completes(tmp_path: Path) -> None:
    folder = tmp_path / "pdfs"
    for i in range(N_FILES):
        body = f"Document {i} discusses topic {i} at length. " * 120
        make_text_pdf(folder / f"doc{i:02}.pdf", f"Paper number {i}", [body, body, body])
    data_dir = tmp_path / "lib"
    db = data_dir / "library.sqlite"

    process = _ingest(folder, data_dir)
    kill_after(process, db, 3, timeout=120)

    conn = connect(db, migrate=False)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    partial = conn.execute("SELECT count(*) FROM works").fetchone()[0]
    assert 3 <= partial < N_FILES
    for (work_id,) in conn.execute("SELECT id FROM works").fetchall():
        chunks = conn.execute("SELECT count(*) FROM chunks WHERE work_id = ?", (work_id,))
        n_chunks = chunks.fetchone()[0]
        n_vec = conn.execute(
            "SELECT count(*) FROM chunks_vec WHERE work_id = ?", (work_id,)
        ).fetchone()[0]
        n_pages = conn.execute("SELECT count(*) FROM pages WHERE work_id = ?", (work_id,))
        assert n_chunks > 0 and n_vec == n_chunks and n_pages.fetchone()[0] == 3
    fts = conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0]
    assert fts == conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    conn.close()

    process = _ingest(folder, data_dir)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err.decode()
    summary = json.loads(out)
    assert len(summary["skipped"]) == partial
    assert len(summary["ingested"]) == N_FILES - partial
    conn = connect(db, migrate=False)
    assert conn.execute("SELECT count(*) FROM works").fetchone()[0] == N_FILES
    assert conn.execute("SELECT count(*) FROM documents").fetchone()[0] == N_FILES
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
