"""``prioris evidence``, ``cite-check`` and ``skill`` end to end through ``main`` (the
default model): one claim, a JSONL file of claims, a check and a file of pairs, the exit
statuses, and the skill's text naming every command it teaches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.interfaces.cli import main

RECORDS = [
    {
        "_id": "bees",
        "title": "Waggle dance of honey bees",
        "authors": ["Karl Frisch"],
        "year": 1967,
        "text": "Foragers repeat the waggle dance on the comb. Recruits decode the angle of "
        "the dance relative to the sun to find the flowers.",
    },
    {
        "_id": "reefs",
        "title": "Coral reef bleaching",
        "authors": ["Ben Okafor"],
        "year": 2021,
        "text": "Ocean warming causes coral bleaching in shallow reefs. Symbiotic algae leave "
        "the coral tissue when the water is too warm.",
    },
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def imported(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    assert run(capsys, "import", str(path))[0] == 0


def test_evidence_one_claim_and_a_file_of_claims(
    capsys: pytest.CaptureFixture[str], imported: None, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "evidence", "bees find flowers from the sun's angle", "--json")
    assert code == 0
    best = json.loads(out)["evidence"][0]
    assert best["work_id"] == "bees" and best["citekey"] == "frisch1967waggle"
    assert best["sentence"].startswith("Recruits decode the angle")
    code, out, _ = run(capsys, "show", "bees", "--json")
    assert json.loads(out)["markdown"][best["start"] : best["end"]] == best["sentence"]
    code, out, _ = run(capsys, "evidence", "coral bleaching", "-k", "1")
    assert code == 0 and "Ocean warming causes coral bleaching" in out and "okafor2021coral" in out
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"_id": "q1", "text": "coral algae leave warm water"}\n{"_id": "q2"}\n')
    code, out, err = run(capsys, "evidence", "--queries", str(claims), "-k", "2")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [line["query_id"] for line in lines] == ["q1"]
    assert lines[0]["evidence"][0]["work_id"] == "reefs"
    assert "error [invalid_request]" in err and "claims.jsonl:2" in err
    code, _, err = run(capsys, "evidence")
    assert code == 2 and "needs CLAIM" in err


def test_cite_check_single_and_pairs(
    capsys: pytest.CaptureFixture[str], imported: None, tmp_path: Path
) -> None:
    claim = "Recruits decode the dance angle relative to the sun."
    code, out, _ = run(capsys, "cite-check", claim, "frisch1967waggle", "--json")
    answer = json.loads(out)
    assert code == 0 and answer["found"] is True and answer["work_id"] == "bees"
    code, out, _ = run(capsys, "cite-check", claim, "reefs")
    assert code == 1 and out.startswith("NOT supported by okafor2021coral (reefs)")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        json.dumps({"id": 1, "claim": claim, "work_id": "bees"})
        + "\n"
        + json.dumps({"id": 2, "claim": claim, "work_id": "nowhere"})
        + "\n"
    )
    code, out, err = run(capsys, "cite-check", "--pairs", str(pairs))
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 1 and [(line["id"], line["found"]) for line in lines] == [(1, True)]
    assert "error [not_found]" in err


def test_skill_teaches_the_commands_in_few_words(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "skill")
    assert code == 0 and out.startswith("---\nname: prioris\n")
    for command in ("search", "evidence", "cite-check", "show", "fetch", "export"):
        assert f"prioris {command}" in out
    assert len(out.split()) < 400  # a few hundred tokens, not a tool list
