"""The task-runner seam (``ingest/tasks.py``): the pipeline prepares and embeds through the
runner it was given, and a runner that works on copies (as one in another process would)
stores the same works as the default in-process runner."""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import IngestError, InvalidRequestError
from prioris.ingest.pipeline import IngestPipeline
from prioris.ingest.tasks import Done, Finished, InProcessRunner, TaskRunner, run_one
from prioris.library import Library

from conftest import FakeOcr
from pdf_factory import make_text_pdf


class RecordingRunner:
    """Runs each task in this thread on deep copies of its item and its value (what a
    runner in another process sees), recording which step ran."""

    local = True  # in this thread: callbacks work (what is sent is copied all the same)

    def __init__(self) -> None:
        self.ran: list[str] = []

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Done[Any]]:
        for item in items:
            self.ran.append(getattr(fn, "func", fn).__name__)
            try:
                done = Finished(copy.deepcopy(fn(copy.deepcopy(item))))
            except Exception as exc:
                done = Finished(error=exc)
            yield done


# -- the in-process runner ---------------------------------------------------------------


def test_in_process_tasks_run_in_order_in_the_calling_thread_when_asked() -> None:
    ran: list[tuple[int, str]] = []

    def task(n: int) -> int:
        ran.append((n, threading.current_thread().name))
        return n * 10

    outcomes = InProcessRunner().map(task, [1, 2, 3])
    assert ran == []  # nothing runs before its outcome is asked for
    first = next(outcomes)
    assert ran == [(1, threading.current_thread().name)] and first.result() == 10
    assert [d.result() for d in outcomes] == [20, 30]
    assert [n for n, _ in ran] == [1, 2, 3]


def test_a_failed_task_is_its_items_outcome_and_the_others_still_run() -> None:
    def task(n: int) -> int:
        if n == 2:
            raise InvalidRequestError("two is bad")
        return n

    outcomes = list(InProcessRunner().map(task, [1, 2, 3]))
    assert outcomes[0].result() == 1 and outcomes[2].result() == 3
    with pytest.raises(InvalidRequestError, match="two is bad"):
        outcomes[1].result()


def test_a_caller_that_stops_at_a_failure_runs_nothing_after_it() -> None:
    ran: list[int] = []

    def task(n: int) -> int:
        ran.append(n)
        if n == 1:
            raise ValueError("stop")
        return n

    with pytest.raises(ValueError, match="stop"):
        for done in InProcessRunner().map(task, [0, 1, 2]):
            done.result()
    assert ran == [0, 1]


def test_an_interrupt_is_never_held_as_an_outcome() -> None:
    def task(n: int) -> int:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        next(InProcessRunner().map(task, [1]))


def test_run_one_gives_the_value_or_raises_the_tasks_error() -> None:
    runner = InProcessRunner()
    assert run_one(runner, len, "four") == 4
    error = IngestError("broken")

    def fail(_: object) -> None:
        raise error

    with pytest.raises(IngestError) as raised:
        run_one(runner, fail, None)
    assert raised.value is error
    assert Finished(None).result() is None


# -- the pipeline through a runner -------------------------------------------------------


def test_the_pipeline_runs_in_process_unless_given_a_runner(library: Library) -> None:
    assert isinstance(library.pipeline.runner, InProcessRunner)
    runner: TaskRunner = RecordingRunner()
    pipeline = IngestPipeline(
        library.conn,
        FakeEmbedder(),
        ocr=None,
        ocr_mode="never",
        max_file_bytes=1 << 20,
        now=lambda: "2024-01-01 00:00:00",
        runner=runner,
    )
    assert pipeline.runner is runner
    pipeline.prepare_record({"_id": "r", "title": "A title", "text": "Some text."})
    assert runner.ran == ["prepare_record"]  # type: ignore[attr-defined]


RECORDS = [
    {"_id": "r1", "title": "Quokka habitats", "text": "Quokkas live on small islands."},
    {"_id": "r2", "title": "Wombat burrows", "text": "Wombats dig long burrows.", "year": 2001},
    {"_id": "r3", "title": "", "text": "Echidnas lay eggs and eat ants."},
]


def _stored(library: Library) -> dict[str, Any]:
    """What a library holds, without the clock's timestamps."""
    conn = library.conn
    return {
        "works": conn.execute(
            "SELECT id, title, authors, year, abstract, source FROM works ORDER BY id"
        ).fetchall(),
        "documents": conn.execute(
            "SELECT sha256, work_id, format, size_bytes, page_count, path FROM documents "
            "ORDER BY sha256"
        ).fetchall(),
        "chunks": conn.execute(
            "SELECT work_id, ordinal, text, page_start, page_end, char_start, char_end, "
            "heading, token_count, embedding_model FROM chunks ORDER BY work_id, ordinal"
        ).fetchall(),
        "vectors": [
            (h.id, round(h.score, 6))
            for h in library.search("quokka islands eggs", mode="vector", k=10).hits
        ],
        "work_vectors": conn.execute("SELECT count(*) FROM work_vectors").fetchone()[0],
    }


def _ingest_all(settings: Any, pdf: Path, runner: TaskRunner | None) -> tuple[Any, ...]:
    with Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr()) as library:
        if runner is not None:
            library.pipeline.runner = runner
        stages: list[tuple[str, str, int, int]] = []
        paths = library.ingest_paths(
            [pdf], on_stage=lambda p, stage, done, total: stages.append((stage, done, total))
        )
        records = library.import_records(RECORDS)
        again = library.import_records(RECORDS[:1])
        return (
            _stored(library),
            [r.to_dict() for r in paths.ingested],
            [r.to_dict() for r in records.ingested],
            [r.to_dict() for r in again.skipped],
            stages,
        )


def test_a_runner_working_on_copies_stores_the_same_works_as_the_default(
    tmp_path: Path,
) -> None:
    pdf = make_text_pdf(
        tmp_path / "paper.pdf",
        "Marsupial Island Ecology",
        ["Quokkas live on islands. " * 40, "Echidnas and eggs. " * 40],
    )
    default = _ingest_all(load_settings({"PRIORIS_MCP_DATA_DIR": str(tmp_path / "a")}), pdf, None)
    runner = RecordingRunner()
    routed = _ingest_all(load_settings({"PRIORIS_MCP_DATA_DIR": str(tmp_path / "b")}), pdf, runner)
    assert routed == default
    assert default[0]["chunks"] and default[0]["work_vectors"] == 4
    assert runner.ran == [
        "prepare_pdf",
        "embed_task",  # the PDF's chunks and its work text, one group
        *["prepare_record"] * 3,
        "embed_task",  # the three records together
        "prepare_record",  # again: already stored, so not embedded
    ]


class PoisonEmbedder(FakeEmbedder):
    """Refuses any batch holding the word ``poison``."""

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        if any("poison" in t for t in texts):
            raise IngestError("the model refused a passage")
        return super().embed_passages(texts)


def test_one_document_failing_to_embed_fails_alone_through_the_runner(settings: Any) -> None:
    runner = RecordingRunner()
    with Library.open(settings, embedder=PoisonEmbedder()) as library:
        library.pipeline.runner = runner
        summary = library.import_records(
            [
                {"_id": "ok1", "title": "Good", "text": "Plain words."},
                {"_id": "bad", "title": "Bad", "text": "A poison passage."},
                {"_id": "ok2", "title": "Fine", "text": "More plain words."},
            ]
        )
        assert [r.id for r in summary.ingested] == ["ok1", "ok2"]
        assert [f["path"] for f in summary.failed] == ["record 2"]
        assert summary.failed[0]["error"]["message"] == "the model refused a passage"
        assert library.conn.execute("SELECT count(*) FROM chunks_vec").fetchone()[0] == 2
    # the group failed, then each document was embedded as its own task
    assert runner.ran[3:] == ["embed_task"] * 4
