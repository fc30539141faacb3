"""The real fixture papers (``../shared/fixtures/pdfmeta`` and ``pdfs/good``) ingested on
each engine: no control character in any stored passage, page or Markdown, TeX spacing
accents composed, and a name printed with a spacing accent found by its plain spelling
and by its accented one in full-text search."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from prioris.text_clean import has_control

from backend_sql import chunk_text
from conftest import shared_path


@pytest.fixture
def settings(backend_settings):  # type: ignore[no-untyped-def]
    """Every test here runs on SQLite and on PostgreSQL."""
    return backend_settings


# a spacing accent touching a Latin letter, as TeX fonts print them ("O˘guz", "Franc¸ois")
_UNCOMPOSED = re.compile(
    "[A-Za-z][\u00a8\u00b4\u02c6\u02dc\u02c7\u02da\u02d8\u02d9\u02dd\u00b8\u02db][A-Za-z]"
)


def _papers() -> list[Path]:
    pdfmeta = shared_path("fixtures", "pdfmeta", "pdfs")
    good = shared_path("fixtures", "pdfs", "good")
    return sorted(pdfmeta.glob("*.pdf")) + sorted(good.glob("*.pdf"))


def test_real_papers_are_stored_clean_and_found_by_plain_names(library) -> None:  # type: ignore[no-untyped-def]
    papers = _papers()
    summary = library.ingest_paths([str(p) for p in papers], ocr_mode="never")
    by_file = {Path(r.path).name: r.id for r in summary.ingested if r.path}
    assert len(summary.ingested) >= 18
    conn: Any = library.conn
    texts = [str(r[0]) for r in conn.execute(f"SELECT {chunk_text(library)} FROM chunks")]
    markdowns = [str(r[0] or "") for r in conn.execute("SELECT markdown FROM works")]
    assert len(texts) > 500
    assert [t[:80] for t in texts if has_control(t)] == []
    assert [m[:80] for m in markdowns if has_control(m)] == []
    spans = conn.execute(
        "SELECT w.markdown, p.char_start, p.char_end FROM pages p JOIN works w ON w.id = p.work_id"
    ).fetchall()
    assert spans and not any(has_control(str(md)[start:end]) for md, start, end in spans)
    assert [m.group(0) for t in texts for m in [_UNCOMPOSED.search(t)] if m] == []

    pedersen = by_file["scienceparse_pedersen04.pdf"]  # Zoltán Gyöngyi, printed "Gy¨ongyi"
    wang = by_file["grobid_Wang-paperAVE2008.pdf"]  # Günter Neumann
    assert any("Gy\u00f6ngyi" in t for t in texts)
    for query, expected in (
        ("Gyongyi", pedersen),
        ("Gy\u00f6ngyi", pedersen),
        ("Zoltan Gyongyi", pedersen),
        ("Gunter Neumann", wang),
        ("G\u00fcnter Neumann", wang),
    ):
        hits = library.search(query, mode="fts", k=5).hits
        assert expected in [h.id for h in hits][:2], (query, [h.id for h in hits])
