"""``prioris snowball``, ``dismiss`` and ``graph`` end to end through ``main`` (the fake
model; the library built with reference rows as the reference reader would leave them)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from typing import Any

import pytest

import prioris.embedding
import snowball_helpers as h
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.interfaces.cli import main
from prioris.library import Library

GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    with Library.open(load_settings(), embedder=FakeEmbedder()) as library:
        h.build(library)
        with library.lock:  # a title that XML must escape, and a control character
            library.conn.execute("BEGIN IMMEDIATE")
            library.conn.execute(
                "UPDATE works SET title = ? WHERE id = 'lib3'",
                ('Ocean <acidification> & "calcifying" organisms\x01',),
            )
            library.conn.execute("COMMIT")


def test_snowball_readable_and_json(capsys: pytest.CaptureFixture[str], built: None) -> None:
    code, out, err = run(capsys, "snowball", "--all", "--offline")
    assert code == 0, err
    lines = out.splitlines()
    assert (
        lines[0].startswith("  1. ") and "Global warming and recurrent mass bleaching" in lines[0]
    )
    assert "cited by 2 of your 3 seed(s)" in lines[1]
    assert "upload the PDF yourself" in lines[2] and "key: doi:10.1038/nature21707" in lines[2]
    assert "fetch arxiv:2101.00001" in out
    assert lines[-1].startswith("3 of 3 candidate(s) from 3 seed(s); the local graph only")
    assert "offline" in err
    code, out, _ = run(capsys, "snowball", "s1", "--offline", "--limit", "1", "--json")
    data = json.loads(out)
    assert code == 0 and data["seeds"] == ["s1"] and len(data["candidates"]) == 1
    assert set(data) >= {"seeds", "requests", "budget_left", "candidates"}
    assert set(data["candidates"][0]) >= {
        "title",
        "authors",
        "year",
        "ids",
        "score",
        "why",
        "fetch_route",
    }


def test_snowball_bad_input(capsys: pytest.CaptureFixture[str], built: None) -> None:
    code, _, err = run(capsys, "snowball", "--offline")
    assert code == 2 and "invalid_request" in err and "--all" in err
    code, _, err = run(capsys, "snowball", "--all", "--limit", "0")
    assert code == 2
    code, _, err = run(capsys, "snowball", "--collection", "Nowhere", "--offline")
    assert code != 0 and "not_found" in err
    code, _, err = run(capsys, "dismiss", "file:x")
    assert code == 2 and "invalid_request" in err


def test_dismiss_and_undo(capsys: pytest.CaptureFixture[str], built: None) -> None:
    code, out, _ = run(capsys, "dismiss", "doi:10.1038/nature21707")
    assert code == 0 and "dismissed" in out
    _, out, _ = run(capsys, "snowball", "--all", "--offline", "--json")
    assert "doi:10.1038/nature21707" not in [c["key"] for c in json.loads(out)["candidates"]]
    code, out, _ = run(capsys, "dismiss", "doi:10.1038/nature21707", "--undo", "--json")
    assert code == 0 and json.loads(out)["found"] is True


def test_snowball_needs_an_existing_library(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "snowball", "--all")
    assert code == 2 and "no library" in err


def _graphml(text: str) -> Any:
    root = ET.fromstring(text)
    assert root.tag == f"{GRAPHML}graphml"
    graph = root.find(f"{GRAPHML}graph")
    assert graph is not None and graph.get("edgedefault") == "directed"
    keys = {k.get("id") for k in root.findall(f"{GRAPHML}key")}
    nodes = {n.get("id"): n for n in graph.findall(f"{GRAPHML}node")}
    edges = graph.findall(f"{GRAPHML}edge")
    for edge in edges:  # every edge joins declared nodes, every data names a declared key
        assert edge.get("source") in nodes and edge.get("target") in nodes
    for data in root.iter(f"{GRAPHML}data"):
        assert data.get("key") in keys
    return nodes, edges


def test_graph_graphml_and_json(capsys: pytest.CaptureFixture[str], built: None) -> None:
    code, out, _ = run(capsys, "graph")
    assert code == 0
    nodes, edges = _graphml(out)
    assert set(nodes) == {"s1", "s2", "lib3"}
    assert [(e.get("source"), e.get("target")) for e in edges] == [("s1", "lib3")]
    title = nodes["lib3"].find(f"{GRAPHML}data[@key='title']")
    assert title is not None and title.text == 'Ocean <acidification> & "calcifying" organisms'
    code, out, _ = run(capsys, "graph", "--candidates", "--offline")
    nodes, edges = _graphml(out)
    assert "doi:10.1038/nature21707" in nodes
    pairs = {(e.get("source"), e.get("target")) for e in edges}
    assert ("s2", "doi:10.1038/nature21707") in pairs
    networkx = pytest.importorskip("networkx")
    from io import StringIO

    read = networkx.read_graphml(StringIO(out))
    assert read.is_directed() and read.has_edge("s1", "doi:10.1038/nature21707")
    assert read.nodes["doi:10.1038/nature21707"]["kind"] == "candidate"
    assert read.nodes["s1"]["year"] == 2020
    code, out, _ = run(capsys, "graph", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["edges"] == [{"source": "s1", "target": "lib3", "kind": "cites"}]
