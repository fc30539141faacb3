"""Ingest progress: pages, then chunks embedded step by step, then the commit; never frozen."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

import prioris.ingest.embed as embed_module
from prioris.interfaces.cli.progress import IngestBars
from prioris.library import Library

from pdf_factory import make_text_pdf


def _paper(tmp_path: Path) -> Path:
    body = "Glaciers retreat as summers warm and the ice thins every year. " * 60
    return make_text_pdf(tmp_path / "long.pdf", "Glacier retreat", [body] * 3)


def test_progress_reports_every_stage_in_order(
    library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embed_module, "EMBED_STEP", 2)
    events: list[tuple[str, int, int]] = []
    result = library.ingest_file(_paper(tmp_path), on_stage=lambda *e: events.append(e))
    assert result.chunks > 4
    stages = [stage for stage, _, _ in events]
    assert stages == sorted(stages, key=["parse", "embed", "index"].index)
    assert [e for e in events if e[0] == "parse"] == [("parse", n, 3) for n in (1, 2, 3)]
    embed = [(done, total) for stage, done, total in events if stage == "embed"]
    # the chunks and the work's own text, a text met twice (a repeated passage) once
    texts = embed[0][1]
    assert result.chunks // 2 < texts <= result.chunks + 1
    assert embed[0] == (0, texts) and embed[-1] == (texts, texts)
    assert len(embed) == 1 + -(-texts // 2)  # one report per embedding call
    assert [e for e in events if e[0] == "index"] == [("index", 0, 1), ("index", 1, 1)]


def test_stepwise_embedding_gives_the_same_vectors(
    library: Library, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"passage {i} " + "word " * (i % 7) for i in range(11)]
    prepared = [
        library.pipeline.prepare_record({"_id": f"r{i}", "title": "T", "text": t})
        for i, t in enumerate(texts)
    ]
    library.pipeline.embed(prepared)
    whole = np.vstack([p.vectors for p in prepared])
    monkeypatch.setattr(embed_module, "EMBED_STEP", 3)
    library.pipeline.embed(prepared, progress=lambda *e: None)
    assert np.array_equal(np.vstack([p.vectors for p in prepared]), whole)


def test_bars_show_each_stage_with_its_unit_rate_and_the_overall_count() -> None:
    stream = io.StringIO()
    bars = IngestBars(2, enabled=True, file=stream, mininterval=0, miniters=1)
    bars.step("a.pdf", "ocr", 0, 1)
    for done in range(1, 4):
        bars.step("a.pdf", "parse", done, 3)
    bars.step("a.pdf", "embed", 0, 40)
    bars.step("a.pdf", "embed", 32, 40)
    bars.step("a.pdf", "index", 1, 1)
    bars.file_done()
    bars.close()
    text = stream.getvalue()
    assert "a.pdf: OCR 0/1 pages" in text
    assert "a.pdf: reading pages" in text and "3/3" in text and "page/s" in text
    assert "a.pdf: embedding" in text and "32/40" in text and "text/s" in text
    assert "a.pdf: indexing" in text
    assert "ingest" in text and "1/2" in text


def test_a_new_stage_is_never_drawn_with_the_previous_stages_total() -> None:
    stream = io.StringIO()
    bars = IngestBars(1, enabled=True, file=stream, mininterval=0, miniters=1)
    for done in range(1, 4):
        bars.step("a.pdf", "parse", done, 3)
    bars.step("a.pdf", "embed", 0, 40)
    bars.close()
    frames = stream.getvalue().replace("\r", "\n").splitlines()
    embedding = [f for f in frames if "a.pdf: embedding" in f]
    assert embedding and not any("/3 " in f or "0/3" in f for f in embedding), embedding
