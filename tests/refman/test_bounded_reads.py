"""Every byte read from a reference manager is bounded before it is read (issue 40).

An attachment that is a FIFO, a device or a file past the size limit is reported and
never opened; Zotero's database companions (``-wal``, ``-journal``) likewise; a link in
Zotero's ``storage/`` that leads out of it is not followed. "Never opened" is watched
directly: ``os.open`` and ``io.open`` are spied on, and each FIFO has a writer waiting in a
thread, which gets through only if someone opened the FIFO for reading (so a reader that
did open it gets an end of file instead of hanging, and the test says so; no clock).
"""

from __future__ import annotations

import io
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from prioris.errors import ConfigurationError
from prioris.refman.items import PDF, RefAttachment, RefItem
from prioris.refman.zotero import ZoteroSnapshot

from conftest import shared_path
from pdf_factory import make_text_pdf


class Fifo:
    """A FIFO with a writer waiting on it: ``opened`` says whether a reader came."""

    def __init__(self, path: Path) -> None:
        self.path = path
        os.mkfifo(path)
        self.opened = threading.Event()
        self.thread = threading.Thread(target=self._write, daemon=True)
        self.thread.start()

    def _write(self) -> None:
        with open(self.path, "wb"):  # blocks until a reader opens the FIFO
            self.opened.set()

    def release(self) -> bool:
        """Whether a reader had opened it; then let the writer go (our own reader)."""
        was = self.opened.is_set()
        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        self.thread.join(5)
        os.close(fd)
        return was


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every path opened through ``os.open`` or ``io.open`` (what pathlib uses)."""
    seen: list[str] = []
    real_os_open, real_io_open = os.open, io.open

    def os_open(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(os.fsdecode(path) if not isinstance(path, int) else str(path))
        return real_os_open(path, *args, **kwargs)

    def io_open(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(file, str | bytes | os.PathLike):
            seen.append(os.fsdecode(file))
        return real_io_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", os_open)
    monkeypatch.setattr(io, "open", io_open)
    yield seen


def _item(key: str, path: Path) -> RefItem:
    return RefItem(
        source="zotero",
        key=key,
        record={"title": f"Item {key}", "year": 2020},
        version="1",
        attachments=(RefAttachment(key=f"A{key}", content_type=PDF, path=path),),
    )


def test_a_fifo_a_device_and_a_file_past_the_limit_are_reported_never_opened(
    library, tmp_path: Path, opened: list[str]
) -> None:
    fifo = Fifo(tmp_path / "pipe.pdf")
    device = tmp_path / "null.pdf"
    device.symlink_to("/dev/null")
    big = make_text_pdf(
        tmp_path / "big.pdf", "A big paper", [f"Page {n} of a long paper." for n in range(40)]
    )
    small = make_text_pdf(tmp_path / "small.pdf", "A small paper", ["Fine words."])
    library.refsync.max_file_bytes = small.stat().st_size + 100  # the library's file limit
    assert big.stat().st_size > library.refsync.max_file_bytes
    items = [_item("PIPE0001", fifo.path), _item("NULL0001", device), _item("BIGG0001", big)]
    report = library.refsync.sync("zotero", [*items, _item("SMAL0001", small)])
    assert not fifo.release(), "the FIFO was opened"
    assert str(big) not in opened and str(device) not in opened
    assert str(small) in opened  # the rule is the limit, not "never open anything"
    reasons = {m["key"]: m["reason"] for m in report.files_missing}
    assert "FIFO" in reasons["PIPE0001"]
    assert "character device" in reasons["NULL0001"]
    assert "over the limit" in reasons["BIGG0001"]
    assert report.added == 4 and report.files_ingested == 1  # kept with their metadata
    assert library.get_work("zotero:PIPE0001").title == "Item PIPE0001"


def test_a_bib_whose_links_are_a_fifo_and_a_device_imports_without_opening_them(
    library, tmp_path: Path, opened: list[str]
) -> None:
    from prioris.refman.references import read_references

    fifo = Fifo(tmp_path / "pipe.pdf")
    (tmp_path / "zero.pdf").symlink_to("/dev/zero")
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{a, title={A}, file={:pipe.pdf:application/pdf}}\n"
        "@article{b, title={B}, file={:zero.pdf:application/pdf}}\n",
        encoding="utf-8",
    )
    items, _errors = read_references(bib)
    assert not fifo.release(), "the FIFO was opened"
    assert str(tmp_path / "zero.pdf") not in opened
    missing = {i.key: i.attachments[0].missing for i in items}
    assert "FIFO" in missing["a"] and "character device" in missing["b"]


def test_a_fifo_given_as_the_reference_file_is_refused(tmp_path: Path) -> None:
    from prioris.errors import InvalidRequestError
    from prioris.refman.references import read_references

    fifo = Fifo(tmp_path / "refs.bib")
    with pytest.raises(InvalidRequestError, match="FIFO"):
        read_references(fifo.path)
    assert not fifo.release()


def _database(folder: Path) -> Path:
    folder.mkdir()
    conn = sqlite3.connect(folder / "zotero.sqlite")
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    conn.close()
    return folder


@pytest.mark.parametrize("companion", ["zotero.sqlite-wal", "zotero.sqlite-journal"])
def test_zotero_companions_that_are_fifos_are_refused_not_opened(
    tmp_path: Path, companion: str
) -> None:
    folder = _database(tmp_path / "Zotero")
    fifo = Fifo(folder / companion)
    snapshot = ZoteroSnapshot(folder, sleep=lambda s: None)
    with pytest.raises(ConfigurationError, match="FIFO"), snapshot:
        pass
    assert not fifo.release(), f"{companion} was opened"


def test_zotero_companions_past_the_limit_are_refused(tmp_path: Path) -> None:
    folder = _database(tmp_path / "Zotero")
    limit = (folder / "zotero.sqlite").stat().st_size + 10
    (folder / "zotero.sqlite-wal").write_bytes(b"\0" * (limit + 1))
    snapshot = ZoteroSnapshot(folder, sleep=lambda s: None, max_bytes=limit)
    with pytest.raises(ConfigurationError, match="over the limit"), snapshot:
        pass
    with ZoteroSnapshot(folder, sleep=lambda s: None, max_bytes=limit * 100) as conn:
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_a_link_in_zotero_storage_is_not_followed_out_of_it(tmp_path: Path) -> None:
    from prioris.refman.zotero import read_library
    from refman.zotero_factory import add_attachment, add_item, make_zotero_dir, open_db

    data_dir = make_zotero_dir(tmp_path, shared_path("fixtures", "zotero", "schema"))
    secret = make_text_pdf(tmp_path / "outside" / "secret.pdf", "Secret", ["Not Zotero's."])
    inner = make_text_pdf(tmp_path / "inner.pdf", "Inner", ["Zotero's own."])
    with open_db(data_dir) as db:
        for key in ("ITEMOUT1", "ITEMIN01", "ITEMDIR1"):
            add_item(db, key, "journalArticle", {"title": key})
        add_attachment(db, data_dir, "ATTOUT01", "ITEMOUT1", file_name="p.pdf", content=None)
        add_attachment(db, data_dir, "ATTIN001", "ITEMIN01", file_name="p.pdf", content=None)
        add_attachment(db, data_dir, "ATTDIR01", "ITEMDIR1", file_name="p.pdf", content=None)
    storage = data_dir / "storage"
    (storage / "ATTOUT01").mkdir()
    (storage / "ATTOUT01" / "p.pdf").symlink_to(secret)  # a link out of storage/
    (storage / "ATTIN001").mkdir()
    (storage / "ATTIN001" / "p.pdf").write_bytes(inner.read_bytes())
    (storage / "ATTDIR01").symlink_to(secret.parent, target_is_directory=True)
    (secret.parent / "p.pdf").write_bytes(secret.read_bytes())  # a folder linked out
    read = read_library(data_dir)
    files = {i.key: i.attachments[0] for i in read.items}
    assert files["ITEMIN01"].path is not None and not files["ITEMIN01"].missing
    for key in ("ITEMOUT1", "ITEMDIR1"):
        assert files[key].path is None and "leads out of" in files[key].missing, key
