"""The watched folder's edges (issue 40): links never followed out of it, by the initial
scan and by an event alike, and a folder that disappears said and watched again when it
returns. The library and the PDFs are real; events and the clock are the fakes of
``test_watching.py`` (a script yields the paths it touched; the clock moves when told)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from prioris.library import Library
from prioris.services.watching import watchfiles_source
from test_watching import Run, paper


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "inbox"
    path.mkdir()
    return path


@pytest.fixture
def run(library: Library, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    return Run(library, folder, monkeypatch)


def _links(folder: Path, outside: Path, tag: str) -> None:
    """Under ``folder``: a link to a PDF outside, a link to a folder of PDFs outside, a
    link to a PDF inside, and a link to a folder inside (not walked: the scan's rule)."""
    paper(outside / f"secret-{tag}.pdf", 1)
    paper(outside / "dir" / f"deep-{tag}.pdf", 2)
    paper(folder / "real" / f"real-{tag}.pdf", 3)
    (folder / f"out-{tag}.pdf").symlink_to(outside / f"secret-{tag}.pdf")
    (folder / f"outdir-{tag}").symlink_to(outside / "dir", target_is_directory=True)
    (folder / f"in-{tag}.pdf").symlink_to(folder / "real" / f"real-{tag}.pdf")
    (folder / f"indir-{tag}").symlink_to(folder / "real", target_is_directory=True)


def test_links_out_of_the_folder_are_never_followed_by_the_scan_or_an_event(
    run: Run, folder: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    _links(folder, outside, "scan")  # there before the watch: the initial scan's

    def script() -> Iterator[set[Path]]:
        yield set()
        _links(folder, outside, "event")  # made while watching: each one an event
        yield {
            folder / "out-event.pdf",
            folder / "outdir-event",
            folder / "in-event.pdf",
            folder / "indir-event",
            folder / "real",
        }
        run.clock.advance(5)
        yield set()

    run.watch(script)
    read = sorted(name for kind, name in run.kinds() if kind in ("ingested", "skipped"))
    # the same rule both ways: only what stays inside; a linked folder is not walked
    assert read == sorted(["in-event.pdf", "in-scan.pdf", "real-event.pdf", "real-scan.pdf"])
    assert not [p for p in run.parses if p and ("secret" in p or "deep" in p)]


def test_a_folder_that_disappears_is_said_and_watched_again_when_it_returns(
    run: Run, folder: Path, tmp_path: Path
) -> None:
    paper(folder / "before.pdf", 1)
    kept = tmp_path / "unmounted"

    def script() -> Iterator[set[Path]]:
        yield set()
        run.clock.advance(5)
        yield set()  # before.pdf ingested
        shutil.move(str(folder), str(kept))  # the drive is unmounted
        yield set()
        run.clock.advance(5)
        yield set()  # said once, not on every tick
        paper(kept / "while-away.pdf", 2)  # added elsewhere meanwhile
        shutil.move(str(kept), str(folder))  # mounted again: no event for its files
        yield set()
        run.clock.advance(5)
        yield set()

    run.watch(script)
    kinds = run.kinds()
    assert kinds[:3] == [
        ("ingested", "before.pdf"),
        ("folder_gone", "inbox"),
        ("folder_back", "inbox"),
    ]
    # scanned again as at a start: the new file read, the known one skipped by its hash
    assert sorted(kinds[3:]) == [("ingested", "while-away.pdf"), ("skipped", "before.pdf")]
    assert run.parses == [str(folder / "before.pdf"), str(folder / "while-away.pdf")]
    gone = run.actions[1]
    assert gone.path == str(folder) and "gone" in (gone.reason or "")


def test_the_cli_says_a_gone_folder_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    from prioris.interfaces.cli.watch_cmds import action_line
    from prioris.services.watching import WatchAction

    line = action_line(WatchAction("folder_gone", "/data/inbox", reason="gone"))
    assert line.startswith("gone     /data/inbox") and "come back" in line
    assert action_line(WatchAction("folder_back", "/data/inbox")).startswith("back     ")


def test_the_real_source_watches_a_folder_again_when_it_returns(tmp_path: Path) -> None:
    """watchfiles over a folder that is removed and made again: the source starts a new
    watch, and a file added to the new folder is an event (bounded by ticks, not time)."""
    import threading

    folder = tmp_path / "inbox"
    folder.mkdir()
    stop = threading.Event()
    seen: list[str] = []
    source = watchfiles_source([folder], tick_seconds=0.05, debounce_seconds=0.05)
    ticks = 0
    for batch in source(stop):
        ticks += 1
        seen.extend(str(p) for p in batch)
        if ticks == 2:
            shutil.rmtree(folder)
        elif ticks == 6:
            folder.mkdir()
        elif ticks > 8 and not any(p.endswith("late.pdf") for p in seen):
            (folder / "late.pdf").write_bytes(b"%PDF-1.4\n")
        if any(p.endswith("late.pdf") for p in seen) or ticks > 400:
            stop.set()
    assert any(p.endswith("late.pdf") for p in seen), f"no event after {ticks} ticks"
    assert os.path.isdir(folder)
