"""File links of BibTeX ``file`` fields and RIS ``L1``/``UR`` lines, found on disk.

Each reference manager writes the link to an attached file its own way:

- Zotero's export: ``Full Text PDF:files/12/x.pdf:application/pdf`` (description, path
  relative to the .bib, MIME type);
- JabRef: ``:papers/x.pdf:PDF``, with ``\\:`` and ``\\;`` escaping a colon or semicolon
  in the path, and Windows paths as ``C\\:\\\\Users\\\\me\\\\x.pdf``;
- Mendeley: ``:Users/me/Documents/x.pdf:pdf`` (an absolute path without its leading
  ``/``), backslashes as ``$\\backslash$``;
- Better BibTeX: bare absolute paths ``/home/me/Zotero/storage/KEY/x.pdf``;
- BibDesk: ``bdsk-file-1`` fields, base64 property lists holding a relative path
  (:func:`bibdesk_path`);
- RIS: ``file:///home/me/x.pdf`` URLs, paths relative to the .ris, EndNote's
  ``internal-pdf://123/x.pdf`` (under ``<library>.Data/PDF/``), and web links.

Several links are joined with ``;``. A link is resolved against the reference file's
folder (a relative one also under each of the caller's ``roots``); when the path as
written does not exist (the file was exported on another machine, a Zotero folder
moved), the same path is tried under the reference file's folder and the caller's
``roots`` by its trailing components, longest first, down to a folder and a name
(``storage/KEY/x.pdf``, then ``KEY/x.pdf``): a name alone is never matched, as Zotero
names many files ``fulltext.pdf``. A link that finds nothing is still reported, as
:attr:`RefAttachment.missing` naming the path, so no file is skipped silently.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
import os
import plistlib
import re
import stat
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from prioris.errors import PriorisError
from prioris.refman.fields import clean_line
from prioris.refman.items import HTML, PDF, RefAttachment
from prioris.regular_files import kind_of, read_head
from prioris.strings import without_surrogates

_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"
_MAX_PARTS = 64
_MAX_PLIST_NODES = 10_000
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(//)?")
_WINDOWS = re.compile(r"^(?:[A-Za-z]:[\\/]|\\\\)")
_TYPES = {
    "pdf": PDF,
    "application/pdf": PDF,
    "html": HTML,
    "htm": HTML,
    "text/html": HTML,
    "xhtml": "application/xhtml+xml",
    "epub": "application/epub+zip",
}


@dataclass(frozen=True)
class FileLink:
    """One link of a ``file`` field: its description, path as written and type."""

    path: str
    description: str = ""
    file_type: str = ""


def _split_unescaped(text: str, sep: str) -> list[str]:
    """``text`` split on ``sep`` where no backslash escapes it (escapes kept)."""
    parts: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            current.append(text[i : i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    """JabRef's escapes undone: ``\\:`` ``\\;`` ``\\\\`` become ``:`` ``;`` ``\\``."""
    return re.sub(r"\\([\\:;])", r"\1", text)


_MIME = re.compile(r"(?:application|text|image|audio|video|message|multipart)/[a-z0-9.+-]+")
_TYPE_WORDS = {"url", "djvu", "ps", "doc", "docx", "odt", "txt", "rtf", "png", "jpg", "tex"}


def _looks_like_type(text: str) -> bool:
    """A file type as JabRef/Mendeley write it (``PDF``, ``pdf``) or a MIME type."""
    word = text.strip().lower()
    return word in _TYPES or word in _TYPE_WORDS or _MIME.fullmatch(word) is not None


def parse_file_field(value: str) -> list[FileLink]:
    """The links of a BibTeX ``file`` field in any of the forms the module names."""
    text = (value or "").replace("$\\backslash$", "\\").strip()
    links: list[FileLink] = []
    for part in _split_unescaped(text, ";"):
        part = part.strip()
        if not part:
            continue
        pieces = _split_unescaped(part, ":")
        if len(pieces) >= 3:
            # the path may hold unescaped colons itself: a drive (C:/x.pdf), a URL
            description, path, file_type = pieces[0], ":".join(pieces[1:-1]), pieces[-1]
        elif len(pieces) == 2:
            first, second = pieces
            if re.fullmatch(r"[A-Za-z]", first) or second.startswith("//"):
                description, path, file_type = "", part, ""  # C:\x.pdf, https://x
            elif _looks_like_type(second) and first:
                description, path, file_type = "", first, second
            else:
                description, path, file_type = first, second, ""
        else:
            description, path, file_type = "", part, ""
        path = _unescape(path).strip()
        if path:
            links.append(
                FileLink(path=path, description=_unescape(description).strip(), file_type=file_type)
            )
    return links


def content_type(path_text: str, file_type: str = "") -> str:
    """The MIME type a link's recorded type or its name's extension says ('' if unknown)."""
    word = file_type.strip().lower()
    if word in _TYPES:
        return _TYPES[word]
    if _MIME.fullmatch(word):
        return word
    name = re.split(r"[\\/]", path_text.rstrip("/\\"))[-1]
    suffix = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if suffix in _TYPES:
        return _TYPES[suffix]
    guessed, _ = mimetypes.guess_type(f"x.{suffix}") if suffix else (None, None)
    return guessed or ""


def without_controls(text: str) -> str:
    """A path as written, only control characters (and lone surrogates) taken out.

    A path is not text to clean: a name may hold a no-break space or a spacing caron
    (``Hubaˇcek``) that :func:`~prioris.text_clean.clean_text` would change, and then the
    file would not be found.
    """
    return _CONTROLS.sub("", without_surrogates(text))


def _exists(path: str) -> bool:
    try:
        return os.path.exists(path)  # os.path, not pathlib: 5,000 links, several tries each
    except (OSError, ValueError):  # an embedded NUL, a name too long
        return False


def _variants(text: str) -> list[str]:
    """``text`` as written and in NFC and NFD (macOS writes names decomposed)."""
    if text.isascii():
        return [text]
    out = [text]
    for form in ("NFC", "NFD"):
        other = unicodedata.normalize(form, text)
        if other not in out:
            out.append(other)
    return out


def _first_existing(candidates: Sequence[Path | str]) -> Path | None:
    for candidate in candidates:
        for variant in _variants(str(candidate)):
            if _exists(variant):
                return Path(variant)
    return None


def _parts(path_text: str) -> list[str]:
    """A path's components, ``/`` and ``\\`` both separators, drive and root dropped."""
    parts = [p for p in re.split(r"[\\/]+", path_text) if p and p not in (".",)]
    if parts and re.fullmatch(r"[A-Za-z]:", parts[0]):
        parts = parts[1:]
    return parts[-_MAX_PARTS:]


def _rerooted(path_text: str, roots: Sequence[Path]) -> Path | None:
    """The path's trailing components (two or more, longest first) under one of ``roots``."""
    parts = _parts(path_text)
    if any(p == ".." for p in parts):
        parts = parts[max(i for i, p in enumerate(parts) if p == "..") + 1 :]
    for size in range(len(parts), 1, -1):
        tail = parts[-size:]
        for root in roots:
            found = _first_existing([os.path.join(root, *tail)])
            if found is not None:
                return found
    return None


def _checked(link: str, path: Path, file_type: str, title: str) -> RefAttachment:
    """An attachment for a found path, unless it is a folder or a Git LFS pointer."""
    kind = content_type(str(path), file_type) or content_type(link, file_type)
    why = unreadable(path)
    if why:
        return RefAttachment(link, kind, None, why, title)
    return RefAttachment(link, kind, path, "", title)


LFS_POINTER_MAX = 1024
"""A Git LFS pointer is a few lines of text: a larger file is never one (and is not
opened to find out)."""


def unreadable(path: Path) -> str:
    """Why the file at ``path`` is no attachment ('' when it is one): not there, not a
    regular file (a folder, a FIFO, a device: looked at, never opened), unreadable, or a
    Git LFS pointer in place of the file. Only a file small enough to be a pointer is
    opened, and only its first bytes read; the size limit is the sync's, at reading."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return f"file not found: {path}"
    except (OSError, ValueError) as exc:
        return f"cannot read {path}: {getattr(exc, 'strerror', None) or exc}"
    if not stat.S_ISREG(info.st_mode):
        return f"not a file: {path} is {kind_of(info.st_mode)} (not read)"
    if info.st_size > LFS_POINTER_MAX:
        return ""
    try:
        head = read_head(path, len(LFS_POINTER), LFS_POINTER_MAX)
    except PriorisError as exc:
        return exc.message
    if head == LFS_POINTER:
        return f"a Git LFS pointer, not the file: {path}"
    return ""


def _endnote(rest: str, base: Path) -> list[Path]:
    """EndNote's ``internal-pdf://`` files: ``<library>.Data/PDF/<rest>`` beside the file."""
    try:
        folders = sorted(p for p in base.glob("*.Data") if p.is_dir())
    except OSError:
        return []
    return [folder / "PDF" / rest for folder in folders]


def resolve(
    link: str,
    *,
    base: Path,
    roots: Sequence[Path] = (),
    file_type: str = "",
    title: str = "",
) -> RefAttachment:
    """The attachment a link names, resolved against ``base`` (the reference file's
    folder), then re-rooted under ``base`` and ``roots`` (see the module text).

    Never raises: a web link, a missing or unreadable file is an attachment with ``path``
    None and ``missing`` saying why.
    """
    link = without_controls(link).strip()
    title = clean_line(title)
    kind = content_type(link, file_type)
    if not link:
        return RefAttachment(link, kind, None, "empty file link", title)
    search_roots = [base, *roots]
    scheme = _SCHEME.match(link)
    candidates: list[Path] = []
    written = link
    if scheme and not _WINDOWS.match(link):
        name = scheme.group(1).lower()
        if name == "file":
            parts = urlsplit(link)
            written = unquote(parts.path)
            if re.match(r"^/[A-Za-z]:/", written):
                written = written[1:]  # file:///C:/x.pdf
            candidates.append(Path(written))
        elif name in ("http", "https", "ftp"):
            return RefAttachment(link, kind, None, "linked URL, no file", title)
        elif name == "internal-pdf":
            written = unquote(link[len(scheme.group(0)) :])
            candidates.extend(_endnote(written, base))
        else:
            return RefAttachment(link, kind, None, f"unsupported link ({name}:), no file", title)
    elif _WINDOWS.match(link):
        candidates.append(Path(link))  # found as is only on Windows; else re-rooted
    elif PurePosixPath(link).is_absolute():
        candidates.append(Path(link))
    else:
        candidates.append(base / link)
        candidates.extend(root / link for root in roots)
        if "\\" in link:
            candidates.append(base.joinpath(*_parts(link)))
        if _parts(link)[:1] in (["Users"], ["home"], ["Volumes"], ["media"], ["mnt"]):
            candidates.append(Path("/" + link))  # Mendeley drops the leading slash
    found = _first_existing(candidates) or _rerooted(written, search_roots)
    if found is None:
        return RefAttachment(link, kind, None, f"file not found: {written}", title)
    return _checked(link, found, file_type, title)


def unique(attachments: Sequence[RefAttachment]) -> tuple[RefAttachment, ...]:
    """``attachments`` in order, each file once: two links that resolve to one file (a
    ``file://`` URL and a relative path) or the same link written twice are one."""
    seen: set[object] = set()
    out: list[RefAttachment] = []
    for attachment in attachments:
        identity = ("path", attachment.path) if attachment.path else ("key", attachment.key)
        if identity not in seen:
            seen.add(identity)
            out.append(attachment)
    return tuple(out)


def resolve_field(
    value: str, *, base: Path, roots: Sequence[Path] = ()
) -> tuple[RefAttachment, ...]:
    """Every attachment of a BibTeX ``file`` field (one per file, in order)."""
    return unique(
        [
            resolve(
                link.path, base=base, roots=roots, file_type=link.file_type, title=link.description
            )
            for link in parse_file_field(value)
        ]
    )


def bibdesk_path(value: str) -> str:
    """The relative path a BibDesk ``bdsk-file-N`` field holds ('' when none is found).

    BibDesk stores each linked file as a base64 binary property list: an NSKeyedArchiver
    archive, or (newer versions) a plain dictionary, either holding a ``relativePath``
    (relative to the .bib) beside a macOS alias that only macOS can read.
    """
    try:
        data = plistlib.loads(base64.b64decode("".join(value.split()), validate=True))
    except (ValueError, plistlib.InvalidFileException, binascii.Error, OverflowError):
        return ""
    objects = data.get("$objects") if isinstance(data, dict) else None
    stack: list[object] = [data]
    seen: set[int] = set()
    while stack and len(seen) < _MAX_PLIST_NODES:  # a shared node is visited once
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, dict):
            found = node.get("relativePath")
            if isinstance(found, plistlib.UID) and isinstance(objects, list):
                found = objects[found.data] if 0 <= found.data < len(objects) else None
            if isinstance(found, str) and found:
                return found
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return ""
