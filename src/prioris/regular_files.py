"""Reading a file someone else's program named, bounded before a byte is read.

A reference manager's attachment, a Zotero database's companion files and a file in a
watched folder are paths Prioris did not choose. Opening one that is a FIFO waits forever
for a writer; a device (``/dev/zero``) never ends; a file past the size limit fills the
memory; a link may lead out of the folder it was found in. So a file is looked at before
it is opened (``stat``: a regular file, within the limit), opened without waiting
(``O_NONBLOCK``: a FIFO swapped in meanwhile opens at once instead of hanging) and looked
at again through the open descriptor (``fstat``: what is read is what was checked), then
read to at most the limit. :func:`inside` says whether a path, links followed, stays in a
folder.

In the base layer because the refman readers, the sync and the watcher all need it and
none of them may import the others.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError

_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_BINARY", 0)
)


def kind_of(mode: int) -> str:
    """What a file's mode says it is, in words (``a FIFO``, ``a folder``, ...)."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular(path: Path, max_bytes: int) -> os.stat_result:
    """``path``'s stat when it is a regular file of at most ``max_bytes`` (links
    followed); else NotFoundError, InvalidRequestError naming its kind, or
    FileTooLargeError. Nothing is opened."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise NotFoundError(f"file not found: {path}") from None
    except (OSError, ValueError) as exc:
        raise InvalidRequestError(f"cannot look at {path}: {_reason(exc)}") from None
    _check_info(path, info, max_bytes)
    return info


def open_regular(path: Path, max_bytes: int) -> BinaryIO:
    """``path`` opened for reading after :func:`check_regular`, checked again through the
    descriptor (a file swapped for a FIFO or a device in between is refused, not read)."""
    check_regular(path, max_bytes)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise NotFoundError(f"file not found: {path}") from None
    except OSError as exc:
        raise InvalidRequestError(f"cannot read {path}: {_reason(exc)}") from None
    try:
        _check_info(path, os.fstat(fd), max_bytes)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # a regular file: ordinary reads from here
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them (a file that
    grew past the limit while it was read is FileTooLargeError); refusals as
    :func:`check_regular`."""
    with open_regular(path, max_bytes) as handle:
        try:
            data = handle.read(max_bytes + 1)
        except OSError as exc:
            raise InvalidRequestError(f"cannot read {path}: {_reason(exc)}") from None
    if len(data) > max_bytes:
        raise FileTooLargeError(f"{path} grew past the limit of {max_bytes} bytes")
    return data


def read_head(path: Path, count: int, max_bytes: int) -> bytes:
    """The first ``count`` bytes of the regular file ``path`` (a file's magic number),
    refusals as :func:`check_regular`."""
    with open_regular(path, max_bytes) as handle:
        return handle.read(count)


def copy_regular(source: Path, target: Path, max_bytes: int) -> None:
    """A plain read of the regular file ``source`` into ``target``, at most ``max_bytes``
    (refusals as :func:`check_regular`; a source that grows past it mid-copy too)."""
    with open_regular(source, max_bytes) as src, target.open("wb") as dst:
        copied = 0
        while True:
            block = src.read(1 << 20)
            if not block:
                break
            copied += len(block)
            if copied > max_bytes:
                raise FileTooLargeError(f"{source} grew past the limit of {max_bytes} bytes")
            dst.write(block)


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path``, every link on the way followed, is ``folder`` or below it (also
    resolved): a link that leads out of a folder is not the folder's file."""
    try:
        real = Path(os.path.realpath(path))
        root = Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return False
    return real == root or root in real.parents


def _check_info(path: Path, info: os.stat_result, max_bytes: int) -> None:
    if not stat.S_ISREG(info.st_mode):
        raise InvalidRequestError(f"{path} is {kind_of(info.st_mode)}, not a file: not read")
    if info.st_size > max_bytes:
        raise FileTooLargeError(
            f"{path} is {info.st_size} bytes, over the limit of {max_bytes}: not read"
        )


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return type(exc).__name__


__all__ = [
    "check_regular",
    "copy_regular",
    "inside",
    "kind_of",
    "open_regular",
    "read_head",
    "read_regular",
]
