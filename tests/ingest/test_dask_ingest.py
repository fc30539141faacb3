"""Distributed ingest on Dask (issue 38): PDFs, records and a reindex run through the
session's ``LocalCluster`` (two worker processes on 127.0.0.1) store the same works, texts
and vectors as a plain in-process run; a worker killed half-way loses nothing and doubles
nothing; the model is built once per worker process; the tasks pickle."""

from __future__ import annotations

import hashlib
import os
import pickle
import signal
import threading
import time
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from prioris.config import load_settings
from prioris.embedding.base import Embedder
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError, IngestError
from prioris.ingest.dask_runner import DaskRunner
from prioris.ingest.fanout import prepare_pdf_task
from prioris.ingest.ocr import TesseractOcr
from prioris.ingest.tasks import InProcessRunner, start
from prioris.ingest.worker_model import WorkerModel
from prioris.library import Library

import dask_fakes
from conftest import FakeOcr, shared_path_or_none
from pdf_factory import make_scanned_pdf, make_text_pdf

ANIMALS = ["Quokka", "Wombat", "Echidna", "Numbat", "Bilby", "Platypus", "Dingo", "Kowari"]


def _papers(folder: Path, count: int = 5) -> list[Path]:
    """Small born-digital papers of two pages, and one scanned page (OCR)."""
    pdfs = [
        make_text_pdf(
            folder / f"{name.lower()}.pdf",
            f"{name} Ecology on Small Islands",
            [
                f"{name}s live on islands and eat leaves. " * 30,
                f"Burrows, nests and the {name.lower()} diet in winter. " * 30,
            ],
        )
        for name in ANIMALS[:count]
    ]
    return [*pdfs, make_scanned_pdf(folder / "scanned.pdf", "A page with no text layer.")]


def _contents(library: Library) -> dict[str, Any]:
    """What a library holds, compared across runs: work ids and fields, each Markdown's
    sha256, documents, chunk texts and spans; the vectors apart (compared with allclose)."""
    conn = library.conn
    works = conn.execute(
        "SELECT id, title, authors, year, abstract, source, markdown FROM works ORDER BY id"
    ).fetchall()
    text = conn.dialect.text_sql("c.text")
    chunks = conn.execute(
        f"SELECT c.work_id, c.ordinal, {text}, c.page_start, c.page_end, c.char_start, "
        "c.char_end, c.heading, c.embedding_model FROM chunks c ORDER BY c.work_id, c.ordinal"
    ).fetchall()
    vectors = conn.execute(
        "SELECT c.work_id, c.ordinal, v.embedding FROM chunks c "
        "JOIN chunks_vec v ON v.chunk_id = c.id ORDER BY c.work_id, c.ordinal"
    ).fetchall()
    return {
        "works": [(*row[:6], hashlib.sha256((row[6] or "").encode()).hexdigest()) for row in works],
        "documents": conn.execute(
            "SELECT sha256, work_id, format, size_bytes, page_count, ocr_pages, path "
            "FROM documents ORDER BY sha256"
        ).fetchall(),
        "chunks": chunks,
        "vector_keys": [(w, o) for w, o, _ in vectors],
        "vectors": np.vstack([np.frombuffer(v, dtype=np.float32) for *_, v in vectors])
        if vectors
        else np.zeros((0, 0)),
        "work_vectors": [
            (work_id, model, hashlib.sha256(bytes(vector)).hexdigest())
            for work_id, model, vector in conn.execute(
                "SELECT work_id, model, embedding FROM work_vectors ORDER BY work_id"
            ).fetchall()
        ],
    }


def _same(a: dict[str, Any], b: dict[str, Any]) -> None:
    for key in a:
        if key == "vectors":
            assert a[key].shape == b[key].shape
            assert np.allclose(a[key], b[key], atol=1e-6)
        else:
            assert a[key] == b[key], key


def _open(folder: Path, embedder: Embedder, cluster: str | None = None) -> Library:
    settings = load_settings({"PRIORIS_MCP_DATA_DIR": str(folder), "PRIORIS_MCP_ENRICH": "off"})
    if cluster is not None:
        settings = settings.with_overrides(cluster=cluster)
    return Library.open(settings, embedder=embedder, ocr=FakeOcr())


def _summary(summary: Any) -> dict[str, Any]:
    data = summary.to_dict()
    for failure in data["failed"]:  # paths differ between the two runs' folders
        failure["path"] = Path(failure["path"]).name
    for result in (*data["ingested"], *data["skipped"]):
        result["path"] = Path(result["path"]).name if result.get("path") else None
    return data


def _complete(prepared: Any) -> None:
    """A provider's abstract for the first paper (enrichment, which the vectors follow)."""
    if prepared.work.title.startswith(ANIMALS[0]):
        prepared.work = replace(prepared.work, abstract="Quokkas smile at tourists.")


def _note(stages: list[tuple[Any, ...]], path: str, stage: str, done: int, total: int) -> None:
    stages.append((Path(path).name, stage, done, total))


def _address(cluster: Any) -> str:
    return str(cluster.scheduler_address)


# -- settings, pickling, the worker's model ------------------------------------------------


def test_the_cluster_setting_takes_local_n_or_a_scheduler_address() -> None:
    assert load_settings({}).cluster is None
    assert load_settings({"PRIORIS_MCP_CLUSTER": "local:2"}).cluster == "local:2"
    tcp = load_settings({"PRIORIS_MCP_CLUSTER": " tcp://10.0.0.5:8786 "}).cluster
    assert tcp == "tcp://10.0.0.5:8786"
    for bad in ("local:0", "local:two", "http://host:8786", "tcp://", "local:999"):
        with pytest.raises(ConfigurationError, match=r"PRIORIS_MCP_CLUSTER .* local:N"):
            load_settings({"PRIORIS_MCP_CLUSTER": bad})


def test_the_cli_refuses_a_bad_cluster_address_before_opening_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from prioris.interfaces.cli import main

    pdf = make_text_pdf(tmp_path / "a.pdf", "A Title", ["Some words. " * 20])
    assert main(["ingest", "--cluster", "udp://nowhere", str(pdf)]) == 2
    assert "--cluster is 'udp://nowhere'" in capsys.readouterr().err
    assert not (Path(os.environ["PRIORIS_MCP_DATA_DIR"]) / "library.db").exists()


def test_the_model_pickles_as_its_recipe_and_a_process_builds_it_once() -> None:
    recipe = dask_fakes.CountingRecipe("fake/pickled-once")
    model = WorkerModel(FakeEmbedder(model_id="fake/pickled-once"), recipe)
    before = len(dask_fakes.BUILDS)
    first = pickle.loads(pickle.dumps(model))
    second = pickle.loads(pickle.dumps(model))
    assert first.embedder is second.embedder  # built once, kept by model id
    assert dask_fakes.BUILDS[before:] == ["fake/pickled-once"]
    assert np.allclose(first.embed_passages(["a text"]), model.embed_passages(["a text"]))


def test_a_worker_whose_model_is_another_refuses_to_embed() -> None:
    model = WorkerModel(FakeEmbedder(model_id="fake/library"), dask_fakes.CountingRecipe("x/y"))
    with pytest.raises(ConfigurationError, match="worker's embedding model is 'x/y'"):
        pickle.loads(pickle.dumps(model))


def test_the_preparing_task_pickles_with_its_tesseract_engine(library: Library) -> None:
    pipeline = library.pipeline
    pipeline.preparer.ocr = TesseractOcr("eng+deu", timeout_seconds=7)
    task = partial(prepare_pdf_task, pipeline.preparer, "a.pdf", "auto")
    again = pickle.loads(pickle.dumps(task))
    ocr = again.args[0].ocr
    assert (ocr.languages, ocr.timeout_seconds, ocr._checked) == ("eng+deu", 7, False)
    assert again.args[0].count_tokens(["two words"]) == pipeline.preparer.count_tokens(
        ["two words"]
    )


def test_preparing_a_pdf_for_a_work_leaves_the_callers_work_as_it_was(
    library: Library, tmp_path: Path
) -> None:
    from prioris.models import Work

    pdf = make_text_pdf(tmp_path / "p.pdf", "Island Paper", ["See doi:10.1234/abcd. " * 20])
    work = Work(id="doi:10.9/given", title="Island Paper", aliases=[])
    prepared = library.pipeline.prepare_pdf(pdf.read_bytes(), work=work)
    assert work.aliases == [] and work.abstract is None  # a worker's change would be lost
    assert prepared.work.id == "doi:10.9/given"


# -- the same works through the cluster -----------------------------------------------------


def test_pdfs_records_and_reindex_through_the_cluster_store_what_a_plain_run_stores(
    tmp_path: Path, dask_cluster: Any
) -> None:
    papers = _papers(tmp_path / "papers")
    (tmp_path / "papers" / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    files = [*papers, papers[0], tmp_path / "papers" / "broken.pdf"]  # one twice, one bad
    records = [
        {"_id": f"r{i}", "title": f"Record {i}", "text": f"{name} words. " * (5 + i)}
        for i, name in enumerate(ANIMALS)
    ] + [{"_id": "", "title": "no id"}]
    runs = {}
    for name, cluster in (("plain", None), ("dask", _address(dask_cluster))):
        with _open(tmp_path / name, FakeEmbedder(), cluster) as library:
            assert isinstance(library.pipeline.runner, DaskRunner if cluster else InProcessRunner)
            library.ingester.complete = _complete  # the providers' record, in this process
            stages: list[tuple[str, str, int, int]] = []
            paths = library.ingest_paths(files, on_stage=partial(_note, stages))
            if cluster:  # each file's stages, reported here as its results come back
                for path in papers:
                    mine = [s[1:] for s in stages if s[0] == path.name]
                    assert mine[0][0] == "parse" and mine[-1] == ("index", 1, 1), mine
            imported = library.import_records(records)
            again = library.import_records(records[:3])  # stored: skipped, not embedded
            contents = _contents(library)
        with _open(tmp_path / name, FakeEmbedder(model_id="fake/next"), cluster) as library:
            assert library.stale_on_open  # another model: every chunk to embed again
            reindexed = library.reindex()
            after = _contents(library)
        runs[name] = (paths, imported, again, contents, reindexed, after)
    plain, dask = runs["plain"], runs["dask"]
    for i in (0, 1, 2):
        assert _summary(dask[i]) == _summary(plain[i])
    assert len(plain[0].ingested) == 6 and len(plain[0].skipped) == 1
    assert [Path(f["path"]).name for f in plain[0].failed] == ["broken.pdf"]
    assert plain[1].ingested_count == 8 and len(plain[1].failed) == 1
    assert plain[2].skipped_count == 3
    _same(plain[3], dask[3])
    assert plain[4] == dask[4] > 0
    _same(plain[5], dask[5])
    assert {m for _, m, _ in dask[5]["work_vectors"]} == {"fake/next"}
    assert any(doc[5] for doc in dask[3]["documents"])  # the scanned page went through OCR
    assert any(w[4] == "Quokkas smile at tourists." for w in dask[3]["works"])


def test_the_fixture_pdfs_through_the_cluster_give_the_same_works(
    tmp_path: Path, dask_cluster: Any
) -> None:
    folder = shared_path_or_none("fixtures", "pdfs", "good")
    if folder is None:
        pytest.skip("needs the shared fixture PDFs (../shared/fixtures/pdfs/good), absent here")
    pdfs = sorted(folder.glob("*.pdf"))
    found = []
    for name, cluster in (("plain", None), ("dask", _address(dask_cluster))):
        with _open(tmp_path / name, FakeEmbedder(), cluster) as library:
            summary = library.ingest_paths(pdfs)
            found.append((_summary(summary), _contents(library)))
    assert found[0][0] == found[1][0] and len(found[0][0]["ingested"]) == len(pdfs)
    _same(found[0][1], found[1][1])


def test_each_worker_builds_the_model_once_for_all_its_tasks(
    tmp_path: Path, dask_client: Any
) -> None:
    from prioris.ingest.pipeline import IngestPipeline

    with _open(tmp_path / "lib", FakeEmbedder()) as library:
        pipeline = IngestPipeline(
            library.conn,
            FakeEmbedder(model_id="fake/counted"),
            ocr=None,
            ocr_mode="never",
            max_file_bytes=1 << 24,
            now=lambda: "2026-01-01 00:00:00",
            runner=DaskRunner.on(dask_client),
            model_recipe=dask_fakes.CountingRecipe("fake/counted"),
        )
        records = [{"_id": f"c{i}", "title": f"T {i}", "text": "w " * 10} for i in range(12)]
        prepared = [pipeline.prepare_record(r) for r in records]
        for item in prepared:
            pipeline.embed([item])
        assert all(item.vectors is not None for item in prepared)
    per_worker = dask_client.run(dask_fakes.builds)
    assert sum(b.count("fake/counted") for b in per_worker.values()) >= 1
    assert all(b.count("fake/counted") <= 1 for b in per_worker.values())


def test_an_expected_failure_is_the_items_outcome_and_is_not_retried(dask_client: Any) -> None:
    runner = DaskRunner.on(dask_client)
    outcomes = list(runner.map(_fails_on_two, [1, 2, 3]))
    assert outcomes[0].result() == 1 and outcomes[2].result() == 3
    with pytest.raises(IngestError, match="two is bad"):
        outcomes[1].result()
    done = start(runner, _fails_on_two, 5)
    assert done.result() == 5


def _fails_on_two(n: int) -> int:
    if n == 2:
        raise IngestError("two is bad")
    return n


def test_a_local_cluster_binds_to_the_loopback_and_stops_with_its_runner() -> None:
    runner = DaskRunner("local:1")
    try:
        assert runner.client.scheduler.address.startswith("tcp://127.0.0.1:")
        assert [d.result() for d in runner.map(abs, [-1, -2])] == [1, 2]
        assert runner.window == 2
    finally:
        runner.close()
    assert runner.cluster.status.name == "closed"


def test_a_scheduler_that_is_not_there_is_one_clear_error(monkeypatch: Any) -> None:
    import prioris.ingest.dask_runner as dask_runner

    monkeypatch.setattr(dask_runner, "CONNECT_TIMEOUT_SECONDS", 1)
    with pytest.raises(ConfigurationError, match="cannot reach the Dask scheduler"):
        DaskRunner("tcp://127.0.0.1:9")


# -- a worker killed half-way -----------------------------------------------------------------


def _kill_a_busy_worker(client: Any, done: list[Any]) -> int:
    """Once a file is committed, SIGKILL a worker that is running a task; how many files
    were committed then."""
    deadline = time.monotonic() + 120  # a safety net for a broken run, not a measure
    while time.monotonic() < deadline:
        processing = {w: keys for w, keys in client.processing().items() if keys}
        if processing and len(done) >= 1:
            worker = sorted(processing)[0]
            pid = client.run(os.getpid, workers=[worker])[worker]
            committed = len(done)
            os.kill(pid, signal.SIGKILL)
            return committed
        time.sleep(0.05)
    raise AssertionError("the run never had a task in progress to interrupt")


def test_a_worker_killed_half_way_loses_nothing_and_doubles_nothing(
    tmp_path: Path, dask_cluster: Any, dask_client: Any
) -> None:
    papers = _papers(tmp_path / "papers", count=8)
    with _open(tmp_path / "plain", FakeEmbedder(model_id="fake/slow-64")) as library:
        plain = (_summary(library.ingest_paths(papers)), _contents(library))

    done: list[Any] = []
    outcome: dict[str, Any] = {}
    library = _open(tmp_path / "dask", dask_fakes.SlowEmbedder(), _address(dask_cluster))
    try:

        def run() -> None:
            try:
                outcome["summary"] = library.ingest_paths(
                    papers, on_file_done=lambda path, result, error: done.append(path)
                )
            except BaseException as exc:  # reported by the assertion below
                outcome["error"] = exc

        thread = threading.Thread(target=run)
        thread.start()
        committed = _kill_a_busy_worker(dask_client, done)
        thread.join(timeout=300)
        assert not thread.is_alive() and "error" not in outcome, outcome.get("error")
        assert 1 <= committed < len(papers)  # killed half-way through the run
        after = (_summary(outcome["summary"]), _contents(library))
    finally:
        library.close()
    assert after[0] == plain[0] and not after[0]["failed"]
    _same(plain[1], after[1])
    works = [w[0] for w in after[1]["works"]]
    assert len(works) == len(set(works)) == len(papers)  # nothing doubled
    dask_client.wait_for_workers(2, timeout=120)  # the nanny restarted it for later tests


def test_the_cli_ingests_imports_and_reindexes_on_a_cluster_with_the_real_model(
    tmp_path: Path, dask_cluster: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--cluster`` end to end: the workers build the packaged model from its recipe
    (the library's own model, from this machine's files) and the vectors are the ones
    this process's model gives."""
    import json

    from prioris.interfaces.cli import main

    address = _address(dask_cluster)
    papers = _papers(tmp_path / "papers", count=2)
    assert main(["ingest", "--cluster", address, "--json", *map(str, papers)]) == 0
    ingested = json.loads(capsys.readouterr().out)["ingested"]
    assert len(ingested) == 3 and all(r["chunks"] for r in ingested)
    records = tmp_path / "records.jsonl"
    records.write_text(
        "\n".join(
            json.dumps({"_id": f"r{i}", "title": f"Note {i}", "text": "Words. " * 9})
            for i in range(3)
        )
        + "\n"
    )
    assert main(["import", "--cluster", address, str(records)]) == 0
    assert "3 imported, 0 skipped, 0 failed" in capsys.readouterr().out
    assert main(["reindex", "--cluster", address, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["reindexed"] == 0  # nothing was stale
    with Library.open(load_settings()) as library:
        conn = library.conn
        text = conn.dialect.text_sql("c.text")
        row = conn.execute(
            f"SELECT {text}, w.title, v.embedding FROM chunks c JOIN works w ON w.id = c.work_id "
            "JOIN chunks_vec v ON v.chunk_id = c.id ORDER BY c.id LIMIT 1"
        ).fetchone()
        from prioris.ingest.embed import embedding_text

        here = library.embedder.embed_passages([embedding_text(row[1], row[0])])[0]
        assert np.allclose(np.frombuffer(row[2], dtype=np.float32), here, atol=1e-5)
        assert library.status()["works"] == 6
