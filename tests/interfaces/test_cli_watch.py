"""``prioris watch`` for real: the CLI in a subprocess with the real ``watchfiles``, the
real model, PDFs copied into the folder, a move that parses nothing, and Ctrl-C / SIGTERM
ending it cleanly; and its argument checks in process."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

import pytest

from prioris.config import load_settings
from prioris.interfaces.cli import main
from prioris.interfaces.cli.context import CliContext
from prioris.interfaces.cli.watch_cmds import action_line, stop_on_signals
from prioris.services.watching import WatchAction

from pdf_factory import make_text_pdf

TIMEOUT = 30  # seconds for any one wait: the model loads in ~3 s on an idle machine


def _env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env["PRIORIS_MCP_DATA_DIR"] = str(data_dir)
    env["PRIORIS_MCP_ENRICH"] = "off"
    return env


def _lines(stream: IO[bytes], into: queue.Queue[str | None]) -> None:
    for raw in iter(stream.readline, b""):
        into.put(raw.decode("utf-8", "replace"))
    into.put(None)


class Watch:
    """``prioris watch`` running in a subprocess, its stdout and stderr read as they come."""

    def __init__(self, *args: str, data_dir: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "prioris", "watch", *args],
            env=_env(data_dir),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.out: queue.Queue[str | None] = queue.Queue()
        self.err: queue.Queue[str | None] = queue.Queue()
        self.err_seen: list[str] = []
        for stream, into in ((self.proc.stdout, self.out), (self.proc.stderr, self.err)):
            threading.Thread(target=_lines, args=(stream, into), daemon=True).start()

    def action(self) -> dict[str, Any]:
        line = self.out.get(timeout=TIMEOUT)
        assert line is not None, f"watch ended: {self.stderr()}"
        return json.loads(line)

    def wait_stderr(self, text: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not any(text in line for line in self.err_seen):
            line = self.err.get(timeout=max(0.1, deadline - time.monotonic()))
            assert line is not None, f"watch ended: {self.stderr()}"
            self.err_seen.append(line)

    def stderr(self) -> str:
        while True:
            try:
                line = self.err.get(timeout=1)
            except queue.Empty:
                break
            if line is None:
                break
            self.err_seen.append(line)
        return "".join(self.err_seen)

    def stop(self, sig: int) -> int:
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
            raise AssertionError(f"watch did not stop on {sig!r}: {self.stderr()}") from None


def _listed(data_dir: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "prioris", "list", "--json"],
        env=_env(data_dir),
        capture_output=True,
        timeout=60,
        check=True,
    )
    return sorted(work["title"] for work in json.loads(done.stdout)["works"])


@pytest.mark.slow
def test_watch_ingests_dropped_files_skips_a_move_and_stops_on_ctrl_c(tmp_path: Path) -> None:
    data_dir, inbox, made = tmp_path / "data", tmp_path / "inbox", tmp_path / "made"
    inbox.mkdir()
    titles = ["Coral reef bleaching", "Glacier mass balance", "Urban heat islands"]
    sources = [
        make_text_pdf(made / f"p{i}.pdf", title, [f"{title} is studied here in depth. " * 10])
        for i, title in enumerate(titles)
    ]
    watch = Watch(str(inbox), "--settle", "0.5", "--json", data_dir=data_dir)
    try:
        watch.wait_stderr("watching")
        for source in sources:
            shutil.copy(source, inbox / source.name)
        (inbox / "p9.pdf.crdownload").write_bytes(sources[0].read_bytes()[:200])
        ingested = [watch.action() for _ in sources]
        assert sorted(a["action"] for a in ingested) == ["ingested"] * 3
        assert _listed(data_dir) == sorted(titles)
        (inbox / "p0.pdf").rename(inbox / "renamed.pdf")
        moved = watch.action()
        assert moved["action"] == "skipped" and moved["path"].endswith("renamed.pdf")
        assert moved["reason"] == "identical bytes already stored"
        code = watch.stop(signal.SIGINT)
    finally:
        if watch.proc.poll() is None:
            watch.proc.kill()
    assert code == 0
    assert "stopped: 3 ingested, 1 skipped, 0 failed" in watch.stderr()
    assert watch.out.get(timeout=5) is None  # nothing else on stdout: one line per action


@pytest.mark.slow
def test_watch_stops_on_sigterm_with_exit_0(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    watch = Watch(str(inbox), "--no-initial-scan", data_dir=tmp_path / "data")
    try:
        watch.wait_stderr("watching")
        code = watch.stop(signal.SIGTERM)
    finally:
        if watch.proc.poll() is None:
            watch.proc.kill()
    assert code == 0
    assert "stopped: 0 ingested, 0 skipped, 0 failed" in watch.stderr()


def test_watch_argument_errors(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, data_dir: Path
) -> None:
    assert main(["watch", str(tmp_path), "--settle", "-1"]) == 2
    assert "--settle must be between 0 and 3600" in capsys.readouterr().err
    assert main(["watch", str(tmp_path), "--settle", "nan"]) == 2
    assert main(["watch", str(tmp_path / "nowhere")]) == 1
    assert "error [not_found]: no such folder" in capsys.readouterr().err
    assert not data_dir.exists()  # a mistyped folder starts no library
    assert main(["watch", str(tmp_path), "--zotero-dir", str(tmp_path / "nozotero")]) == 2
    assert "no Zotero database" in capsys.readouterr().err


def test_action_lines() -> None:
    assert action_line(WatchAction("skipped", "/x/a.pdf", id="file:1", reason="same")) == (
        "skipped  /x/a.pdf  (same; file:1)"
    )
    failed = WatchAction("failed", "/x/b.pdf", error={"code": "parse_error", "message": "bad"})
    assert action_line(failed) == "failed   /x/b.pdf  error [parse_error]: bad"
    synced = WatchAction("synced", "/z/zotero.sqlite", detail={"added": 2, "unchanged": 5})
    assert action_line(synced) == "synced   /z/zotero.sqlite  (2 added, 5 unchanged)"
    ingested = WatchAction(
        "ingested", "/x/c.pdf", id="file:2", detail={"pages": 1, "ocr_pages": 1, "chunks": 3}
    )
    assert action_line(ingested) == "ingested /x/c.pdf  file:2  1 page (1 by OCR), 3 chunks"


def test_a_first_signal_stops_gently_a_second_at_once() -> None:
    """SIGINT or SIGTERM sets the stop event (the file being ingested is finished); the
    next one raises KeyboardInterrupt (the CLI's exit 130); the handlers are put back."""
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    stop = threading.Event()
    with pytest.raises(KeyboardInterrupt), stop_on_signals(stop, CliContext(load_settings())):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.1)  # the handler runs in the main thread at the next bytecode
        assert stop.is_set()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)
        raise AssertionError("the second signal did not interrupt")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_watch_prints_each_action_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In process, with the fake model and a scripted change source in place of
    watchfiles: a line per action on stderr, nothing on stdout, the counts at the stop."""
    import prioris.embedding
    from prioris.embedding.fake import FakeEmbedder
    from prioris.services import watching

    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    inbox = tmp_path / "inbox"
    good = make_text_pdf(inbox / "good.pdf", "Kelp forests", ["Kelp forests and urchins. " * 9])
    (inbox / "bad.pdf").write_bytes(b"%PDF-1.7\nbroken beyond repair")

    def source(folders: Any, **options: Any) -> Any:
        def changes(stop: threading.Event) -> Any:
            yield set()
            time.sleep(0.3)  # past --settle 0.2, on the real clock
            yield set()
            shutil.copy(good, inbox / "copy.pdf")
            yield {inbox / "copy.pdf"}
            time.sleep(0.3)
            yield set()
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C
            time.sleep(0.1)
            yield set()
            raise AssertionError("still watching after Ctrl-C")

        return changes

    monkeypatch.setattr(watching, "watchfiles_source", source)
    code = main(["watch", str(inbox), "--settle", "0.2"])
    out, err = capsys.readouterr()
    assert code == 0 and out == ""
    lines = err.splitlines()
    assert lines[0] == f"watching {inbox} (Ctrl-C stops)"
    assert any(line.startswith(f"ingested {inbox / 'good.pdf'}  file:") for line in lines)
    assert f"failed   {inbox / 'bad.pdf'}  error [parse_error]:" in err
    assert any(
        line.startswith(f"skipped  {inbox / 'copy.pdf'}  (identical bytes") for line in lines
    )
    assert lines[-1] == "stopped: 1 ingested, 1 skipped, 1 failed"
