"""UploadSessions: sequential chunks, size bounds, session cap, idle expiry, cleanup."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError
from prioris.ingest.uploads import UploadSessions, base64_decoded_size, decode_base64_checked


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def make(tmp_path: Path, **limits: object) -> UploadSessions:
    options: dict = {
        "max_total_bytes": 100,
        "max_chunk_bytes": 10,
        "max_sessions": 2,
        "idle_timeout": 60.0,
        "clock": FakeClock(),
    }
    options.update(limits)
    return UploadSessions(tmp_path / "uploads", **options)


def test_chunks_in_order_assemble_the_file(tmp_path: Path) -> None:
    sessions = make(tmp_path)
    info = sessions.begin("dir/paper.pdf")
    assert info.filename == "paper.pdf" and info.next_index == 0
    assert info.max_chunk_bytes == 10 and info.max_total_bytes == 100
    sessions.append(info.session_id, 0, b"0123456789")
    after = sessions.append_base64(info.session_id, 1, base64.b64encode(b"abc").decode())
    assert (after.next_index, after.received_bytes) == (2, 13)
    done = sessions.finalize(info.session_id)
    assert done.data == b"0123456789abc" and done.chunks == 2 and done.filename == "paper.pdf"
    assert not list((tmp_path / "uploads").iterdir())  # temp file removed
    with pytest.raises(NotFoundError):
        sessions.append(info.session_id, 2, b"x")  # finalized sessions are gone


def test_out_of_order_and_repeated_indexes_are_refused(tmp_path: Path) -> None:
    sessions = make(tmp_path)
    sid = sessions.begin().session_id
    with pytest.raises(InvalidRequestError, match="expected index 0"):
        sessions.append(sid, 1, b"a")
    sessions.append(sid, 0, b"a")
    with pytest.raises(InvalidRequestError, match="expected index 1"):
        sessions.append(sid, 0, b"a")  # a resent chunk is not appended twice
    sessions.append(sid, 1, b"b")
    assert sessions.finalize(sid).data == b"ab"


def test_chunk_and_total_limits(tmp_path: Path) -> None:
    sessions = make(tmp_path, max_total_bytes=25)
    sid = sessions.begin().session_id
    with pytest.raises(FileTooLargeError):
        sessions.append(sid, 0, b"x" * 11)
    with pytest.raises(FileTooLargeError):  # checked on the encoded length
        sessions.append_base64(sid, 0, "A" * 400)
    sessions.append(sid, 0, b"x" * 10)
    sessions.append(sid, 1, b"x" * 10)
    with pytest.raises(FileTooLargeError, match="discarded"):
        sessions.append(sid, 2, b"x" * 10)
    with pytest.raises(NotFoundError):
        sessions.finalize(sid)
    with pytest.raises(FileTooLargeError):
        sessions.begin("big.pdf", expected_bytes=26)


def test_session_cap_and_idle_expiry(tmp_path: Path) -> None:
    clock = FakeClock()
    sessions = make(tmp_path, clock=clock)
    first = sessions.begin().session_id
    sessions.begin()
    with pytest.raises(InvalidRequestError, match="too many open upload sessions"):
        sessions.begin()
    clock.now += 30
    sessions.append(first, 0, b"a")  # activity keeps the first one alive
    clock.now += 45  # the second is now 75 s idle, the first 45 s
    third = sessions.begin().session_id
    assert sessions.open_sessions() == 2
    clock.now += 61
    assert sorted(sessions.expire()) == sorted([first, third])
    assert not list((tmp_path / "uploads").iterdir())
    with pytest.raises(NotFoundError, match="expired"):
        sessions.append(first, 1, b"b")


def test_finalize_without_chunks_and_bad_base64(tmp_path: Path) -> None:
    sessions = make(tmp_path)
    sid = sessions.begin().session_id
    with pytest.raises(InvalidRequestError, match="no chunks"):
        sessions.finalize(sid)
    with pytest.raises(InvalidRequestError, match="base64"):
        sessions.append_base64(sid, 0, "not base64!")
    with pytest.raises(InvalidRequestError, match="empty"):
        sessions.append(sid, 0, b"")


def test_close_removes_everything(tmp_path: Path) -> None:
    sessions = make(tmp_path)
    sid = sessions.begin().session_id
    sessions.append(sid, 0, b"abc")
    sessions.close()
    assert not (tmp_path / "uploads").exists()


def test_decode_base64_checked_bounds_before_decoding() -> None:
    data = b"%PDF-1.7 hello"
    encoded = base64.b64encode(data).decode()
    assert base64_decoded_size(encoded) >= len(data)
    assert decode_base64_checked(encoded, len(data)) == data
    assert decode_base64_checked(encoded[:8] + "\n" + encoded[8:], len(data)) == data
    with pytest.raises(FileTooLargeError):
        decode_base64_checked(encoded, len(data) - 5)


def test_an_oversized_chunk_is_refused_before_any_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size check reads the encoded length: nothing is decoded or allocated first."""
    import tracemalloc

    from prioris.ingest import uploads

    decoded: list[int] = []
    real = uploads.base64.b64decode

    def spy(data: object, *args: object, **kwargs: object) -> bytes:
        decoded.append(len(data))  # type: ignore[arg-type]
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(uploads.base64, "b64decode", spy)
    sessions = make(tmp_path, max_total_bytes=4 << 20, max_chunk_bytes=1 << 20)
    sid = sessions.begin().session_id
    big = base64.b64encode(b"%" * (6 << 20)).decode()  # decodes to 6 MiB, limit 1 MiB
    tracemalloc.start()
    try:
        with pytest.raises(FileTooLargeError, match="chunk 0 decodes to about"):
            sessions.append_base64(sid, 0, big)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert decoded == []
    assert peak < 256 * 1024  # far below the 6 MiB a decode would allocate
    ok = base64.b64encode(b"%" * (1 << 20)).decode()  # exactly the limit: accepted
    assert sessions.append_base64(sid, 0, ok).received_bytes == 1 << 20
    assert decoded == [len(ok)]


def test_base64_bounds_and_messages() -> None:
    assert base64_decoded_size("AAAAAA") == 4 and isinstance(base64_decoded_size("AAAAAA"), int)
    for empty in ("", "   ", None):
        with pytest.raises(InvalidRequestError, match="content is empty; send the bytes as base64"):
            decode_base64_checked(empty, 10)  # type: ignore[arg-type]
    # 8 characters estimate 6 bytes: over a 3-byte limit (+2 for padding) before decoding
    with pytest.raises(FileTooLargeError, match=r"^chunk 3 decodes to about 6 bytes, over the 3"):
        decode_base64_checked("AAAAAAAA", 3, what="chunk 3")
    # within the estimate's slack, the decoded length decides
    with pytest.raises(FileTooLargeError, match=r"^content is 6 bytes, over the 5-byte limit$"):
        decode_base64_checked("AAAAAAAA", 5)
    assert decode_base64_checked("AAAAAA==", 4) == b"\0\0\0\0"


def test_limits_must_be_positive_and_one_is_enough(tmp_path: Path) -> None:
    for bad in (
        {"max_chunk_bytes": 0},
        {"max_total_bytes": 0},
        {"max_sessions": 0},
        {"idle_timeout": 0.0},
    ):
        with pytest.raises(ValueError, match=r"^upload limits must be positive$"):
            make(tmp_path, **bad)
    tiny = make(tmp_path, max_total_bytes=1, max_chunk_bytes=1, max_sessions=1, idle_timeout=0.5)
    sid = tiny.begin(expected_bytes=1).session_id
    assert tiny.append(sid, 0, b"x").received_bytes == 1
    assert tiny.finalize(sid).data == b"x"


def test_edges_of_the_size_limits_and_their_messages(tmp_path: Path) -> None:
    sessions = make(tmp_path / "deep" / "er", max_total_bytes=20)
    info = sessions.begin("c:\\Users\\me\\paper.pdf", expected_bytes=20)  # exactly the limit
    assert len(info.session_id) == 32 and info.filename == "paper.pdf"
    with pytest.raises(FileTooLargeError, match=r"limit \(PRIORIS_MCP_MAX_FILE_BYTES\)$"):
        sessions.begin(expected_bytes=21)
    with pytest.raises(
        FileTooLargeError, match=r"^chunk 0 is 11 bytes, over the 10-byte chunk limit$"
    ):
        sessions.append(info.session_id, 0, b"x" * 11)
    sessions.append(info.session_id, 0, b"x" * 10)
    sessions.append(info.session_id, 1, b"y" * 10)  # the total reaches the limit exactly
    done = sessions.finalize(info.session_id)
    assert done.sha256 == hashlib.sha256(b"x" * 10 + b"y" * 10).hexdigest()
    sid = sessions.begin().session_id
    sessions.append(sid, 0, b"z" * 10)
    sessions.append(sid, 1, b"z" * 10)
    with pytest.raises(
        FileTooLargeError, match=r"\(PRIORIS_MCP_MAX_FILE_BYTES\); the session was discarded$"
    ):
        sessions.append(sid, 2, b"z")


def test_discard_and_expiry_edges(tmp_path: Path) -> None:
    clock = FakeClock()
    sessions = make(tmp_path, clock=clock)
    sid = sessions.begin().session_id
    sessions.append(sid, 0, b"abc")
    sessions.discard("no-such-session")  # unknown ids are ignored
    temp = next((tmp_path / "uploads").iterdir())
    temp.unlink()  # removed behind our back: discarding still works
    sessions.discard(sid)
    assert sessions.open_sessions() == 0
    kept = sessions.begin().session_id
    clock.now += 60  # exactly the idle timeout: not yet expired
    assert sessions.expire() == [] and sessions.open_sessions() == 1
    clock.now += 0.001
    assert sessions.expire() == [kept]


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("a/b/c.pdf", "c.pdf"),
        ("dir\\sub\\x.pdf", "x.pdf"),
        ("/", None),
        ("  spaced.pdf  ", "spaced.pdf"),
        ("n" * 300 + ".pdf", "n" * 255),
        (None, None),
    ],
)
def test_only_a_base_name_is_kept(tmp_path: Path, given: str | None, kept: str | None) -> None:
    assert make(tmp_path).begin(given).filename == kept


def test_base64_is_strict_and_close_leaves_foreign_files(tmp_path: Path) -> None:
    sessions = make(tmp_path)
    sid = sessions.begin().session_id
    with pytest.raises(InvalidRequestError, match="not valid base64"):
        sessions.append_base64(sid, 0, "QUJD*")  # a stray character is an error, not dropped
    assert sessions.append_base64(sid, 0, "QUJD").received_bytes == 3
    foreign = tmp_path / "uploads" / "someone-elses.txt"
    foreign.write_text("keep me")
    sessions.close()  # the folder is not empty: it stays, and no error is raised
    assert foreign.read_text() == "keep me"
    assert [p.name for p in (tmp_path / "uploads").iterdir()] == ["someone-elses.txt"]
