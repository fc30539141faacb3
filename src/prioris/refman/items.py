"""What a reference manager says about one item, in one form for every reader.

Zotero, BibTeX and RIS differ in everything but this: an item has a key, a record of
bibliographic fields, files, the researcher's notes and highlights, collections and tags.
Each reader fills :class:`RefItem`; the sync (``services/refsync/``) stores it the same
way whatever it came from, so a change to one reader cannot change how items are stored.

``record`` uses the field names of :data:`prioris.provenance.FIELDS` (``title``,
``authors`` as display names "First Last", ``year``, ``published`` (ISO date text),
``venue``, ``volume``, ``issue``, ``pages``, ``publisher``, ``type`` (a CSL-like entry
type: ``article-journal``, ``paper-conference``, ``book``, ``chapter``, ``thesis``,
``report``, ``webpage``, ``manuscript``, ...), ``abstract``, ``keywords``, ``doi``,
``arxiv``, ``pmid``, ``pmcid``) plus, outside the merged fields, ``url``, ``language``,
``extra`` and ``creators`` (a list of ``{"name", "role"}`` in order, roles as the reader
names them: ``author``, ``editor``, ``translator``, ...). Empty values are left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PDF = "application/pdf"
HTML = "text/html"


@dataclass(frozen=True)
class RefAttachment:
    """A file of an item: where it is on disk, or why it cannot be read."""

    key: str
    """Zotero's attachment key; for BibTeX/RIS the link text as written."""
    content_type: str
    """``application/pdf``, ``text/html`` or what the manager recorded ('' if unknown)."""
    path: Path | None = None
    """The resolved local file; None when there is none (a URL link, a missing file)."""
    missing: str = ""
    """Why the file cannot be read ('' when ``path`` exists): "file not found: ...",
    "a Git LFS pointer, not the file", "linked URL, no file"..."""
    title: str = ""


@dataclass(frozen=True)
class RefNote:
    """The researcher's own words about an item: a note, a highlight, a comment."""

    kind: str
    """``note`` (a child note), ``highlight``, ``underline``, ``comment`` (an annotation
    without highlighted text), ``image``, ``ink``, ``text``."""
    text: str
    """Plain text: a note's HTML turned to text, or the highlighted passage."""
    key: str = ""
    comment: str = ""
    color: str = ""
    page_label: str = ""
    """The page label as printed ("iv", "12"), as Zotero keeps it."""
    page: int | None = None
    """The 1-based page index in the attachment, when known."""
    attachment_key: str = ""
    """For an annotation: the attachment it was made on."""


@dataclass(frozen=True)
class RefItem:
    """One item of a reference manager, ready to become (or update) a work."""

    source: str
    """``zotero``, ``bibtex`` or ``ris``: the provenance origin of ``record``."""
    key: str
    """Zotero's item key, the BibTeX citation key, or the RIS ``ID`` (else a stable one)."""
    record: dict[str, Any]
    version: str
    """What changes when the item changes: Zotero's ``version`` and ``dateModified``; for a
    file, a hash of the entry's text. Equal versions mean nothing to do."""
    collections: tuple[str, ...] = ()
    """Collection paths, parents first, joined by " / " (``"Thesis / Chapter 2"``)."""
    tags: tuple[str, ...] = ()
    attachments: tuple[RefAttachment, ...] = ()
    notes: tuple[RefNote, ...] = ()
    line: int | None = None
    """Where the entry starts in its file (BibTeX/RIS), for messages."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything else a reader wants to keep (Zotero's library id, item id, dateAdded)."""


@dataclass(frozen=True)
class RefError:
    """An entry that could not be read; the entries around it still are."""

    key: str
    error: str
    line: int | None = None
