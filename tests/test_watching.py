"""The watched folder (issue 22): settling, ignored names, no re-parse of known content,
failures that cost one file, bursts in groups, the initial scan and Zotero re-sync.

The library, its ingest and the PDFs are real; the file-system events and the clock are
the fakes (a test's change source is a generator that changes files and yields the paths
it touched, the clock moves only when a test says so). One test at the end drives the
real ``watchfiles`` through :meth:`Library.watch`."""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError, InvalidRequestError, NotFoundError
from prioris.library import Library
from prioris.services.watching import (
    FolderWatcher,
    WatchAction,
    is_ignored_name,
    is_wanted,
    watchfiles_source,
)

from conftest import FakeOcr
from pdf_factory import make_text_pdf


class Clock:
    """The watcher's clock: it moves only when a test advances it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Run:
    """One watcher over a real library, its actions and a count of PDF parses."""

    def __init__(self, library: Library, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.library = library
        self.folder = folder
        self.clock = Clock()
        self.actions: list[WatchAction] = []
        self.parses: list[str | None] = []
        self.groups: list[int] = []
        self.ingest_with: Callable[[Any, Any], Any] | None = None  # a test's own wrapper
        real_prepare = library.pipeline.prepare_pdf

        def counting_prepare(*args: Any, **kwargs: Any) -> Any:
            self.parses.append(kwargs.get("path"))
            return real_prepare(*args, **kwargs)

        monkeypatch.setattr(library.pipeline, "prepare_pdf", counting_prepare)

    def ingest(self, paths: Any, done: Any) -> Any:
        self.groups.append(len(paths))
        return self.library.ingest_paths(paths, on_file_done=done)

    def watch(self, script: Callable[[], Iterator[set[Path]]], **options: Any) -> FolderWatcher:
        stop = threading.Event()

        def source(event: threading.Event) -> Iterator[set[Path]]:
            assert event is stop
            yield from script()

        watcher = FolderWatcher(
            [self.folder],
            ingest=self.ingest_with or self.ingest,
            changes=source,
            on_action=self.actions.append,
            clock=self.clock,
            **options,
        )
        watcher.run(stop)
        return watcher

    def kinds(self) -> list[tuple[str, str]]:
        return [(a.action, Path(a.path).name) for a in self.actions]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    path = tmp_path / "inbox"
    path.mkdir()
    return path


@pytest.fixture
def run(library: Library, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    return Run(library, folder, monkeypatch)


def paper(path: Path, n: int = 1) -> Path:
    return make_text_pdf(path, f"Watched paper {n}", [f"Body text of watched paper {n}. " * 8])


def test_a_file_is_read_only_once_it_stops_growing(run: Run, folder: Path, tmp_path: Path) -> None:
    whole = paper(tmp_path / "source.pdf").read_bytes()
    target = folder / "growing.pdf"

    def script() -> Iterator[set[Path]]:
        yield set()  # watching
        target.write_bytes(whole[: len(whole) // 2])  # a copy half-way
        yield {target}
        run.clock.advance(1.0)
        yield set()
        with target.open("ab") as handle:  # the copy goes on
            handle.write(whole[len(whole) // 2 :])
        run.clock.advance(1.0)
        yield {target}
        run.clock.advance(1.0)  # 2 s after it started, 1 s after it last grew
        yield set()
        assert run.actions == [] and run.parses == []  # never read half-written
        run.clock.advance(1.0)
        yield set()

    run.watch(script, settle_seconds=1.5)
    assert run.kinds() == [("ingested", "growing.pdf")]
    assert run.parses == [str(target)]
    assert run.library.list_works()  # stored, and whole: it parsed


def test_a_change_without_an_event_still_restarts_the_wait(run: Run, folder: Path) -> None:
    """The watcher looks at a waiting file on every tick, not only on its events."""
    target = paper(folder / "a.pdf")

    def script() -> Iterator[set[Path]]:
        yield {target}
        run.clock.advance(1.4)
        with target.open("ab") as handle:
            handle.write(b"\n% more bytes\n")
        yield set()  # no event for the append: the tick sees it
        run.clock.advance(1.4)
        yield set()
        assert run.actions == []
        run.clock.advance(0.2)
        yield set()

    run.watch(script, settle_seconds=1.5, initial_scan=False)
    assert run.kinds() == [("ingested", "a.pdf")]


def test_partial_downloads_lock_files_and_hidden_files_are_ignored(
    run: Run, folder: Path, tmp_path: Path
) -> None:
    source = paper(tmp_path / "source.pdf")
    names = [
        "paper.pdf.crdownload",
        "paper.pdf.part",
        "paper.pdf.partial",
        "paper.pdf.download",
        "~$paper.pdf",
        ".hidden.pdf",
        "notes.txt",
    ]
    hidden_dir = folder / ".cache"
    hidden_dir.mkdir()
    touched = {folder / name for name in names} | {hidden_dir / "inner.pdf"}

    def script() -> Iterator[set[Path]]:
        yield set()
        for path in touched:
            shutil.copy(source, path)
        yield set(touched) | {hidden_dir}
        run.clock.advance(5)
        yield set()
        assert run.actions == []
        # the browser finishes: the partial file is renamed to its real name
        (folder / "paper.pdf.crdownload").rename(folder / "paper.pdf")
        yield {folder / "paper.pdf.crdownload", folder / "paper.pdf"}
        run.clock.advance(5)
        yield set()

    run.watch(script, initial_scan=True)
    assert run.kinds() == [("ingested", "paper.pdf")]
    assert len(run.parses) == 1


def test_names_the_watcher_wants(tmp_path: Path) -> None:
    root = tmp_path / ".papers"  # a hidden root is watched when asked for
    assert is_wanted(root / "a.PDF", [root])
    assert is_wanted(root / "sub" / "b.pdf", [root])
    assert not is_wanted(root / ".git" / "b.pdf", [root])
    assert not is_wanted(root / "b.pdf.part", [root])
    assert not is_wanted(root / "~$b.pdf", [root])
    assert not is_wanted(root / "b.txt", [root])
    assert is_ignored_name("x.pdf.crdownload") and is_ignored_name(".x.pdf.swp")
    assert not is_ignored_name("x.pdf")


def test_a_moved_renamed_or_copied_file_is_not_parsed_again(run: Run, folder: Path) -> None:
    first = paper(folder / "a.pdf")
    moved = folder / "sub" / "renamed.pdf"
    copy = folder / "copy.pdf"

    def script() -> Iterator[set[Path]]:
        yield {first}
        run.clock.advance(2)
        yield set()
        assert run.kinds() == [("ingested", "a.pdf")]
        moved.parent.mkdir()
        first.rename(moved)
        shutil.copy(moved, copy)
        yield {first, moved.parent, moved, copy}  # the old name is gone: forgotten
        run.clock.advance(2)
        yield set()

    run.watch(script, initial_scan=False)
    assert sorted(run.kinds()[1:]) == [("skipped", "copy.pdf"), ("skipped", "renamed.pdf")]
    assert run.parses == [str(first)]  # one parse, for the first sight of these bytes
    skipped = run.actions[1:]
    assert {a.id for a in skipped} == {run.actions[0].id}
    assert all(a.reason == "identical bytes already stored" for a in skipped)
    assert len(run.library.list_works()) == 1


def test_a_folder_moved_in_is_walked(run: Run, folder: Path, tmp_path: Path) -> None:
    outside = tmp_path / "downloads" / "batch"
    paper(outside / "x.pdf", 1)
    paper(outside / "deeper" / "y.pdf", 2)
    inside = folder / "batch"

    def script() -> Iterator[set[Path]]:
        yield set()
        outside.rename(inside)
        yield {inside}  # one event for the folder, none for its files
        run.clock.advance(2)
        yield set()

    run.watch(script, initial_scan=False)
    assert sorted(run.kinds()) == [("ingested", "x.pdf"), ("ingested", "y.pdf")]


def test_failures_cost_one_file_and_watching_goes_on(
    run: Run, folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = folder / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nbroken beyond repair")
    not_pdf = folder / "not-a-pdf.pdf"
    not_pdf.write_bytes(b"<html>a login page saved as .pdf</html>")
    locked = paper(folder / "locked.pdf", 1)
    vanishing = paper(folder / "vanishing.pdf", 2)
    good = paper(folder / "good.pdf", 3)
    # permission denied, as the OS says it (the tests may run as root, who reads anything)
    # (a file is opened through os.open: without waiting, checked again once open)
    real_open = os.open

    def refusing_open(path: Any, *args: Any, **kwargs: Any) -> Any:
        if os.fspath(path).endswith("locked.pdf"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing_open)

    def script() -> Iterator[set[Path]]:
        yield {broken, not_pdf, locked, vanishing}
        run.clock.advance(1)
        vanishing.unlink()  # deleted before it settled
        yield set()
        run.clock.advance(1)
        yield set()
        shutil.copy(good, folder / "later.pdf")
        yield {folder / "later.pdf"}
        run.clock.advance(2)
        yield set()

    run.watch(script, initial_scan=False)
    failed = {Path(a.path).name: a.error for a in run.actions if a.action == "failed"}
    assert failed["broken.pdf"]["code"] == "parse_error"
    assert failed["not-a-pdf.pdf"]["code"] == "parse_error"
    assert failed["locked.pdf"]["code"] == "invalid_request"
    assert "permission denied" in failed["locked.pdf"]["message"]
    assert failed["vanishing.pdf"]["code"] == "not_found"
    assert "deleted before it settled" in failed["vanishing.pdf"]["message"]
    assert ("ingested", "later.pdf") in run.kinds()


def test_an_unexpected_error_costs_its_group_only(folder: Path) -> None:
    clock = Clock()
    actions: list[WatchAction] = []
    calls: list[list[str]] = []
    files = [paper(folder / f"p{i}.pdf", i) for i in range(3)]

    def ingest(paths: Any, done: Any) -> None:
        calls.append([p.name for p in paths])
        if len(calls) == 1:
            done(paths[0], None, NotFoundError("gone"))
            raise RuntimeError("database is locked")
        for path in paths:
            done(
                path,
                type(
                    "R",
                    (),
                    {"status": "ingested", "id": "w", "pages": 1, "ocr_pages": 0, "chunks": 1},
                )(),
                None,
            )

    def source(stop: threading.Event) -> Iterator[set[Path]]:
        yield set(files[:2])
        clock.advance(2)
        yield set()
        yield {files[2]}
        clock.advance(2)
        yield set()

    watcher = FolderWatcher(
        [folder],
        ingest=ingest,
        changes=source,
        on_action=actions.append,
        clock=clock,
        initial_scan=False,
    )
    stats = watcher.run(threading.Event())
    assert calls == [["p0.pdf", "p1.pdf"], ["p2.pdf"]]
    assert [(a.action, Path(a.path).name) for a in actions] == [
        ("failed", "p0.pdf"),
        ("failed", "p1.pdf"),
        ("ingested", "p2.pdf"),
    ]
    assert actions[1].error == {
        "code": "internal_error",
        "message": "RuntimeError: database is locked",
    }
    assert stats.to_dict() == {"ingested": 1, "skipped": 0, "failed": 2, "synced": 0}


def test_a_burst_of_200_files_is_ingested_in_groups(run: Run, folder: Path, tmp_path: Path) -> None:
    made = tmp_path / "made"
    sources = [paper(made / f"p{i:03d}.pdf", i) for i in range(200)]

    def script() -> Iterator[set[Path]]:
        yield set()
        arrived = set()
        for i, source in enumerate(sources):
            target = folder / source.name
            shutil.copy(source, target)
            arrived.add(target)
            if i % 50 == 49:  # the events come in a few large batches
                yield arrived
                arrived = set()
        run.clock.advance(2)
        yield set()

    watcher = run.watch(script, batch_size=16, initial_scan=False)
    assert sorted(run.kinds()) == sorted(("ingested", s.name) for s in sources)
    assert max(run.groups) <= 16 and sum(run.groups) == 200
    assert len(run.parses) == 200 and not watcher._waiting
    assert len(run.library.list_works(limit=500)) == 200


def test_a_file_changed_while_earlier_groups_are_ingested_waits_again(
    run: Run, folder: Path
) -> None:
    first, second = paper(folder / "a.pdf", 1), paper(folder / "b.pdf", 2)
    changed: list[bool] = []

    def ingest(paths: Any, done: Any) -> Any:
        if not changed:  # while a.pdf is ingested, b.pdf is being rewritten
            changed.append(True)
            with second.open("ab") as handle:
                handle.write(b"\n% rewritten\n")
        return run.ingest(paths, done)

    run.ingest_with = ingest

    def script() -> Iterator[set[Path]]:
        yield {first, second}
        run.clock.advance(2)
        yield set()
        assert run.kinds() == [("ingested", "a.pdf")]  # b.pdf waits again
        run.clock.advance(2)
        yield set()

    run.watch(script, batch_size=1, initial_scan=False)
    assert run.kinds() == [("ingested", "a.pdf"), ("ingested", "b.pdf")]
    assert run.groups == [1, 1]


def test_the_initial_scan_ingests_what_is_not_stored(run: Run, folder: Path) -> None:
    paper(folder / "old.pdf", 1)
    paper(folder / "nested" / "older.pdf", 2)
    run.library.ingest_paths([folder / "old.pdf"])
    run.parses.clear()

    def script() -> Iterator[set[Path]]:
        yield set()
        run.clock.advance(2)
        yield set()

    run.watch(script)
    assert sorted(run.kinds()) == [("ingested", "older.pdf"), ("skipped", "old.pdf")]
    assert run.parses == [str(folder / "nested" / "older.pdf")]


def test_no_initial_scan_leaves_existing_files(run: Run, folder: Path) -> None:
    paper(folder / "old.pdf")

    def script() -> Iterator[set[Path]]:
        yield set()
        run.clock.advance(5)
        yield set()

    run.watch(script, initial_scan=False)
    assert run.actions == []


def test_stop_ends_between_groups_and_leaves_the_rest(run: Run, folder: Path) -> None:
    files = [paper(folder / f"p{i}.pdf", i) for i in range(6)]
    stop = threading.Event()

    def ingest(paths: Any, done: Any) -> Any:
        stop.set()  # Ctrl-C while the first group is ingested
        return run.library.ingest_paths(paths, on_file_done=done)

    def source(event: threading.Event) -> Iterator[set[Path]]:
        yield set(files)
        run.clock.advance(2)
        yield set()
        raise AssertionError("the watcher asked for more after stop")

    watcher = FolderWatcher(
        [folder],
        ingest=ingest,
        changes=source,
        on_action=run.actions.append,
        clock=run.clock,
        batch_size=2,
        initial_scan=False,
    )
    watcher.run(stop)
    assert run.kinds() == [("ingested", "p0.pdf"), ("ingested", "p1.pdf")]


# -- Zotero --------------------------------------------------------------------------------
@pytest.fixture
def zotero_dir(tmp_path: Path) -> Path:
    path = tmp_path / "Zotero"
    path.mkdir()
    (path / "zotero.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    return path


def _zotero_watcher(
    folder: Path,
    zotero_dir: Path,
    clock: Clock,
    resync: Callable[[], Any],
    script: Any,
    actions: list[WatchAction],
    initial_scan: bool = False,
) -> FolderWatcher:
    return FolderWatcher(
        [folder],
        ingest=lambda paths, done: None,
        changes=lambda stop: script(),
        on_action=actions.append,
        clock=clock,
        initial_scan=initial_scan,
        resync=resync,
        zotero_files=[zotero_dir / n for n in ("zotero.sqlite", "zotero.sqlite-wal")],
        resync_delay=5.0,
    )


def test_zotero_is_resynced_once_its_files_are_quiet(folder: Path, zotero_dir: Path) -> None:
    clock, actions, calls = Clock(), [], []
    wal = zotero_dir / "zotero.sqlite-wal"

    def resync() -> dict[str, int]:
        calls.append(clock.now)
        return {"added": 2, "updated": 1, "removed": 0, "unchanged": 7, "failed": 0}

    def script() -> Iterator[set[Path]]:
        yield set()
        clock.advance(10)
        yield set()
        assert calls == []  # nothing changed: no sync
        for _ in range(4):  # Zotero writes its -wal (created now) in a burst
            with wal.open("ab") as handle:
                handle.write(b"frame" * 10)
            clock.advance(2)
            yield set()
        assert calls == []  # still writing
        clock.advance(4)
        yield set()
        assert calls == []  # 4 s quiet
        clock.advance(1)
        yield set()
        assert len(calls) == 1  # 5 s quiet: one sync
        clock.advance(30)
        yield set()

    _zotero_watcher(folder, zotero_dir, clock, resync, script, actions).run(threading.Event())
    assert len(calls) == 1
    assert [a.action for a in actions] == ["synced"]
    assert actions[0].to_dict()["added"] == 2 and actions[0].path.endswith("zotero.sqlite")


def test_a_failed_zotero_sync_is_reported_and_retried_on_the_next_change(
    folder: Path, zotero_dir: Path
) -> None:
    clock, actions, calls = Clock(), [], []
    db = zotero_dir / "zotero.sqlite"

    def resync() -> dict[str, int]:
        calls.append(clock.now)
        if len(calls) == 1:
            raise ConfigurationError("Zotero schema version 200 is not supported")
        if len(calls) == 2:
            raise OSError("disk on fire")
        return {"added": 0}

    def script() -> Iterator[set[Path]]:
        yield set()  # the initial sync fails
        for _ in range(2):
            clock.advance(1)
            os.utime(db, ns=(time.time_ns(), time.time_ns() + 10**9 * len(calls)))
            yield set()
            clock.advance(6)
            yield set()

    watcher = _zotero_watcher(folder, zotero_dir, clock, resync, script, actions, True)
    watcher.run(threading.Event())
    assert [(a.action, (a.error or {}).get("code")) for a in actions] == [
        ("failed", "configuration_error"),
        ("failed", "internal_error"),
        ("synced", None),
    ]


def test_library_watch_checks_its_folders_and_zotero(
    library: Library, folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stop = threading.Event()
    with pytest.raises(NotFoundError, match="no such folder"):
        library.watch([tmp_path / "nowhere"], stop=stop)
    with pytest.raises(InvalidRequestError, match="not a folder"):
        library.watch([paper(tmp_path / "a.pdf")], stop=stop)
    with pytest.raises(ConfigurationError, match="no Zotero database"):
        library.watch([folder], stop=stop, zotero=True, zotero_dir=tmp_path / "nozotero")


def test_library_watch_calls_zotero_sync_with_its_folder(
    library: Library, folder: Path, zotero_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--zotero`` re-syncs through :meth:`Library.zotero_sync` (the integrator's; a
    stand-in here), at start and after a change."""
    calls: list[Any] = []
    monkeypatch.setattr(  # the sync the watch calls (services/refimport.py)
        library.refimports, "zotero_sync", lambda d=None, **k: calls.append(d) or {}
    )
    clock, actions = Clock(), []

    def changes(stop: threading.Event) -> Iterator[set[Path]]:
        yield set()
        (zotero_dir / "zotero.sqlite-wal").write_bytes(b"x")
        clock.advance(1)
        yield set()
        clock.advance(6)
        yield set()

    library.watch(
        [folder],
        stop=threading.Event(),
        on_action=actions.append,
        zotero=True,
        zotero_dir=zotero_dir,
        changes=changes,
        clock=clock,
    )
    assert calls == [zotero_dir, zotero_dir]
    assert [a.action for a in actions] == ["synced", "synced"]


# -- both engines: Library.watch end to end, with the fake change source -------------------
@pytest.fixture
def engine_library(backend_settings: Any) -> Iterator[Library]:
    with Library.open(backend_settings, embedder=FakeEmbedder(), ocr=FakeOcr()) as library:
        yield library


def test_library_watch_on_each_engine(engine_library: Library, folder: Path) -> None:
    library = engine_library
    clock, actions = Clock(), []
    first = paper(folder / "a.pdf", 1)

    def changes(stop: threading.Event) -> Iterator[set[Path]]:
        yield set()
        clock.advance(2)
        yield set()
        first.rename(folder / "b.pdf")
        yield {first, folder / "b.pdf"}
        clock.advance(2)
        yield set()

    ready: list[int] = []
    stats = library.watch(
        [folder],
        stop=threading.Event(),
        on_action=actions.append,
        on_ready=lambda: ready.append(len(actions)),
        changes=changes,
        clock=clock,
    )
    assert ready == [0]  # once, when watching began, before any action
    assert [(a.action, Path(a.path).name) for a in actions] == [
        ("ingested", "a.pdf"),
        ("skipped", "b.pdf"),
    ]
    assert stats.to_dict() == {"ingested": 1, "skipped": 1, "failed": 0, "synced": 0}
    assert len(library.list_works()) == 1


# -- the real watchfiles -----------------------------------------------------------------
def test_real_watchfiles_ingests_dropped_and_moved_files(
    data_dir: Path, folder: Path, tmp_path: Path
) -> None:
    from prioris.config import load_settings

    made = [paper(tmp_path / "made" / f"r{i}.pdf", i) for i in range(5)]
    outside = tmp_path / "downloads" / "batch"
    paper(outside / "deep" / "f.pdf", 9)
    actions: list[WatchAction] = []
    ready = threading.Event()
    stop = threading.Event()
    with Library.open(load_settings(), embedder=FakeEmbedder(), ocr=FakeOcr()) as library:

        def watch() -> None:
            library.watch(
                [folder],
                stop=stop,
                on_action=actions.append,
                on_ready=ready.set,
                settle_seconds=0.3,
                changes=watchfiles_source([folder], tick_seconds=0.1),
            )

        thread = threading.Thread(target=watch)
        thread.start()
        try:
            assert ready.wait(10)
            for source in made:
                shutil.copy(source, folder / source.name)
            (folder / "half.pdf.part").write_bytes(made[0].read_bytes()[:100])
            _wait_for(lambda: len(actions) >= 5, actions)
            (folder / "r0.pdf").rename(folder / "moved.pdf")
            _wait_for(lambda: len(actions) >= 6, actions)
            outside.rename(folder / "batch")  # a folder moved in: one event, for it
            _wait_for(lambda: len(actions) >= 7, actions)
            os.chmod(folder / "batch", 0o700)  # the folder's own change: nothing to hash
            time.sleep(1.0)
        finally:
            stop.set()
            thread.join(timeout=10)
        assert not thread.is_alive()
    names = sorted((a.action, Path(a.path).name) for a in actions)
    assert names == [
        ("ingested", "f.pdf"),
        *(("ingested", f"r{i}.pdf") for i in range(5)),
        ("skipped", "moved.pdf"),
    ]


def _wait_for(condition: Callable[[], bool], actions: list[WatchAction]) -> None:
    deadline = time.monotonic() + 15
    while not condition():
        assert time.monotonic() < deadline, [a.to_dict() for a in actions]
        time.sleep(0.05)
