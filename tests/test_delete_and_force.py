"""delete reports unknown ids but deletes the others; ingest --force replaces a stored parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.engines.sqlite.index import VEC_TABLE
from prioris.errors import NotFoundError
from prioris.library import Library

from backend_sql import chunk_text
from pdf_factory import make_text_pdf


def _two_records(library: Library) -> None:
    library.import_records(
        [
            {"_id": "a", "title": "First", "text": "alpha words"},
            {"_id": "b", "title": "Second", "text": "beta words"},
        ]
    )


def test_delete_each_deletes_the_known_and_reports_the_unknown(library: Library) -> None:
    _two_records(library)
    deleted, failed = library.delete_each(["a", "nope", "a"])
    assert deleted == ["a"]
    assert failed == [
        {"id": "nope", "error": {"code": "not_found", "message": "no work 'nope' in the library"}}
    ]
    assert [w["id"] for w in library.list_works()] == ["b"]
    with pytest.raises(NotFoundError):  # the all-or-nothing form is unchanged
        library.delete(["b", "nope"])
    assert [w["id"] for w in library.list_works()] == ["b"]


def test_cli_delete_with_one_unknown_id(capsys) -> None:  # type: ignore[no-untyped-def]
    from prioris.embedding.fake import FakeEmbedder
    from prioris.interfaces.cli import main

    with Library.open(
        embedder=FakeEmbedder(dim=384, model_id="prioris/all-MiniLM-L6-v2-int8")
    ) as lib:
        _two_records(lib)
    assert main(["delete", "a", "missing"]) == 1
    out, err = capsys.readouterr()
    assert out == "deleted a\n"
    assert err == "error [not_found]: no work 'missing' in the library\n"
    assert main(["delete", "b", "missing", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["deleted"] == ["b"] and data["failed"][0]["id"] == "missing"


def _chunk_rows(library: Library, work_id: str) -> list[tuple[str, int]]:
    rows = library.conn.execute(
        f"SELECT {chunk_text(library)}, page_start FROM chunks WHERE work_id = ? ORDER BY ordinal",
        (work_id,),
    ).fetchall()
    return [(r[0], r[1]) for r in rows]


def test_force_reextracts_and_replaces_the_stored_parse(library: Library, tmp_path: Path) -> None:
    pdf = make_text_pdf(tmp_path / "p.pdf", "Glacier melt", ["Glaciers retreat in warm summers."])
    first = library.ingest_file(pdf)
    assert first.status == "ingested" and first.ocr_pages == 0
    assert library.ingest_file(pdf).status == "skipped"

    again = library.ingest_file(pdf, ocr_mode="always", force=True)
    assert again.status == "ingested" and again.reason == "re-extracted"
    assert again.id == first.id and again.ocr_pages == 1 and again.chunks >= 1
    assert library.ocr.calls == 1  # type: ignore[attr-defined]
    rows = _chunk_rows(library, first.id)
    assert len(rows) == again.chunks and all("fake engine" in text for text, _ in rows)
    printed = library.conn.execute(
        "SELECT count(*) FROM work_records WHERE work_id = ? AND origin = 'printed'", (first.id,)
    ).fetchone()[0]
    assert printed == 1  # the new parse's printed metadata, replacing the old one
    doc = library.original(first.id)[1][0]
    assert doc["ocr_pages"] == 1 and doc["page_count"] == 1
    hits = library.search("fake engine", mode="fts").hits
    assert [h.id for h in hits] == [first.id]
    assert not library.search("retreat summers", mode="fts").hits  # old text gone
    status = library.status()
    assert status["works"] == 1 and status["documents"] == 1
    vectors = library.conn.execute(f"SELECT count(*) FROM {VEC_TABLE}").fetchone()[0]
    assert vectors == status["chunks"]  # no orphan vectors of the old parse


def test_cli_ingest_force(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from prioris.interfaces.cli import main

    pdf = make_text_pdf(tmp_path / "p.pdf", "Glacier melt", ["Glaciers retreat in summer. " * 5])
    assert main(["ingest", str(pdf)]) == 0
    assert "skipped" in (main(["ingest", str(pdf)]), capsys.readouterr().out)[1]
    assert main(["ingest", str(pdf), "--force", "--ocr", "never"]) == 0
    assert "replaced " in capsys.readouterr().out
