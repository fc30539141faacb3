"""The BibTeX reader (src/prioris/refman/bibtex/) on small files written here for each
form it promises, and on the two real exports in ../shared/fixtures/bibtex (Better
BibTeX with absolute paths, Zotero's own export with relative ``files/NN/`` paths).

The fixtures are copied to a temporary folder first (nothing is written in ../shared),
and checked against their ``truth.json`` (computed from the .bib by a scanner of its own,
not by this reader) and by hand for a few entries.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from prioris.errors import FileTooLargeError, InvalidRequestError, NotFoundError
from prioris.refman import fields
from prioris.refman.bibtex import read_bibtex
from prioris.refman.items import PDF, RefItem
from prioris.text_clean import has_control
from work_bounds import calls, cpu_growth

from conftest import shared_path


def write(folder: Path, text: str, name: str = "refs.bib", encoding: str = "utf-8") -> Path:
    path = folder / name
    path.write_bytes(text.encode(encoding))
    return path


def one(folder: Path, text: str) -> RefItem:
    items, errors = read_bibtex(write(folder, text))
    assert not errors, errors
    assert len(items) == 1
    return items[0]


def pdf(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF-1.4\n%%EOF\n")
    return path


# -- fields ---------------------------------------------------------------------------------
def test_latex_becomes_unicode_in_every_text_field(tmp_path: Path) -> None:
    item = one(
        tmp_path,
        r"""@article{schr2020,
  title = {{Schr{\"o}dinger's} {DNA}: 50% of \emph{{E. coli}} -- a {\'e}tude},
  author = {M{\"u}ller, J{\"o}rg and Garc\'{\i}a, Jos\'e},
  journal = {Journal of {\AA}ngstr{\"o}m Studies \& Things},
  abstract = {Line one with $\alpha$ and \textendash{} dash.

Second paragraph, 30\% off.},
  publisher = {{\O}rsted Verlag},
  year = 2020
}""",
    )
    record = item.record
    assert record["title"] == "Schrödinger's DNA: 50% of E. coli – a étude"
    assert record["authors"] == ["Jörg Müller", "José García"]
    assert record["venue"] == "Journal of Ångström Studies & Things"
    assert record["abstract"] == (
        "Line one with $\\alpha$ and – dash.\n\nSecond paragraph, 30% off."
    )
    assert record["publisher"] == "Ørsted Verlag"
    assert item.source == "bibtex" and item.key == "schr2020" and item.line == 1


def test_names_split_the_bibtex_way(tmp_path: Path) -> None:
    item = one(
        tmp_path,
        """@book{b,
  author = {van der Berg, Jan and Jean de la Fontaine and Smith, Jr., John
            and {World Health Organization} and {\\relax Ch}ristensen, A. and others},
  editor = {Doe, J. and Roe, R.},
  translator = {Poe, E. A.},
  title = {Names}
}""",
    )
    assert item.record["authors"] == [
        "Jan van der Berg",
        "Jean de la Fontaine",
        "John Smith Jr.",
        "World Health Organization",
        "A. Christensen",
    ]
    assert item.extra["authors_truncated"] is True  # "and others": not a person
    roles = [(c["name"], c["role"]) for c in item.record["creators"]]
    assert roles[-3:] == [("J. Doe", "editor"), ("R. Roe", "editor"), ("E. A. Poe", "translator")]
    assert item.record["type"] == "book"


@pytest.mark.parametrize(
    ("entry_type", "expected"),
    [
        ("article", "article-journal"),
        ("inproceedings", "paper-conference"),
        ("conference", "paper-conference"),
        ("book", "book"),
        ("incollection", "chapter"),
        ("inbook", "chapter"),
        ("phdthesis", "thesis"),
        ("mastersthesis", "thesis"),
        ("techreport", "report"),
        ("online", "webpage"),
        ("misc", "document"),
        ("unpublished", "manuscript"),
        ("somethingelse", "document"),
    ],
)
def test_entry_types_map_to_csl_types(tmp_path: Path, entry_type: str, expected: str) -> None:
    item = one(tmp_path, f"@{entry_type.upper()}{{k, title = {{T}}}}")
    assert item.record["type"] == expected
    assert item.extra["entry_type"] == entry_type


def test_venue_publisher_pages_issue(tmp_path: Path) -> None:
    items, errors = read_bibtex(
        write(
            tmp_path,
            """@inproceedings{c, title={C}, booktitle={Proc. of {ICML}}, pages={12--34},
  organization={PMLR}, number={7}}
@phdthesis{t, title={T}, school={Univ. of {T}{\\"u}bingen}, pages = {1 -- 200}}
@techreport{r, title={R}, institution={CERN}, number={TR-9}, pages={5---9}}
@article{a, title={A}, journaltitle={Bio}, journal={Ignored}, volume={3}, issue={2},
  pages={e1234}}
""",
        )
    )
    assert not errors
    by = {i.key: i.record for i in items}
    assert by["c"]["venue"] == "Proc. of ICML" and by["c"]["publisher"] == "PMLR"
    assert by["c"]["pages"] == "12-34" and by["c"]["issue"] == "7"
    assert by["t"]["publisher"] == "Univ. of Tübingen" and by["t"]["pages"] == "1-200"
    assert by["r"]["publisher"] == "CERN" and "issue" not in by["r"]
    assert by["r"]["pages"] == "5-9"
    assert by["a"]["venue"] == "Bio" and by["a"]["issue"] == "2" and by["a"]["pages"] == "e1234"
    assert [i.extra.get("number") for i in items] == [None, None, "TR-9", None]


@pytest.mark.parametrize(
    ("fields_text", "year", "published"),
    [
        ("year = 2019, month = jul", 2019, "2019-07"),
        ("year = {2019}, month = {July}", 2019, "2019-07"),
        ('year = "2019", month = "7", day = "4"', 2019, "2019-07-04"),
        ("year = {2019}", 2019, None),  # a bare year never replaces a fuller date
        ("date = {2021-03-05}", 2021, "2021-03-05"),
        ("date = {2021-03/2021-04}", 2021, "2021-03"),
        ("date = {2021}, year = {1999}", 2021, None),
        ("year = {in press}", None, None),
        ("year = {2019a}", 2019, None),
        ("year = {0042}", None, None),
    ],
)
def test_dates(tmp_path: Path, fields_text: str, year: int | None, published: str | None) -> None:
    record = one(tmp_path, f"@article{{k, title = {{T}}, {fields_text}}}").record
    assert record.get("year") == year
    assert record.get("published") == published


def test_identifiers(tmp_path: Path) -> None:
    items, errors = read_bibtex(
        write(
            tmp_path,
            r"""@article{doi, title={D}, doi={https://doi.org/10.1000/ABC\_1}}
@article{doiurl, title={U}, url={https://dx.doi.org/10.1000/xyz}}
@misc{eprint, title={E}, eprint={2401.01234v2}, archivePrefix={arXiv}, primaryClass={cs.CL}}
@online{eprinttype, title={E2}, eprint={hep-th/9901001}, eprinttype={arxiv}}
@misc{notarxiv, title={N}, eprint={12345}, archivePrefix={HAL}}
@article{mendeley, title={M}, arxivId={1706.03762}, journal={NeurIPS}}
@article{scholar, title={S}, journal={arXiv preprint arXiv:1810.04805}}
@article{datacite, title={DC}, doi={10.48550/arXiv.2106.09685}}
@article{pubmed, title={P}, pmid={PMID: 123456}, pmcid={pmc789}}
@article{junk, title={J}, doi={not a doi}}
""",
        )
    )
    assert not errors
    by = {i.key: i.record for i in items}
    assert by["doi"]["doi"] == "10.1000/abc_1"
    assert by["doiurl"]["doi"] == "10.1000/xyz"
    assert by["doiurl"]["url"] == "https://dx.doi.org/10.1000/xyz"
    assert by["eprint"]["arxiv"] == "2401.01234v2" and by["eprint"]["type"] == "preprint"
    assert by["eprinttype"]["arxiv"] == "hep-th/9901001"
    assert by["eprinttype"]["type"] == "preprint"
    assert "arxiv" not in by["notarxiv"] and by["notarxiv"]["type"] == "document"
    assert by["mendeley"]["arxiv"] == "1706.03762"
    assert by["mendeley"]["type"] == "article-journal"  # it names a journal
    assert by["scholar"]["arxiv"] == "1810.04805"
    assert by["datacite"]["arxiv"] == "2106.09685" and by["datacite"]["type"] == "preprint"
    assert by["pubmed"]["pmid"] == "123456" and by["pubmed"]["pmcid"] == "PMC789"
    assert "doi" not in by["junk"]


def test_keywords_are_tags_groups_are_collections_notes_kept(tmp_path: Path) -> None:
    item = one(
        tmp_path,
        r"""@article{k,
  title = {T},
  keywords = {deep learning, NLP; Transformers, nlp},
  mendeley-tags = {to-read},
  groups = {Thesis, Chapter 2},
  annote = {My own {\em reading} note},
  comment = {<p>JabRef <b>comment</b> &amp; more</p>},
  note = {Accepted at {ACL}}
}""",
    )
    assert item.record["keywords"] == ["deep learning", "NLP", "Transformers"]
    assert item.tags == ("deep learning", "NLP", "Transformers", "to-read")
    assert item.collections == ("Thesis", "Chapter 2")
    assert [(n.kind, n.text) for n in item.notes] == [
        ("note", "My own reading note"),
        ("note", "JabRef comment & more"),
    ]
    assert item.record["extra"] == "Accepted at ACL"


def test_repeated_field_keeps_the_entry_and_joins_notes(tmp_path: Path) -> None:
    # Zotero writes `annote` twice; bibtexparser flags the entry, the reader keeps it
    item = one(
        tmp_path,
        """@article{z,
  title = {First},
  title = {Second},
  author = {Doe, Jane and Roe, Rick},
  annote = {one},
  annote = {two},
  month = mar, year = 2001
}""",
    )
    assert item.record["title"] == "First"
    assert item.record["authors"] == ["Jane Doe", "Rick Roe"]
    assert item.record["published"] == "2001-03"
    assert [n.text for n in item.notes] == ["one\n\ntwo"]


def test_strings_and_concatenation(tmp_path: Path) -> None:
    item = one(
        tmp_path,
        """@string{jml = "Journal of Machine Learning"}
@string{ed = {Third}}
@article{s, title = "The " # ed # { Edition}, journal = jml, month = jan # "~15", year = 1990}
""",
    )
    assert item.record["venue"] == "Journal of Machine Learning"
    assert item.record["title"] == "The Third Edition"
    assert item.record["published"] == "1990-01"


def test_missing_key_gets_a_stable_derived_one(tmp_path: Path) -> None:
    text = "@article{, title = {No Key Here}, author = {Ångström, A.}, year = 2001}"
    first = one(tmp_path, text)
    again = one(tmp_path, "\n\n" + text.replace("No Key Here", "no key  here"))
    assert first.key.startswith("bibtex:angstrom2001-")
    assert first.key == again.key


# -- versions, lines, errors ----------------------------------------------------------------
def test_version_changes_only_with_the_entry(tmp_path: Path) -> None:
    base = "@article{a, title = {A}, year = 2001}\n\n@article{b, title = {B}}\n"
    items, _ = read_bibtex(write(tmp_path, base))
    moved, _ = read_bibtex(write(tmp_path, "% a comment\n\n" + base.replace("  ", " ")))
    edited, _ = read_bibtex(write(tmp_path, base.replace("{B}", "{B2}")))
    assert [i.version for i in items] == [i.version for i in moved]
    assert [i.line for i in items] == [1, 3] and [i.line for i in moved] == [3, 5]
    assert items[0].version == edited[0].version
    assert items[1].version != edited[1].version


def test_malformed_entries_fail_alone_with_their_lines(tmp_path: Path) -> None:
    text = """@article{good1, title = {One}}

@article{broken, title = {unbalanced
  year = 2020

@book{good2,
  title = {Two}
}
@article{nocomma title = {x}}
@article{good3, title = {Three}}
@article{good1, title = {Again}}
"""
    items, errors = read_bibtex(write(tmp_path, text))
    assert [i.key for i in items] == ["good1", "good2", "good3"]
    assert [i.line for i in items] == [1, 6, 10]
    assert items[0].record["title"] == "One"  # the first of a duplicate key is kept
    assert [(e.key, e.line) for e in errors] == [("broken", 3), ("", 9), ("good1", 11)]
    assert "malformed BibTeX entry" in errors[0].error
    assert "duplicate citation key 'good1'" in errors[2].error and "line 1" in errors[2].error


def test_encodings(tmp_path: Path) -> None:
    text = "@article{e, title = {Caf\u00e9 \u2013 na\u00efve}, author = {Sch\u00f6n, E.}}"
    bom = tmp_path / "bom.bib"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    items, _ = read_bibtex(bom)
    assert items[0].key == "e" and "encoding" not in items[0].extra
    assert items[0].record["title"] == "Café – naïve"
    latin = write(tmp_path, text, "latin.bib", encoding="cp1252")
    items, _ = read_bibtex(latin)
    assert items[0].record["title"] == "Café – naïve"
    assert items[0].record["authors"] == ["E. Schön"]
    assert items[0].extra["encoding"] == "windows-1252"
    utf16 = write(tmp_path, "\ufeff" + text, "utf16.bib", encoding="utf-16-le")
    assert read_bibtex(utf16)[0][0].record["title"] == "Café – naïve"
    crlf = write(tmp_path, "\r\n\r\n" + text.replace(", ", ",\r\n"))
    assert read_bibtex(crlf)[0][0].line == 3


def test_control_characters_never_reach_an_item(tmp_path: Path) -> None:
    item = one(
        tmp_path,
        "@article{c\x01k, title = {Bad\x00 \x07title\x1b}, author = {Doe\x0b, J.},"
        " keywords = {a\x02b, c}, abstract = {x\x00y}, annote = {n\x7fo}}",
    )
    texts = [item.key, *item.tags, *(n.text for n in item.notes)]
    texts += [v for v in item.record.values() if isinstance(v, str)]
    texts += [a for a in item.record["authors"]]
    assert not any(has_control(t) or "\x00" in t for t in texts), texts
    assert item.key == "ck"


def test_file_level_errors_are_prioris_errors(tmp_path: Path) -> None:
    with pytest.raises(NotFoundError):
        read_bibtex(tmp_path / "absent.bib")
    with pytest.raises(InvalidRequestError, match="folder"):
        read_bibtex(tmp_path)
    binary = tmp_path / "x.bib"
    binary.write_bytes(b"%PDF-1.4\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
    with pytest.raises(InvalidRequestError, match="not a BibTeX text file"):
        read_bibtex(binary)
    assert read_bibtex(write(tmp_path, "")) == ([], [])
    assert read_bibtex(write(tmp_path, "just some words, no entries")) == ([], [])


def test_a_file_over_the_cap_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fields, "MAX_FILE_BYTES", 10)
    with pytest.raises(FileTooLargeError):
        read_bibtex(write(tmp_path, "@article{a, title={A}}"))


# -- file links -----------------------------------------------------------------------------
def test_file_field_forms(tmp_path: Path) -> None:
    zotero = pdf(tmp_path / "files" / "12" / "x.pdf")
    jabref = pdf(tmp_path / "papers" / "a: b; c.pdf")
    mendeley = pdf(tmp_path / "mendeley" / "m.pdf")
    absolute = pdf(tmp_path / "elsewhere" / "abs.pdf")
    (tmp_path / "snap").mkdir()
    (tmp_path / "snap" / "page.html").write_text("<html></html>")
    text = f"""@article{{zot, title = {{Z}},
  file = {{Full Text PDF:files/12/x.pdf:application/pdf;Snapshot:snap/page.html:text/html}}}}
@article{{jab, title = {{J}}, file = {{:papers/a\\: b\\; c.pdf:PDF}}}}
@article{{men, title = {{M}}, file = {{:{str(mendeley)[1:]}:pdf}}}}
@article{{bbt, title = {{B}}, file = {{{absolute};/no/such/dir/gone.pdf}}}}
@article{{win, title = {{W}}, file = {{:C\\:\\\\Users\\\\me\\\\nowhere.pdf:PDF}}}}
@article{{url, title = {{U}}, file = {{Online:https\\://example.org/a.pdf:PDF}}}}
@article{{old, title = {{O}}, pdf = {{papers/a: b; c.pdf}}}}
"""
    items, errors = read_bibtex(write(tmp_path, text))
    assert not errors
    by = {i.key: i.attachments for i in items}
    assert [(a.path, a.content_type, a.title) for a in by["zot"]] == [
        (zotero, PDF, "Full Text PDF"),
        (tmp_path / "snap" / "page.html", "text/html", "Snapshot"),
    ]
    assert by["zot"][0].key == "files/12/x.pdf"
    assert [a.path for a in by["jab"]] == [jabref]
    assert [a.path for a in by["men"]] == [mendeley]
    assert [a.path for a in by["bbt"]] == [absolute, None]
    assert by["bbt"][1].missing == "file not found: /no/such/dir/gone.pdf"
    assert by["win"][0].path is None
    assert by["win"][0].missing == "file not found: C:\\Users\\me\\nowhere.pdf"
    assert by["url"][0].missing == "linked URL, no file"
    assert by["url"][0].key == "https://example.org/a.pdf"
    assert [a.path for a in by["old"]] == [jabref]


def test_moved_library_is_found_by_its_trailing_folders(tmp_path: Path) -> None:
    moved = pdf(tmp_path / "zotero" / "storage" / "ABCD1234" / "paper.pdf")
    pdf(tmp_path / "fulltext.pdf")  # a name alone never matches
    text = """@article{a, title = {A},
  file = {/Users/old/Zotero/storage/ABCD1234/paper.pdf;/Users/old/Zotero/storage/ZZ/fulltext.pdf}}
@article{w, title = {W}, file = {:C\\:\\\\Zotero\\\\storage\\\\ABCD1234\\\\paper.pdf:PDF}}
"""
    bib = write(tmp_path / "zotero", text)
    items, _ = read_bibtex(bib)
    assert [a.path for a in items[0].attachments] == [moved, None]
    assert items[0].attachments[1].missing.startswith("file not found: /Users/old/")
    assert [a.path for a in items[1].attachments] == [moved]
    # the same links under a root the caller names (the bib kept apart from the library)
    apart = write(tmp_path, text, "apart.bib")
    assert read_bibtex(apart)[0][0].attachments[0].path is None
    items, _ = read_bibtex(apart, roots=[tmp_path / "zotero"])
    assert items[0].attachments[0].path == moved


def test_lfs_pointer_and_folder_are_reported(tmp_path: Path) -> None:
    pointer = tmp_path / "files" / "p.pdf"
    pointer.parent.mkdir()
    pointer.write_text("version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 9\n")
    text = "@article{a, title={A}, file={:files/p.pdf:PDF;:files:}}"
    attachments = one(tmp_path, text).attachments
    assert attachments[0].path is None
    assert attachments[0].missing.startswith("a Git LFS pointer, not the file")
    assert attachments[1].missing.startswith("not a file")


# -- the real exports -----------------------------------------------------------------------
def _copy(folder: str, tmp_path: Path) -> Path:
    source = shared_path("fixtures", "bibtex", folder)
    target = tmp_path / folder
    shutil.copytree(source, target)
    return target


def _check_truth(root: Path, bib: Path, items: list[RefItem]) -> None:
    truth = json.loads((root / "truth.json").read_text())
    assert [i.key for i in items] == [e["key"] for e in truth["entries"]]
    by = {i.key: i for i in items}
    for entry in truth["entries"]:
        item = by[entry["key"]]
        assert item.extra["entry_type"] == entry["type"]
        if entry["year"]:
            assert item.record["year"] == int(entry["year"])
        if entry["doi"]:
            assert item.record["doi"] == entry["doi"].lower()
        assert len(item.attachments) == len(entry["files"]), entry["key"]
        for expected, attachment in zip(entry["files"], item.attachments, strict=True):
            if expected["exists"]:
                assert attachment.path == bib.parent / expected["fixture_path"]
                assert attachment.missing == ""
            else:
                assert attachment.path is None
                assert attachment.missing == f"file not found: {expected['path']}"
    counts = truth["counts"]
    assert len(items) == counts["entries"]
    attachments = [a for i in items for a in i.attachments]
    assert len(attachments) == counts["attachments"]
    assert sum(a.path is not None for a in attachments) == counts["attachments_present"]
    pdfs = [a for a in attachments if a.content_type == PDF]
    assert len(pdfs) == counts["pdf_attachments"]
    assert sum(a.path is not None for a in pdfs) == counts["pdf_attachments_present"]


def test_better_bibtex_export_with_absolute_paths(tmp_path: Path) -> None:
    root = _copy("ahmedthahir-bbt", tmp_path)
    bib = root / "My Library.bib"
    items, errors = read_bibtex(bib)  # its cost: test_reading_costs_linear_work
    assert errors == []
    _check_truth(root, bib, items)
    by = {i.key: i for i in items}
    # the absolute macOS paths are re-rooted on storage/<KEY>/<name> under the .bib
    maimone = by["maimoneFootballBecomingMore"].attachments[0]
    assert maimone.path is not None and maimone.path.name.endswith(
        "Football is becoming more predictable; network analysis of 88 thousand matches.pdf"
    )
    assert maimone.key.startswith("/Volumes/GoogleDrive-112640561557200108006/My Drive/")
    sarlis = by["sarlisSportsAnalyticsEvaluation2020"]
    assert "\u00a0" in sarlis.attachments[0].key  # the no-break space of the name, kept
    assert sarlis.attachments[0].path is not None
    # by hand, from the .bib
    apostolou = by["apostolouSportsAnalyticsAlgorithms2019"].record
    assert apostolou["title"] == "Sports Analytics Algorithms for Performance Prediction"
    assert apostolou["authors"] == ["Konstantinos Apostolou", "Christos Tjortjis"]
    assert apostolou["venue"].startswith("2019 10th International Conference on Information")
    assert apostolou["pages"] == "1-4" and apostolou["publisher"] == "IEEE"
    assert apostolou["published"] == "2019-07" and apostolou["type"] == "paper-conference"
    assert "long–term team" in apostolou["abstract"]  # \textendash
    cwik = by["cwiklinskiWhoWillScore2021"]
    assert cwik.record["authors"] == ["Bartosz Ćwiklinski", "Agata Giełczyk", "Michał Choraś"]
    assert len({a.path.read_bytes() for a in cwik.attachments if a.path}) == 1  # 3 copies
    zou = by["zouBayesianInPlayPrediction2020"]
    assert [a.content_type for a in zou.attachments] == [PDF, "text/html"]
    assert "bayesian inference" in zou.tags
    for item in items:
        assert item.source == "bibtex" and item.version and item.line


def test_zotero_export_with_relative_files(tmp_path: Path) -> None:
    root = _copy("tabassam823-zotero-export", tmp_path)
    bib = root / "Exported Items" / "Exported Items.bib"
    items, errors = read_bibtex(bib)
    assert errors == []
    _check_truth(root, bib, items)
    by = {i.key: i for i in items}
    meyer = by["meyer_quantum_1999"]
    assert meyer.record["title"] == "Quantum Strategies"
    assert meyer.record["authors"] == ["David A. Meyer"]
    assert meyer.record["venue"] == "Physical Review Letters"
    assert (meyer.record["volume"], meyer.record["issue"]) == ("82", "5")
    assert meyer.record["pages"] == "1052-1055"
    assert meyer.record["doi"] == "10.1103/physrevlett.82.1052"
    assert meyer.record["published"] == "1999-02" and meyer.record["language"] == "en"
    [attachment] = meyer.attachments
    assert attachment.title == "Submitted Version" and attachment.content_type == PDF
    assert attachment.path == bib.parent / "files" / "71" / "Meyer - 1999 - Quantum Strategies.pdf"
    assert attachment.path.read_bytes().startswith(b"%PDF")
    samadi = by["samadi_quantum_2017"]  # annote twice: the entry is read, both notes kept
    assert samadi.record["authors"][0] == "Ali Hussein Samadi"
    assert samadi.record["title"] == "Quantum Barro–Gordon Game in Monetary Economics"
    assert samadi.record["arxiv"] == "1708.05689"  # from the DataCite DOI
    assert samadi.record["type"] == "preprint"  # an @article naming no journal
    assert "Accepted for publication in Physica A" in samadi.notes[0].text
    assert "Publisher: arXiv Version Number: 1" in samadi.notes[0].text
    assert samadi.tags[0] == "FOS: Economics and business"
    assert by["eisert_entanglement_2006"].record["type"] == "preprint"


def test_reading_again_gives_the_same_items(tmp_path: Path) -> None:
    root = _copy("tabassam823-zotero-export", tmp_path)
    bib = root / "Exported Items" / "Exported Items.bib"
    first, _ = read_bibtex(bib)
    second, _ = read_bibtex(bib)
    assert first == second


def test_jabref_file_directory_and_group_tree(tmp_path: Path) -> None:
    in_directory = pdf(tmp_path / "library" / "pdfs" / "Smith2020.pdf")
    text = r"""% Encoding: UTF-8
@Article{Smith2020,
  title  = {T},
  file   = {:Smith2020.pdf:PDF},
  groups = {Chapter 2, Reading, Twice},
}

@Comment{jabref-meta: databaseType:bibtex;}

@Comment{jabref-meta: fileDirectory:pdfs;}

@Comment{jabref-meta: grouping:
0 AllEntriesGroup:;
1 StaticGroup:Thesis\;0\;1\;0x8a8a8aff\;\;\;;
2 StaticGroup:Chapter 2\;0\;1\;0x8a8a8aff\;\;\;;
2 StaticGroup:Twice\;0\;1\;\;\;\;;
1 StaticGroup:Reading\;0\;0\;\;\;\;;
2 StaticGroup:Twice\;0\;1\;\;\;\;;
}
"""
    item = one(tmp_path / "library", text)  # the .bib beside pdfs/, not inside it
    assert [a.path for a in item.attachments] == [in_directory]
    assert item.collections == ("Thesis / Chapter 2", "Reading", "Twice")


# -- work done (seconds: bench/bench_refs.py) -------------------------------------------------
def _export(folder: Path, count: int) -> Path:
    """A Better BibTeX-like export of ``count`` entries: LaTeX, several authors, an
    ``annote``, absolute file links (half of them found again under the .bib's folder)."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for i in range(count):
        key = f"author{i}Paper{i}"
        if i % 2:
            pdf(folder / "storage" / f"K{i:06d}" / f"paper {i}.pdf")
        entries.append(
            f"@article{{{key},\n"
            f"  title = {{On {{Schr{{\\\"o}}dinger}}'s \\emph{{cat}} number {i}}},\n"
            f"  author = {{M{{\\\"u}}ller, J{{\\\"o}}rg and Garc\\'{{\\i}}a, Jos\\'e"
            f" and Doe{i}, A.}},\n"
            f"  journal = {{Journal {i % 7}}},\n  year = {{{2000 + i % 25}}},\n"
            f"  doi = {{10.1234/bulk.{i}}},\n"
            f"  annote = {{A note about {i} with 30\\% and $\\alpha$.}},\n"
            f"  file = {{/Users/someone/Zotero/storage/K{i:06d}/paper {i}.pdf}}\n}}\n"
        )
    return write(folder, "\n".join(entries))


def test_reading_costs_linear_work(tmp_path: Path) -> None:
    """Four times the entries cost about four times the calls, eight times the entries
    about eight times the CPU (an absolute link re-rooted, an author list, a LaTeX title:
    nothing in an entry's reading depends on the others)."""
    made = {}
    for count in (50, 200):
        bib = _export(tmp_path / str(count), count)
        found: list = []
        made[count] = calls(lambda bib=bib, found=found: found.append(read_bibtex(bib)))
        items, errors = found[0]
        assert errors == [] and len(items) == count
        assert sum(a.path is not None for i in items for a in i.attachments) == count // 2
    assert made[200] / made[50] < 6, made  # linear: about 4
    # and in CPU time, which also sees work done inside C (a list searched per entry)
    exports = {count: _export(tmp_path / f"cpu{count}", count) for count in (50, 400)}
    assert cpu_growth(lambda count: read_bibtex(exports[count]), 50, factor=8) < 24  # ~8
