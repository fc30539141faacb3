"""File links (src/prioris/refman/filelinks.py): each manager's ``file`` field form parsed,
and links resolved on disk or reported missing with the reason."""

from __future__ import annotations

import base64
import plistlib
from pathlib import Path

import pytest

from prioris.refman.bibtex import read_bibtex
from prioris.refman.filelinks import (
    FileLink,
    bibdesk_path,
    content_type,
    parse_file_field,
    resolve,
)
from prioris.refman.items import HTML, PDF

BINARY = plistlib.FMT_BINARY


@pytest.mark.parametrize(
    ("value", "links"),
    [
        # Zotero's export: description, path relative to the .bib, MIME type
        (
            "Full Text PDF:files/12/x.pdf:application/pdf",
            [FileLink("files/12/x.pdf", "Full Text PDF", "application/pdf")],
        ),
        # JabRef: escaped colon and semicolon in the name
        (r":papers/a\: b\; c.pdf:PDF", [FileLink("papers/a: b; c.pdf", "", "PDF")]),
        # JabRef on Windows: escaped drive colon, doubled backslashes
        (r"C\:\\Users\\me\\x.pdf", [FileLink("C:\\Users\\me\\x.pdf")]),
        (r":C:/Users/x.pdf:PDF", [FileLink("C:/Users/x.pdf", "", "PDF")]),
        # Mendeley: $\backslash$ for a backslash, absolute paths without their leading /
        (r":C$\backslash$:/Users/me/x.pdf:pdf", [FileLink("C:/Users/me/x.pdf", "", "pdf")]),
        (
            ":Users/me/Mendeley Desktop/A.pdf:pdf",
            [FileLink("Users/me/Mendeley Desktop/A.pdf", "", "pdf")],
        ),
        # Better BibTeX: bare absolute paths joined by ;
        (r"/a/b.pdf;/c/d\;e.pdf", [FileLink("/a/b.pdf"), FileLink("/c/d;e.pdf")]),
        # links to the web
        (
            r"Online:https\://x.org/a.pdf:text/html",
            [FileLink("https://x.org/a.pdf", "Online", "text/html")],
        ),
        ("https://x.org/a.pdf", [FileLink("https://x.org/a.pdf")]),
        ("x.pdf:PDF", [FileLink("x.pdf", "", "PDF")]),
        ("Snapshot:files/y.html", [FileLink("files/y.html", "Snapshot", "")]),
        (r"C:\x.pdf", [FileLink("C:\\x.pdf")]),
        (" ; ;", []),
        ("", []),
    ],
)
def test_file_field_forms(value: str, links: list[FileLink]) -> None:
    assert parse_file_field(value) == links


@pytest.mark.parametrize(
    ("link", "file_type", "expected"),
    [
        ("a.pdf", "", PDF),
        ("a.PDF", "", PDF),
        ("a", "PDF", PDF),
        ("a", "application/pdf", PDF),
        ("page.html", "", HTML),
        ("page", "URL", ""),
        ("a.epub", "", "application/epub+zip"),
        ("notes.txt", "", "text/plain"),
        ("noext", "", ""),
        ("C:\\dir\\a.pdf", "", PDF),
    ],
)
def test_content_types(link: str, file_type: str, expected: str) -> None:
    assert content_type(link, file_type) == expected


def test_resolve_reports_why_a_link_has_no_file(tmp_path: Path) -> None:
    present = tmp_path / "name with spaces é.pdf"
    present.write_bytes(b"%PDF-1.4")
    assert resolve(present.name, base=tmp_path).path == present
    windows_url = resolve("file:///C:/Users/me/x.pdf", base=tmp_path)
    assert windows_url.missing == "file not found: C:/Users/me/x.pdf"
    encoded = resolve("file://" + str(present).replace(" ", "%20"), base=tmp_path)
    assert encoded.path == present and encoded.key.startswith("file://")
    assert resolve("internal-pdf://1/x.pdf", base=tmp_path).missing == ("file not found: 1/x.pdf")
    assert resolve("zotero://select/items/X", base=tmp_path).missing == (
        "unsupported link (zotero:), no file"
    )
    assert resolve("  ", base=tmp_path).missing == "empty file link"
    assert resolve("a\x00b.pdf", base=tmp_path).missing == "file not found: ab.pdf"
    assert resolve("../../../etc/x.pdf", base=tmp_path).missing.startswith("file not found")


def test_decomposed_names_are_found(tmp_path: Path) -> None:
    # macOS writes names decomposed (NFD); a .bib written elsewhere holds them composed
    decomposed = tmp_path / "Mu\u0308ller.pdf"
    decomposed.write_bytes(b"%PDF-1.4")
    found = resolve("M\u00fcller.pdf", base=tmp_path)
    assert found.path is not None and found.path.read_bytes() == b"%PDF-1.4"


def test_bibdesk_file_fields(tmp_path: Path) -> None:
    attached = tmp_path / "papers" / "b.pdf"
    attached.parent.mkdir()
    attached.write_bytes(b"%PDF-1.4")
    plain = plistlib.dumps({"relativePath": "papers/b.pdf", "bookmark": b"\x00"}, fmt=BINARY)
    archive = plistlib.dumps(
        {
            "$archiver": "NSKeyedArchiver",
            "$objects": [
                "$null",
                {"relativePath": plistlib.UID(2), "aliasData": b"x"},
                "papers/b.pdf",
            ],
            "$top": {"root": plistlib.UID(1)},
            "$version": 100000,
        },
        fmt=BINARY,
    )
    for data in (plain, archive):
        value = base64.b64encode(data).decode()
        assert bibdesk_path(value) == "papers/b.pdf"
        text = f"@article{{k, title = {{T}}, bdsk-file-1 = {{{value}}}}}"
        (tmp_path / "refs.bib").write_text(text)
        [item], _ = read_bibtex(tmp_path / "refs.bib")
        assert [a.path for a in item.attachments] == [attached]
    assert bibdesk_path("not base64 !") == ""
    assert bibdesk_path(base64.b64encode(b"not a plist").decode()) == ""
    (tmp_path / "refs.bib").write_text("@article{k, title = {T}, bdsk-file-1 = {AAAA}}")
    [item], _ = read_bibtex(tmp_path / "refs.bib")
    assert item.attachments[0].missing == "unreadable BibDesk file link"


def test_a_bibdesk_plist_of_shared_nodes_is_read_once() -> None:
    # each list holds the previous one twice: 2**60 paths, 60 objects
    node: list[object] = ["leaf"]
    for _ in range(60):
        node = [node, node]
    value = base64.b64encode(plistlib.dumps({"files": node}, fmt=BINARY)).decode()
    assert bibdesk_path(value) == ""


def test_a_link_is_never_resolved_by_its_bare_file_name(tmp_path: Path) -> None:
    """Zotero names many files ``fulltext.pdf``: a link whose folder is not there must be
    reported missing, never attached to another paper's file of the same name beside the
    .bib or under a root (one entry would then carry another paper's PDF)."""
    base, root = tmp_path / "bib", tmp_path / "zotero"
    ours = root / "storage" / "AAAA1111" / "fulltext.pdf"
    for path in (base / "fulltext.pdf", root / "fulltext.pdf", ours):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"%PDF-1.4 " + str(path).encode())
    found = resolve("/Users/old/Zotero/storage/AAAA1111/fulltext.pdf", base=base, roots=[root])
    assert found.path == ours  # by its trailing folders: storage/KEY/name
    for link in (
        "/Users/old/Zotero/storage/BBBB2222/fulltext.pdf",  # another item's folder
        "C:\\Users\\me\\Zotero\\storage\\CCCC3333\\fulltext.pdf",
        "file:///home/me/elsewhere/fulltext.pdf",
        "papers/fulltext.pdf",  # relative, its folder absent
    ):
        missing = resolve(link, base=base, roots=[root])
        assert missing.path is None, link
        assert missing.missing.startswith("file not found"), link
    # the same through a .bib: the second entry is missing, not given the first's file
    bib = base / "refs.bib"
    bib.write_text(
        "@article{a, title={A}, file={/x/Zotero/storage/AAAA1111/fulltext.pdf}}\n"
        "@article{b, title={B}, file={/x/Zotero/storage/BBBB2222/fulltext.pdf}}\n",
        encoding="utf-8",
    )
    items, _ = read_bibtex(bib, roots=[root])
    assert [[a.path for a in i.attachments] for i in items] == [[ours], [None]]
