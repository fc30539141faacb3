"""``--collection`` and ``--tag`` on search, list and export, and a work's labels in
``show``, end to end through ``main`` (the real model; labels written as the sync will)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.config import load_settings
from prioris.engines import open_storage
from prioris.interfaces.cli import main
from prioris.storage import labels as label_store


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def labelled(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    records = tmp_path / "r.jsonl"
    records.write_text(
        "".join(
            json.dumps({"_id": w, "title": f"Glacier paper {w}", "text": f"Glaciers melt {w}."})
            + "\n"
            for w in "abc"
        )
    )
    code, _, _ = run(capsys, "import", str(records))
    assert code == 0
    storage = open_storage(load_settings().library_location)
    conn = storage.connect()
    try:
        conn.execute("BEGIN IMMEDIATE")
        for work_id, collections, tags in (
            ("a", ["Alps / Glaciers"], ["ice", "to-read"]),
            ("b", ["Alps"], ["Ice"]),
            ("c", ["Andes"], []),
        ):
            label_store.set_labels(conn, work_id, "zotero", collections=collections, tags=tags)
        conn.execute("COMMIT")
    finally:
        conn.close()
        storage.close()


def test_search_list_export_filter_and_show_prints_labels(
    capsys: pytest.CaptureFixture[str], labelled: None
) -> None:
    code, out, _ = run(capsys, "search", "glaciers", "--mode", "fts", "--tag", "ICE", "--json")
    assert code == 0 and {h["id"] for h in json.loads(out)["hits"]} == {"a", "b"}
    code, out, _ = run(
        capsys, "search", "glaciers", "--collection", "glaciers", "--collection", "Andes", "--json"
    )
    assert code == 0 and {h["id"] for h in json.loads(out)["hits"]} == {"a", "c"}
    code, out, err = run(capsys, "search", "glaciers", "--tag", "ice", "--tag", "to-reed")
    assert code == 0 and "no hits" in out and "did you mean 'to-read'?" in err

    code, out, _ = run(capsys, "list", "--collection", "Alps", "--json")
    listed = json.loads(out)
    assert code == 0 and sorted(w["id"] for w in listed["works"]) == ["a", "b"]
    assert next(w for w in listed["works"] if w["id"] == "a")["tags"] == ["ice", "to-read"]
    code, out, err = run(capsys, "list", "--collection", "Alpes")
    assert code == 0 and out == "" and "no collection 'Alpes'; did you mean 'Alps'" in err

    code, out, _ = run(capsys, "export", "--format", "jsonl", "--tag", "ice", "--tag", "to-read")
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in records] == ["a"]
    assert records[0]["collections"] == ["Alps / Glaciers"]
    code, out, _ = run(capsys, "export", "a", "c", "--format", "bibtex", "--collection", "Andes")
    assert code == 0 and out.count("@") == 1 and "Glacier paper c" in out

    code, out, _ = run(capsys, "show", "a", "--json")
    shown = json.loads(out)
    assert shown["collections"] == ["Alps / Glaciers"] and shown["tags"] == ["ice", "to-read"]
    code, out, _ = run(capsys, "show", "a")
    assert "collections: Alps / Glaciers" in out and "tags: ice; to-read" in out
    code, out, _ = run(capsys, "show", "c")
    assert "collections: Andes" in out and "tags:" not in out


def test_the_flags_are_documented_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("search", "list", "export"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "--collection NAME" in out and "--tag NAME" in out, command
