"""The RIS reader (src/prioris/refman/ris.py) and the format dispatch of
src/prioris/refman/references.py, on RIS files written here in the forms Zotero, EndNote,
Mendeley and Prioris's own export produce, and on Prioris's BibTeX/RIS exports read back.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.export.bibtex import to_bibtex
from prioris.export.ris import to_ris
from prioris.models import Work
from prioris.refman.items import PDF, RefItem
from prioris.refman.references import read_references, reference_format
from prioris.refman.ris import read_ris
from prioris.text_clean import has_control

from conftest import shared_path

ZOTERO_RIS = """TY  - JOUR
TI  - Attention is all you need: a {test}
AU  - Vaswani, Ashish
AU  - Shazeer, Noam
AU  - Doe, John, Jr.
A2  - Editor, Erin
A4  - Translator, Tom
T2  - Advances in Neural Information Processing Systems
J2  - NeurIPS
DA  - 2017/12/04/
PY  - 2017
VL  - 30
IS  - 4
SP  - 5998
EP  - 6008
PB  - Curran
DO  - https://doi.org/10.5555/3295222.3295349
AB  - The dominant sequence transduction models
  are based on recurrent networks.
KW  - transformers
KW  - attention
LA  - en
N1  - <p>My <strong>child</strong> note &amp; more</p>
UR  - https://papers.nips.cc/paper/7181
L1  - files/3/Vaswani - 2017.pdf
L2  - https://example.org/related
ID  - vaswani2017
ER  -
""".replace("ER  -\n", "ER  - \n")  # the spec's form, with the space after the dash


def write(folder: Path, text: str, name: str = "refs.ris", encoding: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(text.encode(encoding))
    return path


def pdf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n%%EOF\n")
    return path


def test_a_zotero_record(tmp_path: Path) -> None:
    attached = pdf(tmp_path / "files" / "3" / "Vaswani - 2017.pdf")
    items, errors = read_ris(write(tmp_path, ZOTERO_RIS))
    assert errors == []
    [item] = items
    assert (item.source, item.key, item.line) == ("ris", "vaswani2017", 1)
    record = item.record
    assert record["title"] == "Attention is all you need: a {test}"
    assert record["authors"] == ["Ashish Vaswani", "Noam Shazeer", "John Doe Jr."]
    assert [(c["name"], c["role"]) for c in record["creators"]][-2:] == [
        ("Erin Editor", "editor"),
        ("Tom Translator", "translator"),
    ]
    assert record["venue"] == "Advances in Neural Information Processing Systems"
    assert (record["year"], record["published"]) == (2017, "2017-12-04")
    assert (record["volume"], record["issue"], record["pages"]) == ("30", "4", "5998-6008")
    assert record["publisher"] == "Curran"
    assert record["doi"] == "10.5555/3295222.3295349"
    assert record["abstract"] == (
        "The dominant sequence transduction models are based on recurrent networks."
    )
    assert record["keywords"] == ["transformers", "attention"]
    assert item.tags == ("transformers", "attention")
    assert record["language"] == "en" and record["type"] == "article-journal"
    assert record["url"] == "https://papers.nips.cc/paper/7181"
    assert [n.text for n in item.notes] == ["My child note & more"]
    assert [(a.key, a.path, a.content_type) for a in item.attachments] == [
        ("files/3/Vaswani - 2017.pdf", attached, PDF)
    ]
    assert item.extra["entry_type"] == "JOUR"


@pytest.mark.parametrize(
    ("ty", "expected"),
    [
        ("JOUR", "article-journal"),
        ("CPAPER", "paper-conference"),
        ("CONF", "paper-conference"),
        ("BOOK", "book"),
        ("CHAP", "chapter"),
        ("THES", "thesis"),
        ("RPRT", "report"),
        ("UNPB", "manuscript"),
        ("ELEC", "webpage"),
        ("GEN", "document"),
        ("XYZ", "document"),
    ],
)
def test_types(tmp_path: Path, ty: str, expected: str) -> None:
    items, _ = read_ris(write(tmp_path, f"TY  - {ty}\nTI  - T\nER  - \n"))
    assert items[0].record["type"] == expected
    assert items[0].extra["entry_type"] == ty


def test_dates_pages_and_venues(tmp_path: Path) -> None:
    text = """TY  - JOUR
TI  - A
PY  - 2019///
SP  - 12-34
JO  - J. Abbrev.
JF  - Journal Full Name
ER  -
TY  - CHAP
TI  - B
Y1  - 2018/03
SP  - 7
T2  - The Book Title
ER  -
TY  - BOOK
TI  - C
DA  - 2001-02-03
T2  - A Series Name
ER  -
"""
    items, errors = read_ris(write(tmp_path, text))
    assert errors == []
    a, b, c = (i.record for i in items)
    assert (a["year"], a.get("published"), a["pages"]) == (2019, None, "12-34")
    assert a["venue"] == "Journal Full Name"
    assert (b["year"], b["published"], b["pages"], b["venue"]) == (
        2018,
        "2018-03",
        "7",
        "The Book Title",
    )
    assert (c["year"], c["published"]) == (2001, "2001-02-03")
    assert "venue" not in c  # a book's T2 is its series


def test_arxiv_preprints(tmp_path: Path) -> None:
    text = """TY  - UNPB
TI  - Ours
AU  - Roe, R.
PY  - 2024
PB  - arXiv
N1  - arXiv:2401.01234
ER  -
TY  - JOUR
TI  - Linked
UR  - https://arxiv.org/abs/2106.09685v2
ER  -
TY  - JOUR
TI  - Published
DO  - 10.48550/arXiv.1706.03762
JO  - Some Journal
ER  -
"""
    items, _ = read_ris(write(tmp_path, text))
    ours, linked, published = items
    assert ours.record["arxiv"] == "2401.01234" and ours.record["type"] == "preprint"
    assert ours.notes == ()  # the arXiv line is an identifier, not the user's note
    assert linked.record["arxiv"] == "2106.09685v2" and linked.record["type"] == "preprint"
    assert published.record["arxiv"] == "1706.03762"
    assert published.record["type"] == "article-journal"


def test_links_in_every_form(tmp_path: Path) -> None:
    relative = pdf(tmp_path / "pdfs" / "a b.pdf")
    absolute = pdf(tmp_path / "abs" / "c.pdf")
    endnote = pdf(tmp_path / "My Library.Data" / "PDF" / "1234" / "e.pdf")
    moved = pdf(tmp_path / "storage" / "KEY1" / "m.pdf")
    text = f"""TY  - JOUR
TI  - Links
L1  - pdfs/a b.pdf
L1  - file://{absolute.as_posix().replace(" ", "%20")}
L1  - internal-pdf://1234/e.pdf
L1  - /home/someone/Zotero/storage/KEY1/m.pdf
L1  - https://example.org/online.pdf
L1  - missing/nothing.pdf
UR  - file://{relative.as_posix().replace(" ", "%20")}
L4  - pdfs/a b.pdf
ER  -
"""
    items, _ = read_ris(write(tmp_path, text))
    found = [(a.path, a.missing) for a in items[0].attachments]
    assert found == [
        (relative, ""),  # the UR file:// link, the L1 and the L4 path: one file, once
        (absolute, ""),
        (endnote, ""),
        (moved, ""),
        (None, "linked URL, no file"),
        (None, "file not found: missing/nothing.pdf"),
    ]
    assert "url" not in items[0].record  # file links are no web address


def test_malformed_records_fail_alone(tmp_path: Path) -> None:
    text = """1.
TY  - JOUR
ID  - a
TI  - First
ER  -

TY  - BOOK
ID  - cut
TI  - No end line
TY  - JOUR
TI  - Third
ER  -
TY  -
TI  - No type
ER  -
TY  - JOUR
ER  -
TY  - JOUR
ID  - a
TI  - Again
ER  -
garbage between records
TY  - CHAP
TI  - Last, no ER at the end of the file
"""
    items, errors = read_ris(write(tmp_path, text))
    assert [(i.record["title"], i.line) for i in items] == [("First", 2), ("Third", 10)]
    assert [(e.key, e.line) for e in errors] == [
        ("cut", 7),
        ("", 13),
        ("", 16),
        ("a", 18),
        ("", 23),
    ]
    assert "without its 'ER  -' line" in errors[0].error
    assert "without a type" in errors[1].error
    assert "empty RIS record" in errors[2].error
    assert "duplicate record id 'a'" in errors[3].error and "line 2" in errors[3].error


def test_derived_keys_versions_and_encodings(tmp_path: Path) -> None:
    text = "TY  - JOUR\r\nAU  - Müller, Jörg\r\nTI  - Ohne Kennung\r\nPY  - 2003\r\nER  - \r\n"
    first = read_ris(write(tmp_path, text))[0][0]
    latin = read_ris(write(tmp_path, "\n\n" + text, "latin.ris", encoding="cp1252"))[0][0]
    assert first.key.startswith("ris:muller2003-") and first.key == latin.key
    assert first.version == latin.version and latin.line == 3
    assert latin.extra["encoding"] == "windows-1252" and "encoding" not in first.extra
    assert latin.record["authors"] == ["Jörg Müller"]
    edited = read_ris(write(tmp_path, text.replace("2003", "2004")))[0][0]
    assert edited.version != first.version


def test_control_characters_never_reach_an_item(tmp_path: Path) -> None:
    text = (
        "TY  - JOUR\nID  - k\x01ey\nTI  - Bad\x00 ti\x07tle\nAU  - Doe\x1b, J.\n"
        "KW  - a\x02b\nN1  - n\x7fo\nER  - \n"
    )
    [item] = read_ris(write(tmp_path, text))[0]
    texts = [item.key, *item.tags, *(n.text for n in item.notes), *item.record["authors"]]
    texts += [v for v in item.record.values() if isinstance(v, str)]
    assert not any(has_control(t) for t in texts), texts
    assert item.key == "key"


def test_file_level_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_ris(tmp_path / "absent.ris")
    with pytest.raises(InvalidRequestError, match="no RIS record"):
        read_ris(write(tmp_path, "this is not RIS at all\n"))
    assert read_ris(write(tmp_path, "\n\n")) == ([], [])


# -- read_references ------------------------------------------------------------------------
def test_dispatch_by_suffix_and_content(tmp_path: Path) -> None:
    bib = "@article{k, title = {From BibTeX}}\n"
    ris = "TY  - JOUR\nTI  - From RIS\nER  - \n"
    cases = [
        ("a.bib", bib, "bibtex"),
        ("a.BIBTEX", bib, "bibtex"),
        ("a.ris", ris, "ris"),
        ("a.txt", bib, "bibtex"),
        ("a.txt", ris, "ris"),
        ("noext", "% comment\n" + bib, "bibtex"),
        ("export.enw", "\ufeff" + ris, "ris"),
    ]
    for name, text, kind in cases:
        path = write(tmp_path, text, name)
        items, errors = read_references(path)
        assert errors == [] and len(items) == 1, name
        assert items[0].source == kind
        assert reference_format(path, text) == kind
    with pytest.raises(InvalidRequestError, match="neither BibTeX nor RIS"):
        read_references(write(tmp_path, "hello", "notes.txt"))
    with pytest.raises(NotFoundError):
        read_references(tmp_path / "gone.bib")


def _by_title(items: list[RefItem]) -> dict[str, dict]:
    return {i.record["title"]: i.record for i in items}


def test_prioris_exports_read_back(tmp_path: Path) -> None:
    works = [
        Work(
            id="doi:10.1234/x",
            title="Schrödinger's cat & 50% of {braces}",
            authors=["Jörg Müller", "World Health Organization", "Jean de la Fontaine"],
            year=2021,
            published="2021-06-03",
            venue="Journal of Tests",
            volume="3",
            issue="2",
            pages="12-34",
            publisher="ACM",
            type="article",
            keywords=["alpha", "beta"],
            aliases=["doi:10.1234/x"],
        ),
        Work(
            id="arxiv:2401.01234",
            title="A preprint",
            authors=["Ann Smith"],
            year=2024,
            venue="arXiv",
            type="preprint",
            aliases=["arxiv:2401.01234"],
        ),
    ]
    bib_items, bib_errors = read_references(write(tmp_path, to_bibtex(works), "out.bib"))
    ris_items, ris_errors = read_references(write(tmp_path, to_ris(works), "out.ris"))
    assert bib_errors == [] and ris_errors == []
    for items in (bib_items, ris_items):
        by = _by_title(items)
        article = by["Schrödinger's cat & 50% of {braces}"] if items is ris_items else None
        article = article or by[next(t for t in by if t.startswith("Schrödinger"))]
        assert article["authors"] == works[0].authors
        assert (article["year"], article["venue"], article["pages"]) == (
            2021,
            "Journal of Tests",
            "12-34",
        )
        assert (article["volume"], article["issue"], article["publisher"]) == ("3", "2", "ACM")
        assert article["doi"] == "10.1234/x" and article["keywords"] == ["alpha", "beta"]
        # BibTeX carries the month (the export writes no day), RIS the whole date
        assert article["published"] == ("2021-06-03" if items is ris_items else "2021-06")
        preprint = by["A preprint"]
        assert preprint["arxiv"] == "2401.01234" and preprint["type"] == "preprint"
    # the BibTeX key Prioris wrote is the key read back, and the RIS ID is the same key
    assert [i.key for i in bib_items] == [i.key for i in ris_items]


def test_a_real_library_through_prioris_ris_export_reads_the_same(tmp_path: Path) -> None:
    """Every work of Zotero's real BibTeX export, written as RIS by Prioris's exporter and
    read back by the RIS reader: the two readers agree on each field the export keeps."""
    bib = shared_path(
        "fixtures", "bibtex", "tabassam823-zotero-export", "Exported Items", "Exported Items.bib"
    )
    items, errors = read_references(bib)
    assert errors == [] and len(items) == 16
    works = []
    for item in items:
        record = item.record
        aliases = [f"doi:{record['doi']}"] if record.get("doi") else []
        aliases += [f"arxiv:{record['arxiv']}"] if record.get("arxiv") else []
        fields = ("title", "authors", "year", "venue", "volume", "issue", "pages", "publisher")
        values = {name: record[name] for name in fields if name in record}
        works.append(
            Work(id=f"bibtex:{item.key}", aliases=aliases, type=record.get("type"), **values)
        )
    back, back_errors = read_ris(write(tmp_path, to_ris(works)))
    assert back_errors == [] and len(back) == len(items)
    for item, again in zip(items, back, strict=True):
        for name in ("title", "authors", "year", "volume", "issue", "pages", "doi", "arxiv"):
            assert again.record.get(name) == item.record.get(name), (item.key, name)
