"""A reference manager's library brought in: Zotero's data directory, a BibTeX or RIS
file, or entries given as text, each read by :mod:`prioris.refman` and stored by the sync
(:class:`~prioris.services.refsync.RefSync`)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from prioris.config import Settings
from prioris.errors import InvalidRequestError
from prioris.refman.items import RefItem
from prioris.services.watching.paths import default_zotero_dir

OUTSIDE = "outside the server's import folders: not read"


def confined(items: list[RefItem], roots: Sequence[str | Path] | None) -> list[RefItem]:
    """``items`` with every attachment whose real location (links followed) is not under
    ``roots`` turned into a missing one (None: no bound, the items as they are). A file a
    remote request may not name cannot be named through a reference file's link either."""
    if roots is None:
        return items
    real_roots = [os.path.realpath(root) for root in roots]

    def inside(path: Path) -> bool:
        real = Path(os.path.realpath(path))
        return any(real.is_relative_to(root) for root in real_roots)

    out = []
    for item in items:
        kept = tuple(
            attachment
            if attachment.path is None or inside(attachment.path)
            else dataclasses.replace(attachment, path=None, missing=OUTSIDE)
            for attachment in item.attachments
        )
        out.append(
            item if kept == item.attachments else dataclasses.replace(item, attachments=kept)
        )
    return out


class RefImports:
    """``Library.zotero_sync``, ``import_references`` and ``import_reference_text``."""

    def __init__(self, settings: Settings, refsync: Callable[[], Any]) -> None:
        self.settings = settings
        self.refsync = refsync  # the sync (and the ingest pipeline), built on first use

    def zotero_dir(self, given: str | Path | None = None) -> Path:
        """The Zotero data directory to read: ``given``, else ``PRIORIS_MCP_ZOTERO_DIR``,
        else Zotero's own default (``~/Zotero`` on Linux, macOS and Windows alike)."""
        chosen = given or self.settings.zotero_dir or default_zotero_dir()
        return Path(chosen).expanduser()

    def zotero_sync(
        self,
        zotero_dir: str | Path | None = None,
        *,
        base_dir: str | Path | None = None,
        ocr_mode: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        confine_to: Sequence[str | Path] | None = None,
    ) -> dict[str, Any]:
        """Bring a Zotero library in, or up to date (see :mod:`prioris.services.refsync`):
        every regular item a work with Zotero's metadata, its PDFs ingested, notes,
        highlights, collections and tags kept; items deleted or trashed since are removed.
        Zotero's files are read from a private copy and never written. ``confine_to``
        (the web app in accounts mode): attachments are read only under those folders,
        the others reported missing."""
        from prioris.refman.zotero import ZoteroSnapshot, read_library
        from prioris.services.refsync import zotero_items, zotero_summary

        directory = self.zotero_dir(zotero_dir)
        base = base_dir or self.settings.zotero_base_dir
        # the private copy of zotero.sqlite goes beside the library, not to a small /tmp
        beside = self.settings.data_dir if self.settings.data_dir.is_dir() else None
        read = read_library(
            directory,
            base_dir=Path(base).expanduser() if base else None,
            snapshot=lambda d: ZoteroSnapshot(d, temp_root=beside),
        )
        report = self.refsync().sync(
            "zotero",
            confined(zotero_items(read), confine_to),
            errors=read.errors,
            complete=True,
            ocr_mode=ocr_mode,
            on_progress=on_progress,
        )
        return {"zotero_dir": str(directory), **report.to_dict(), "zotero": zotero_summary(read)}

    def import_references(
        self,
        path: str | Path,
        *,
        ocr_mode: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        confine_to: Sequence[str | Path] | None = None,
    ) -> dict[str, Any]:
        """Import a BibTeX or RIS file with the files its entries link to. Import again
        after the file changed: unchanged entries are skipped, changed ones update their
        work (entries removed from the file leave their works in the library).
        ``confine_to`` (the web app in accounts mode): linked files are read only under
        those folders, the others reported missing."""
        from prioris.services.refsync import read_reference_file

        file = Path(path).expanduser()
        kind, items, errors = read_reference_file(file)
        report = self.refsync().sync(
            f"{kind}:{file.resolve()}",
            confined(items, confine_to),
            errors=errors,
            ocr_mode=ocr_mode,
            on_progress=on_progress,
        )
        return {"file": str(file), "format": kind, **report.to_dict()}

    def import_reference_text(self, text: str, format: str | None = None) -> dict[str, Any]:
        """Import BibTeX or RIS entries given as text (MCP, the web app): their metadata
        only; file links are not followed, since the text did not come from this disk."""
        import tempfile

        from prioris.refman.bibtex import parse_bibtex
        from prioris.refman.references import reference_format
        from prioris.refman.ris import parse_ris

        if format is not None and format not in ("bibtex", "ris"):
            raise InvalidRequestError(f"unknown references format {format!r}; use bibtex or ris")
        kind = format or reference_format(Path("references"), text)
        nowhere = Path(tempfile.gettempdir()) / "prioris-no-files"  # links resolve to nothing
        if kind == "bibtex":
            items, errors = parse_bibtex(text, base=nowhere, roots=(), encoding="utf-8")
        else:
            items, errors = parse_ris(text, base=nowhere, roots=(), encoding="utf-8", name="text")
        items = [dataclasses.replace(item, attachments=()) for item in items]  # not followed
        report = self.refsync().sync(f"{kind}:text", items, errors=errors)
        return {"format": kind, **report.to_dict()}
