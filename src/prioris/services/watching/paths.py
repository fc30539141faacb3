"""Which files and folders the watcher looks at, and how it looks at one.

The rules a real folder needs, in one place for the change source (:mod:`.source`), the
settle queue (:mod:`.settle`) and the watcher (:mod:`.watcher`): the folders and Zotero
directory checked before anything is watched, which names are never worth an event
(hidden, office lock files, partial downloads), which files are wanted (PDFs not inside a
hidden folder below a watched root), a file's ``stat`` signature and the walk of a folder.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from prioris.errors import ConfigurationError, InvalidRequestError, NotFoundError
from prioris.ingest.batch import check_path
from prioris.regular_files import inside

# the name the watcher logged under before it was split into a package (log filters use it)
log = logging.getLogger("prioris.services.watching")

PARTIAL_SUFFIXES = (".crdownload", ".part", ".partial", ".download", ".tmp", ".opdownload")
ZOTERO_FILES = ("zotero.sqlite", "zotero.sqlite-wal", "zotero.sqlite-journal")


def default_zotero_dir() -> Path:
    """Zotero's default data directory (``~/Zotero`` on Linux, macOS and Windows alike)."""
    return Path.home() / "Zotero"


def zotero_database_files(zotero_dir: Path | None) -> list[Path]:
    """The files whose change means Zotero's library changed: the database and its
    write-ahead log or rollback journal (either may appear and vanish while Zotero runs)."""
    folder = (zotero_dir or default_zotero_dir()).expanduser()
    return [folder / name for name in ZOTERO_FILES]


def check_folders(folders: Sequence[str | Path]) -> list[Path]:
    """The folders to watch as absolute paths (events name files under them), each an
    existing folder: not_found or invalid_request before anything is watched."""
    if not folders:
        raise InvalidRequestError("name at least one folder to watch")
    roots: list[Path] = []
    for raw in folders:
        check_path(raw)
        path = Path(raw).expanduser()
        if not path.exists():
            raise NotFoundError(f"no such folder: {path}")
        if not path.is_dir():
            raise InvalidRequestError(f"not a folder: {path} (watch takes folders)")
        resolved = path.resolve()
        if resolved not in roots:
            roots.append(resolved)
    return roots


def check_zotero_dir(zotero_dir: Path | None) -> list[Path]:
    """Zotero's database files in ``zotero_dir`` (default: :func:`default_zotero_dir`);
    configuration_error when it holds no ``zotero.sqlite``."""
    files = zotero_database_files(zotero_dir)
    if not files[0].is_file():
        raise ConfigurationError(
            f"no Zotero database at {files[0]} (give Zotero's data directory with --zotero-dir)"
        )
    return files


def is_wanted(path: Path, roots: Sequence[Path] = ()) -> bool:
    """True for a ``.pdf`` file name the watcher may ingest: not a partial download, an
    office lock file or a hidden file, and not inside a hidden folder below a watched root
    (a root itself may be hidden: ``~/.papers`` is watched if asked for)."""
    name = path.name
    if not name.lower().endswith(".pdf") or name.startswith((".", "~$")):
        return False
    return not hidden_below(path.parent, roots)


def is_ignored_name(name: str) -> bool:
    """Names never worth an event: hidden, office lock files and partial downloads."""
    lowered = name.lower()
    return name.startswith((".", "~$")) or lowered.endswith(PARTIAL_SUFFIXES)


def hidden_below(folder: Path, roots: Sequence[Path]) -> bool:
    """True when ``folder`` is, or is inside, a hidden folder below one of ``roots``."""
    for root in roots:
        try:
            inner = folder.relative_to(root)
        except ValueError:
            continue
        return any(part.startswith(".") for part in inner.parts)
    return False


def within(path: Path, roots: Sequence[Path]) -> bool:
    """Whether ``path``, its links followed, is under one of the watched ``roots``: a
    link that leads out of the watched folders is never followed, by the initial scan
    and by an event alike (with no roots, nothing is refused)."""
    return not roots or any(inside(path, root) for root in roots)


def walkable(path: Path) -> bool:
    """A folder the watcher walks: a real folder, not a link to one (the initial scan's
    ``os.walk`` does not follow links to folders, so an event does not either)."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode)


def pdfs_under(folder: Path, roots: Sequence[Path]) -> Iterator[Path]:
    """Wanted PDFs under ``folder`` (wanted as below ``roots``), hidden folders not
    entered, links to folders not followed, a linked file only when it stays under the
    roots; an unreadable folder is logged and passed over (watching goes on)."""

    def note(exc: OSError) -> None:
        log.warning("cannot list %s: %s", exc.filename or folder, exc.strerror or exc)

    for root, dirs, files in os.walk(folder, onerror=note):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(root) / name
            if is_wanted(path, roots) and not is_ignored_name(name) and within(path, roots):
                yield path


def signature(path: Path) -> tuple[int, int] | None:
    """(size, mtime in ns) of a regular file; None when it is gone or not a file."""
    try:
        st = path.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_size, st.st_mtime_ns)
