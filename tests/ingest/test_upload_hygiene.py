"""Upload sessions do not hoard: idle sessions yield to waiting clients, parts of a killed
server are swept, and parts live beside the library file."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.ingest.uploads import SWEEP_INTERVAL, UploadSessions, upload_directory


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(folder: Path, clock: FakeClock, **options: object) -> UploadSessions:
    limits: dict = {"max_total_bytes": 100, "max_chunk_bytes": 10, "max_sessions": 2}
    limits.update(options)
    return UploadSessions(folder, idle_timeout=900.0, clock=clock, **limits)


def test_idle_sessions_yield_to_a_waiting_client(tmp_path: Path) -> None:
    clock = FakeClock()
    sessions = make(tmp_path / "uploads", clock, contended_idle_timeout=60.0)
    first = sessions.begin("a.pdf").session_id
    second = sessions.begin("b.pdf").session_id
    clock.now += 50
    sessions.append(second, 0, b"b")  # the second client is active
    clock.now += 20  # the first has idled 70 s, the second 20 s
    third = sessions.begin("c.pdf").session_id  # the first one's slot is reclaimed
    assert sessions.open_sessions() == 2
    with pytest.raises(NotFoundError):
        sessions.append(first, 0, b"a")
    clock.now += 30  # second idle 50 s, third 30 s: nobody to reclaim yet
    with pytest.raises(InvalidRequestError, match=r"retry in 10 s"):
        sessions.begin("d.pdf")
    sessions.append(third, 0, b"c")
    assert sessions.finalize(second).data == b"b"
    assert len(list((tmp_path / "uploads").glob("*.part"))) == 1  # only the third's


def test_without_contention_a_session_keeps_the_long_idle_timeout(tmp_path: Path) -> None:
    clock = FakeClock()
    sessions = make(tmp_path / "uploads", clock)
    sid = sessions.begin().session_id
    clock.now += 800  # far past the contended timeout, but nobody waited
    sessions.append(sid, 0, b"x")
    assert sessions.finalize(sid).data == b"x"


def _part(folder: Path, name: str, age: float) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(b"leftover")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_stale_parts_are_swept_at_start_and_later(tmp_path: Path) -> None:
    folder = tmp_path / "uploads"
    stale = _part(folder, "upload-aaaa.part", age=3600)
    fresh = _part(folder, "upload-bbbb.part", age=10)  # maybe another live server's
    other = _part(folder, "notes.txt", age=3600)  # not ours: never touched
    clock = FakeClock()
    sessions = make(folder, clock)
    assert not stale.exists() and fresh.exists() and other.exists()
    mine = sessions.begin().session_id
    own_part = next(p for p in folder.glob("*.part") if mine in p.name)
    old = time.time() - 3600
    os.utime(own_part, (old, old))  # an open session is never swept, however old its file
    late = _part(folder, "upload-cccc.part", age=3600)
    clock.now += SWEEP_INTERVAL
    sessions.open_sessions()
    assert not late.exists() and own_part.exists() and fresh.exists()
    sessions.close()
    assert not own_part.exists() and fresh.exists()


def test_uploads_live_beside_the_library_file(tmp_path: Path) -> None:
    assert upload_directory(tmp_path / "libs" / "main.sqlite") == tmp_path / "libs" / "uploads"
