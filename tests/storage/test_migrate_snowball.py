"""``migrate-to`` carries the dismissed snowball candidates, both ways between engines,
and a resumed copy adds none twice."""

from __future__ import annotations

from pathlib import Path

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library, migrate_library


def _dismissed(library: Library) -> list[tuple[str, str, str]]:
    rows = library.conn.execute(
        "SELECT key, title, dismissed_at FROM snowball_dismissed ORDER BY key"
    ).fetchall()
    return [tuple(r) for r in rows]


def test_dismissed_candidates_go_over(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite"
    settings = load_settings({}).with_library(source)
    with Library.open(
        settings, embedder=FakeEmbedder(), now=lambda: "2026-01-02T03:04:05+00:00"
    ) as lib:
        lib.import_records([{"_id": "a", "title": "A reef paper", "text": "reefs"}])
        lib.dismiss_candidate("doi:10.1038/nature21707", "Global warming")
        lib.dismiss_candidate("title:coral symbiont shuffling|2008", "Coral symbiont shuffling")
        before = _dismissed(lib)
    assert len(before) == 2
    migrate_library(settings, pg_url)
    migrate_library(settings, pg_url)  # resumed (nothing left to copy): still once each
    with Library.open(load_settings({}).with_library(pg_url), embedder=FakeEmbedder()) as copied:
        assert _dismissed(copied) == before
        answer = copied.snowball(all=True, offline=True)
        assert answer["candidates"] == []
    back = tmp_path / "back.sqlite"
    migrate_library(load_settings({}).with_library(pg_url), back)
    with Library.open(load_settings({}).with_library(back), embedder=FakeEmbedder()) as returned:
        assert _dismissed(returned) == before
