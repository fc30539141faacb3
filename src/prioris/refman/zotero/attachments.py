"""Zotero's attachments: each item's files, found on disk without ever leaving their folder.

An attachment row says how its file is kept (``linkMode``): stored files (0 and 1,
``storage:name.pdf``) live in ``<data_dir>/storage/<attachment key>/``; linked files (2)
have an absolute path or ``attachments:rel/path`` under Zotero's linked-attachment base
directory (a profile preference, hence the ``base_dir`` argument); linked URLs (3) have
no file; embedded images (4) are skipped. A file that is absent, a Git LFS pointer in
place of the file, or a path that would leave its folder has ``path`` None and says why in
``missing``. Separate from the other table readers because it is the one that touches the
file system, with its own safety rules (unsafe paths, Unicode normal forms).
"""

from __future__ import annotations

import mimetypes
import os
import re
import sqlite3
import unicodedata
from collections import defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from prioris.refman.filelinks import unreadable
from prioris.refman.items import RefAttachment
from prioris.refman.zotero.item_rows import NOT_REGULAR
from prioris.refman.zotero.values import as_int, as_text, rows
from prioris.regular_files import inside

LINK_IMPORTED_FILE, LINK_IMPORTED_URL, LINK_LINKED_FILE, LINK_LINKED_URL = 0, 1, 2, 3
LINK_EMBEDDED_IMAGE = 4
_KEY = re.compile(r"^[A-Za-z0-9]{1,32}$")


def read_attachments(
    conn: sqlite3.Connection,
    lib: int,
    items: Mapping[int, tuple[Any, ...]],
    trash: set[Any],
    fields: Mapping[int, Mapping[str, str]],
    data_dir: Path,
    base_dir: Path | None,
) -> tuple[
    dict[int, list[tuple[int, RefAttachment]]], list[RefAttachment], dict[str, int], dict[Any, Any]
]:
    """The library's attachments not in the trash: by parent item (sorted by key), the
    standalone ones, counts of what was skipped, and each attachment's parent ``itemID``
    (None for a standalone one; annotations find their item through it)."""
    by_parent: dict[int, list[tuple[int, RefAttachment]]] = defaultdict(list)
    standalone: list[RefAttachment] = []
    skipped: dict[str, int] = defaultdict(int)
    attachment_parent: dict[Any, Any] = {}
    found = rows(
        conn,
        "SELECT a.itemID, a.parentItemID, a.linkMode, a.contentType, a.path "
        "FROM itemAttachments a JOIN items i ON i.itemID = a.itemID WHERE i.libraryID = ?",
        lib,
    )
    for item_id, parent, mode, content_type, path in found:
        if item_id in trash or (parent is not None and parent in trash):
            continue
        link_mode = as_int(mode)
        if link_mode == LINK_EMBEDDED_IMAGE:
            skipped["embedded images"] += 1
            continue
        key = as_text(items.get(item_id, ("",))[0])
        item_fields = fields.get(item_id, {})
        attachment = _attachment(
            key, link_mode, as_text(content_type), path, item_fields, data_dir, base_dir
        )
        if parent is None:
            standalone.append(attachment)
            attachment_parent[item_id] = None
        elif parent in items and items[parent][5] not in NOT_REGULAR:
            by_parent[parent].append((item_id, attachment))
            attachment_parent[item_id] = parent
        else:
            skipped["attachments of a note or a missing item"] += 1
    for children in by_parent.values():
        children.sort(key=lambda pair: pair[1].key)
    return by_parent, standalone, skipped, attachment_parent


def _attachment(
    key: str,
    link_mode: int | None,
    content_type: str,
    raw_path: Any,
    item_fields: Mapping[str, str],
    data_dir: Path,
    base_dir: Path | None,
) -> RefAttachment:
    """One attachment row's file, or why it has none (``missing``)."""
    title = item_fields.get("title", "")
    path_text = as_text(raw_path)
    if not content_type and path_text:
        content_type = mimetypes.guess_type(path_text)[0] or ""

    def gone(why: str) -> RefAttachment:
        return RefAttachment(key, content_type, None, why, title)

    if link_mode == LINK_LINKED_URL:
        url = item_fields.get("url", "")
        return gone(f"linked URL, no file{': ' + url if url else ''}")
    if link_mode in (LINK_IMPORTED_FILE, LINK_IMPORTED_URL):
        if not path_text.startswith("storage:") or len(path_text) <= len("storage:"):
            return gone("no stored file recorded for this attachment")
        if not _KEY.match(key):
            return gone(f"attachment key {key!r} is not a Zotero key")
        name = path_text[len("storage:") :]
        folder = data_dir / "storage" / key
        return _file(folder, name, gone, content_type, key, title, root=data_dir / "storage")
    if link_mode == LINK_LINKED_FILE:
        if path_text.startswith("attachments:"):
            relative = path_text[len("attachments:") :]
            if base_dir is None:
                return gone(
                    f"linked file {relative!r} is relative to Zotero's linked attachment "
                    "base directory, which was not given"
                )
            return _file(base_dir, relative, gone, content_type, key, title, root=base_dir)
        if not path_text:
            return gone("linked file without a path")
        candidate = Path(path_text)
        if not candidate.is_absolute():
            return gone(f"linked file path {path_text!r} is not absolute")
        return _checked(candidate, gone, content_type, key, title)
    return gone(f"unknown attachment link mode {link_mode!r}")


def _file(
    folder: Path,
    relative: str,
    gone: Callable[[str], RefAttachment],
    content_type: str,
    key: str,
    title: str,
    *,
    root: Path,
) -> RefAttachment:
    """``relative`` under ``folder``, refusing any path that would leave it, and a link
    (the file's, or a folder's on the way) that leads out of ``root`` (``storage/``, or
    the linked-attachment base directory): such a file is not the library's."""
    parts = [p for p in re.split(r"[\\/]", relative) if p not in ("", ".")]
    if (
        not parts
        or ".." in parts
        or PurePosixPath(relative).is_absolute()
        or PureWindowsPath(relative).drive
        or "\x00" in relative
    ):
        return gone(f"unsafe attachment path {relative!r} (it would leave {folder})")
    found = _existing(folder.joinpath(*parts))
    if found is not None and not inside(found, root):
        return gone(f"{found} is a link that leads out of {root}: not read")
    return _checked(found or folder.joinpath(*parts), gone, content_type, key, title)


def _checked(
    path: Path,
    gone: Callable[[str], RefAttachment],
    content_type: str,
    key: str,
    title: str,
) -> RefAttachment:
    """The attachment at ``path`` (or its other Unicode form), looked at before anything
    is opened: a FIFO, a device or a folder is reported, never opened
    (:func:`~prioris.refman.filelinks.unreadable`)."""
    found = _existing(path)
    if found is None:
        return gone(f"file not found: {path}")
    why = unreadable(found)
    if why:
        return gone(why)
    return RefAttachment(key, content_type, found, "", title)


def _existing(path: Path) -> Path | None:
    """``path`` if something is there, else the same name in the other Unicode normal
    form (a library moved between macOS, which writes NFD names, and other systems),
    else None. Only looked at (``lstat``), never opened."""
    for candidate in (path, *(_form(path, f) for f in ("NFC", "NFD"))):
        try:
            if candidate is not None and os.path.lexists(candidate):
                return candidate
        except (OSError, ValueError):
            continue
    return None


def _form(path: Path, form: str) -> Path | None:
    other = path.parent / unicodedata.normalize(form, path.name)
    return other if other != path else None
