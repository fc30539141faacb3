"""``prioris collection ...`` and ``prioris tag ...`` through ``main``: works named by ids
(any alias) or a search, JSONL labels, the listing as text and JSON, errors with their
codes, and a BibTeX re-import that keeps everything the user added (the label and the work
whose entry left the file)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import prioris.embedding
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main


@pytest.fixture(autouse=True)
def _fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's library with the fake embedder: these tests are about labels."""
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    monkeypatch.setenv("PRIORIS_MCP_OCR", "never")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def stocked(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    records = tmp_path / "r.jsonl"
    rows = [
        {
            "_id": "a",
            "title": "Glacier retreat",
            "text": "glaciers retreat in the Alps",
            "collections": ["Alps / Ice"],
            "tags": ["ice"],
            "metadata": {},
        },
        {"_id": "b", "title": "Glacier flow", "text": "glaciers flow downhill"},
        {"_id": "c", "title": "Desert dunes", "text": "sand dunes migrate"},
    ]
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run(capsys, "import", str(records))
    assert code == 0, err
    return records


def test_collections_and_tags_from_the_command_line(
    capsys: pytest.CaptureFixture[str], stocked: Path
) -> None:
    assert as_json(capsys, "collection", "create", "Reading")["collection"] == "Reading"
    code, out, _ = run(capsys, "collection", "create", "Week 1", "--parent", "reading")
    assert code == 0 and out.strip() == "created collection 'Reading / Week 1'"
    code, _, err = run(capsys, "collection", "create", "week 1", "--parent", "Reading")
    assert code == 2 and "error [invalid_request]" in err and "exists already" in err

    # ids, and a search's best works
    added = as_json(capsys, "collection", "add", "Week 1", "a", "b")
    assert added == {"collection": "Reading / Week 1", "added": ["a", "b"], "already": []}
    code, _, err = run(capsys, "collection", "add", "Week 1", "a", "nope")
    assert code == 1 and "error [not_found]: no work 'nope'" in err
    tagged = as_json(
        capsys, "tag", "add", "Cold", "--search", "glaciers", "--mode", "fts", "-k", "5"
    )
    assert sorted(tagged["added"]) == ["a", "b"]
    code, _, err = run(capsys, "tag", "add", "Cold", "a", "--search", "glaciers")
    assert code == 2 and "not both" in err
    code, _, err = run(capsys, "tag", "add", "Cold")
    assert code == 2 and "by ids or by a search" in err

    listed = as_json(capsys, "collection", "list")
    assert listed["collections"] == [
        {"path": "Alps", "works": 1, "origins": ["import"], "made_here": False},
        {"path": "Alps / Ice", "works": 1, "origins": ["import"], "made_here": False},
        {"path": "Reading", "works": 2, "origins": ["user"], "made_here": True},
        {"path": "Reading / Week 1", "works": 2, "origins": ["user"], "made_here": True},
    ]
    code, out, _ = run(capsys, "collection", "list")
    assert "     2  Reading / Week 1  (user)" in out.splitlines()

    # the filters of search and list see them
    hits = as_json(
        capsys, "search", "glaciers", "--mode", "fts", "--tag", "cold", "--collection", "week 1"
    )
    assert {h["id"] for h in hits["hits"]} == {"a", "b"}
    assert [w["id"] for w in as_json(capsys, "list", "--tag", "ICE", "--tag", "cold")["works"]] == [
        "a"
    ]

    code, out, _ = run(capsys, "tag", "remove", "ice", "a", "b")
    assert code == 0 and out.startswith("#ice: 1 work(s) removed (a), 1 did not have it")
    assert as_json(capsys, "collection", "rename", "Week 1", "Week one")["renamed_to"] == (
        "Reading / Week one"
    )
    removed = as_json(capsys, "collection", "remove", "week one", "b")
    assert removed["removed"] == ["b"]
    code, out, _ = run(capsys, "collection", "delete", "Reading")
    assert code == 0 and out.strip() == "deleted collection 'Reading' (1 work(s) kept)"
    code, _, err = run(capsys, "collection", "delete", "Reading")
    assert code == 1 and "error [not_found]: no collection 'Reading'" in err
    shown = as_json(capsys, "show", "a")
    assert shown["collections"] == ["Alps / Ice"] and shown["tags"] == ["Cold"]


def test_a_bibtex_reimport_keeps_what_the_user_added(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bib = tmp_path / "refs.bib"
    kelp = "@article{kelp2020, title = {Kelp forests}, year = {2020}, keywords = {ocean, kelp}}\n"
    moss = "@article{moss2019, title = {Moss carpets}, year = {2019}, keywords = {moss}}\n"
    bib.write_text(kelp + moss)
    assert main(["import", str(bib)]) == 0
    capsys.readouterr()
    # the user's labels, on works named by their citation key
    assert as_json(capsys, "tag", "add", "to-read", "bibtex:kelp2020", "bibtex:moss2019")["added"]
    as_json(capsys, "collection", "create", "Review")
    as_json(capsys, "collection", "add", "Review", "bibtex:kelp2020")
    removed = as_json(capsys, "tag", "remove", "ocean", "bibtex:kelp2020")
    assert removed["removed"] == [] and removed["kept"][0]["origins"] == ["bibtex"]

    # the file changes: kelp's keywords, and moss's entry is gone
    bib.write_text(kelp.replace("ocean, kelp", "kelp, algae"))
    assert main(["import", str(bib)]) == 0
    capsys.readouterr()
    kelp_id = as_json(capsys, "show", "bibtex:kelp2020")
    assert kelp_id["tags"] == ["algae", "kelp", "to-read"]
    assert kelp_id["collections"] == ["Review"]
    # the entry left the file, but the user had tagged its work: it stays, with the tag
    moss_shown = as_json(capsys, "list", "--tag", "to-read")
    assert sorted(w["title"] for w in moss_shown["works"]) == ["Kelp forests", "Moss carpets"]


def test_collection_help_runs_in_a_fresh_process(tmp_path: Path) -> None:
    """The commands are registered where ``prioris --help`` lists them."""
    done = subprocess.run(
        [sys.executable, "-m", "prioris", "--help"], capture_output=True, text=True, check=True
    )
    assert "collection" in done.stdout and "tag" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "prioris", "collection", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for action in ("create", "rename", "delete", "list", "add", "remove"):
        assert action in done.stdout
