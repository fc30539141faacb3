"""``prioris alerts rank`` and ``prioris alerts feed`` end to end through ``main`` (the
default model): one JSON line per collection with each candidate's why and in_library,
the text form, the Atom feed read back by feedparser, and bad input's exit statuses."""

from __future__ import annotations

import json
from pathlib import Path

import feedparser
import pytest

from prioris.interfaces.cli import main

RECORDS = [
    {
        "_id": "bees",
        "title": "Waggle dance of honey bees",
        "year": 1967,
        "text": "Foragers repeat the waggle dance on the comb to recruit nestmates to flowers.",
        "collections": ["Bees"],
    },
    {
        "_id": "hive",
        "title": "Honey bee foraging range",
        "year": 2011,
        "text": "Honey bees fly several kilometres from the hive to find nectar.",
        "collections": ["Bees"],
    },
    {
        "_id": "reefs",
        "title": "Coral reef bleaching",
        "year": 2021,
        "text": "Ocean warming causes coral bleaching in shallow reefs.",
        "collections": ["Reefs"],
    },
]
CANDIDATES = [
    {
        "_id": "c-bee",
        "title": "Nectar foraging and recruitment in honey bee colonies",
        "text": "Honey bee foragers recruit nestmates to rich nectar sources with dances.",
    },
    {
        "_id": "c-reef",
        "title": "Marine heatwaves bleach coral reefs",
        "text": "Corals expel their algae when ocean temperatures rise.",
    },
    {
        "_id": "c-known",
        "title": "Coral reef bleaching",
        "published": "2021",
        "text": "Ocean warming causes coral bleaching.",
    },
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def pool(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Path:
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert run(capsys, "import", str(records))[0] == 0
    path = tmp_path / "candidates.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in CANDIDATES))
    return path


def test_rank_prints_one_json_line_per_collection(
    capsys: pytest.CaptureFixture[str], pool: Path
) -> None:
    code, out, err = run(capsys, "alerts", "rank", "--candidates", str(pool), "-k", "3", "--json")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["collection"] for x in lines] == ["(library)", "Bees", "Reefs"]
    by = {x["collection"]: x["candidates"] for x in lines}
    assert by["Bees"][0]["id"] == "c-bee"
    assert by["Reefs"][0]["id"] in {"c-reef", "c-known"}
    for item in by["Bees"]:
        assert set(item) == {"id", "title", "score", "why", "in_library"}
        assert {n["id"] for n in item["why"]["nearest"]} <= {"bees", "hive"}
    top_terms = [t["term"] for t in by["Bees"][0]["why"]["terms"]]
    assert any(word in " ".join(top_terms) for word in ("honey", "bee", "nectar", "forag"))
    assert {c["id"]: c["in_library"] for c in by["Reefs"]}["c-known"] is True
    assert {c["id"]: c["in_library"] for c in by["Reefs"]}["c-reef"] is False
    assert "ranking 3 candidate(s)" in err

    code, out, _ = run(capsys, "alerts", "rank", "--candidates", str(pool), "--collection", "reefs")
    assert code == 0 and out.startswith(
        "reefs:"
    )  # the name as given and "(in the library)" in out and "near:" in out


def test_feed_prints_atom_that_a_feed_reader_reads(
    capsys: pytest.CaptureFixture[str], pool: Path
) -> None:
    code, out, err = run(
        capsys, "alerts", "feed", "--collection", "Bees", "--candidates", str(pool), "-k", "2"
    )
    assert code == 0, err
    parsed = feedparser.parse(out)
    assert not parsed.bozo and parsed.version == "atom10"
    assert parsed.feed.title == "Prioris alerts: Bees"
    assert len(parsed.entries) == 2
    assert parsed.entries[0].title == CANDIDATES[0]["title"]
    assert "Waggle dance of honey bees" in parsed.entries[0].summary


def test_bad_input_exits_with_its_error(
    capsys: pytest.CaptureFixture[str], pool: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "alerts", "rank", "--candidates", str(tmp_path / "none.jsonl"))
    assert code != 0 and "no candidates file" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{oops\n")
    code, _, err = run(capsys, "alerts", "rank", "--candidates", str(bad), "--json")
    assert code != 0 and "bad.jsonl:1" in err
    code, _, err = run(capsys, "alerts", "feed", "--collection", "Nope", "--candidates", str(pool))
    assert code != 0 and "Nope" in err
    code, _, err = run(capsys, "alerts", "rank", "--candidates", str(pool), "-k", "0")
    assert code != 0 and "k must be" in err
