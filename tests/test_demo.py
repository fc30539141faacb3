"""`prioris demo` prints what `prioris search` prints, and says how to keep its library."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prioris.interfaces.cli import main
from prioris.interfaces.cli.demo import QUERIES

pytestmark = pytest.mark.slow  # the real model and real tesseract


def test_demo_output_is_the_real_search_output(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    kept = tmp_path / "demo"
    assert main(["demo", "--keep", str(kept)]) == 0
    demo = capsys.readouterr().out
    assert "1 page (1 by OCR), 1 chunk" in demo  # the scanned paper, OCR'd
    assert f"The demo library is kept in {kept}" in demo
    for mode, query in QUERIES:
        assert main(["search", query, "--mode", mode, "-k", "2", "--data-dir", str(kept)]) == 0
        out, err = capsys.readouterr()
        assert out and out in demo  # same lines: ids, whole snippets, pages
        assert err.split(" in ")[0] in demo  # "2 hits"
    for line in demo.splitlines():
        assert line.count("**") % 2 == 0, line  # no unclosed bold
    assert main(["status", "--json", "--data-dir", str(kept)]) == 0
    status = json.loads(capsys.readouterr().out)  # the real model gave each work its vector
    assert status["works"] == 3 and status["stale_works"] == 0 and status["stale_chunks"] == 0


def test_demo_without_keep_says_how_to_keep(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import prioris.interfaces.cli.demo

    def no_papers(folder: Path) -> list[Path]:  # the message, without a second full run
        folder.mkdir(parents=True)
        return []

    monkeypatch.setattr(prioris.interfaces.cli.demo, "write_demo_pdfs", no_papers)
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "temporary and is now deleted" in out
    assert "prioris demo --keep DIR" in out and "--data-dir DIR" in out
