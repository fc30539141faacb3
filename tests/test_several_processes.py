"""Several processes on one library serve one truth (issue 24).

A serving process (the web app, the MCP server) keeps copies of what it searches: the
in-memory vector copy and the BM25 postings on SQLite, statistics and postings on
PostgreSQL. What another process writes must be found by the serving process's next
query, without a restart and without waiting: every cache is checked against what the
database says (a counter or a record written in the writer's own transaction), never told
by the process that wrote. Here the writer is a separate Python process, so nothing it
does can reach the reader's memory.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.search import vector_copy

MODES = ("fts", "vector", "hybrid")
WRITER = """
import json, sys
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library

job = json.loads(sys.argv[1])
settings = load_settings()
if job["url"]:
    settings = settings.with_library(job["url"])
with Library.open(settings, embedder=FakeEmbedder()) as library:
    if job["import"]:
        library.import_records(job["import"])
    if job["delete"]:
        library.delete(job["delete"])
    if job["title"]:
        library.edit_work(job["title"][0], {"title": job["title"][1]})
"""


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest) -> str | None:
    return request.getfixturevalue("pg_url") if request.param == "postgresql" else None


def _write(location: str | None, **job: Any) -> None:
    """Run one write in a process of its own (committed when it exits)."""
    job = {"url": location, "import": None, "delete": None, "title": None, **job}
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[1] / "src")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", WRITER, json.dumps(job)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr


def _records(count: int) -> list[dict[str, Any]]:
    return [
        {
            "_id": f"w{i}",
            "title": f"Peat study {i}",
            "text": f"peat bogs store carbon in layer {i % 9} of sphagnum moss {i % 4}",
        }
        for i in range(count)
    ]


def _reader(settings: Any, location: str | None) -> Library:
    if location is not None:
        settings = settings.with_library(location)
    return Library.open(settings, embedder=FakeEmbedder())


def _found(library: Library, query: str) -> dict[str, set[str]]:
    """Each mode's works for the query, asking for more hits than the library holds (so a
    complete answer holds every match, and a stale copy shows as a missing one)."""
    return {mode: {h.id for h in library.search(query, mode=mode, k=100).hits} for mode in MODES}


def _warm(library: Library) -> None:
    """Make a reader answer from its own copies (vectors, postings), as a serving process
    does."""
    backend = library.searcher.backend
    for _ in range(3):
        for mode in MODES:
            library.search("peat carbon", mode=mode, k=10)
    cache = getattr(backend, "vector_cache", None)
    if cache is not None:
        assert cache.wait_until_loaded(60)
        assert cache._snapshot is not None  # the in-memory copy answers
    postings = getattr(backend, "postings", None)
    if postings is not None:
        assert postings.wait_until_built(60)
        answered = postings.answered
        library.search("peat carbon", mode="fts", k=10)
        assert postings.answered == answered + 1  # the postings snapshot answers


def test_a_write_in_another_process_is_searchable_at_once(
    location: str | None, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PRIORIS_MCP_POSTINGS_MIN_CHUNKS", "1")  # SQLite: postings from the start
    monkeypatch.setenv("PRIORIS_MCP_PG_POSTINGS_MIN_CHUNKS", "1")  # PostgreSQL: its table
    monkeypatch.setenv("PRIORIS_MCP_PG_VECTOR_COPY_MIN_CHUNKS", "1")  # PostgreSQL: its copy
    monkeypatch.setattr(vector_copy, "MIN_VECTORS", 10)  # and the in-memory vector copy
    from prioris.config import load_settings

    settings = load_settings()
    _write(location, **{"import": _records(40)})
    with _reader(settings, location) as reader:
        _warm(reader)
        assert all(len(works) == 40 for works in _found(reader, "peat").values())

        # another process adds a work: the reader's next query has it, in every mode
        new = {"_id": "fresh", "title": "Quartzite tundra", "text": "quartzite tundra soils"}
        # the reader's very next query has it (no refresh interval to wait out)
        _write(location, **{"import": [new]})
        found = _found(reader, "quartzite tundra")
        assert {mode: "fresh" in works for mode, works in found.items()} == dict.fromkeys(
            MODES, True
        )

        # ... retitles one: the new title is searched (the old one stays in the text, whose
        # Markdown starts with the title it was imported with)
        _write(location, title=["w3", "Glacier retreat"])
        assert {mode: "w3" in works for mode, works in _found(reader, "glacier").items()} == {
            "fts": True,
            "vector": True,  # the title is part of what the chunk's vector was made from
            "hybrid": True,
        }

        # ... deletes two: neither is returned again, by any mode
        _write(location, delete=["fresh", "w5"])
        for works in _found(reader, "peat quartzite tundra").values():
            assert "fresh" not in works and "w5" not in works
        counts = {mode: len(works) for mode, works in _found(reader, "peat").items()}
        assert counts == dict.fromkeys(MODES, 39)
