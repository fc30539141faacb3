"""Header metadata read from page layout: generated first pages (always run) and real
papers from ../shared/fixtures/pdfmeta (skipped when absent)."""

from __future__ import annotations

import json
import unicodedata

import pytest

import paper_factory as papers
from prioris.ingest.ocr import TesseractOcr
from prioris.ingest.pdf.reader import extract_pdf

from conftest import shared_path


def meta_of(data: bytes, **kwargs: object):  # type: ignore[no-untyped-def]
    return extract_pdf(data, ocr_mode="never", **kwargs).metadata  # type: ignore[arg-type]


def test_single_column_with_numbered_affiliations_accents_and_a_footer_year() -> None:
    meta = meta_of(
        papers.single_column_lncs(
            footer="Proceedings of the 3rd Workshop on Reefs (REEF 2019), Lagos, Nigeria",
            metadata={"title": "Microsoft Word - draft7.docx", "creationDate": "D:20230101"},
        )
    )
    assert meta.title == "Coral Reef Recovery after Repeated Marine Heatwaves: A Six-Year Survey"
    assert meta.authors == ["Ngozi Okafor", "José Álvarez-Núñez", "Zoë van der Berg"]
    assert meta.affiliations == [
        "Department of Marine Biology, University of Lagos, Nigeria",
        "Instituto de Ciencias del Mar, Barcelona, Spain",
    ]
    assert meta.abstract is not None and meta.abstract.startswith("Coral reefs face repeated")
    assert "Introduction" not in meta.abstract
    assert meta.year == 2019  # the proceedings footnote, not the file date nor "in 2016"


def test_no_printed_date_means_no_year() -> None:
    meta = meta_of(papers.single_column_lncs(metadata={"creationDate": "D:20230101120000Z"}))
    assert meta.year is None  # body text says "heatwaves in 2016"; the file says 2023
    titled = meta_of(papers.single_column_lncs(title="Volume Rendering of the Reef Survey 2019"))
    assert titled.title == "Volume Rendering of the Reef Survey 2019" and titled.year is None


def test_two_column_author_grid_with_emails_stamp_and_copyright() -> None:
    meta = meta_of(
        papers.two_column_grid(
            stamp="arXiv:2103.15348v2  [cs.CV]  21 Jun 2023",
            copyright_note="© 2021 Copyright held by the owner/author(s).",
        )
    )
    assert meta.title == "Reef Signals in Deep Ocean Acoustics"
    assert meta.authors == [name for name, _, _ in papers.GRID_AUTHORS]
    assert "Stockholm University" in meta.affiliations
    assert not any("@" in a for a in meta.affiliations)
    assert meta.identifiers == ["arxiv:2103.15348v2"]
    assert meta.year == 2021  # the copyright line, not the stamp's version date (2023)
    assert meta.abstract is not None and meta.abstract.startswith("Coral reefs face")


def test_year_from_the_arxiv_id_when_nothing_else_is_printed() -> None:
    meta = meta_of(papers.two_column_grid(stamp="arXiv:1706.03762v7  [cs.CL]  2 Aug 2023"))
    assert meta.year == 2017


def test_many_authors_with_symbol_and_number_markers_and_a_wrapped_name() -> None:
    meta = meta_of(papers.many_authors())
    assert meta.title == "Large Collaborative Survey of Reef Recovery"
    assert meta.authors == papers.MANY_AUTHORS
    assert meta.affiliations == [
        "University of Lagos",
        "Université Laval",
        "Polish Academy of Sciences",
        "Intel Corporation",
    ]


def test_title_in_the_left_column_beats_a_stale_info_title_and_figure_labels() -> None:
    meta = meta_of(papers.left_column_title())
    assert meta.title == "Creativity in Machine Learning"
    assert meta.authors == ["Martin Thoma"]
    assert meta.year is None  # only the file's creation date (2016) is there


def test_a_cover_sheet_hands_the_header_to_page_two() -> None:
    meta = meta_of(papers.cover_sheet())
    assert meta.title == "Reef Futures: Planning for a Warmer Sea"
    assert meta.authors == ["Ngozi Okafor", "Kenji Tanaka"]
    assert meta.identifiers == ["doi:10.5555/jrs.2019.0012"]  # not the JSTOR stable URL
    assert meta.year == 2019


@pytest.mark.slow
def test_scanned_first_page_through_real_tesseract() -> None:
    content = extract_pdf(papers.scanned_first_page(), ocr_mode="auto", ocr=TesseractOcr("eng"))
    assert content.ocr_pages == 1
    meta = content.metadata
    assert meta.title == "Coral Reef Recovery after Heatwaves"
    assert meta.authors == ["Ngozi Okafor", "Kenji Tanaka", "Ana Ferreira"]
    assert meta.year is None  # the scanner's date is not a publication year


# -- real papers (../shared/fixtures/pdfmeta) ---------------------------------------------
REAL = [
    "pdfs/pdfjs_tracemonkey.pdf",  # ACM two-column, 16 authors with symbol markers
    "pdfs/paperqa_pasa.pdf",  # names in a grid, bold, a one-letter family name
    "pdfs/bluearxiv_csID-1706_03762.pdf",  # author blocks with e-mails, arXiv v7 stamp
    "pdfs/unstructured_layout-parser-paper-fast.pdf",  # a name wrapped across lines
    "pdfs/cermine_test2.pdf",  # "Research Article" label, Oxford comma
    "pdfs/pdfplumber_issue-982-example.pdf",  # left-column title, stale info title
    "pdfs/zotero_duplicatesMerge_JSTOR_1.pdf",  # JSTOR cover sheet
    "pdfs/scienceparse_pedersen04.pdf",  # TeX accents (Gy¨ongyi), names side by side
]


def _fold(text: str | None) -> str:
    return " ".join(unicodedata.normalize("NFKC", text or "").casefold().split())


@pytest.mark.parametrize("name", REAL)
def test_real_paper_header(name: str) -> None:
    folder = shared_path("fixtures", "pdfmeta")
    truth = {
        row["file"]: row
        for row in map(json.loads, (folder / "truth.jsonl").read_text().splitlines())
    }[name]
    meta = meta_of((folder / name).read_bytes())
    assert _fold(meta.title) == _fold(truth["title"])
    assert [_fold(a) for a in meta.authors] == [_fold(a) for a in truth["authors"]]
    assert meta.year == truth["year"]
    if truth["doi"]:
        assert f"doi:{truth['doi'].lower()}" in meta.identifiers
    if truth["arxiv_id"]:
        assert any(i.startswith(f"arxiv:{truth['arxiv_id']}") for i in meta.identifiers)


def _line(text: str, y: float, size: float = 10.0, *, bold: bool = False, block: int = 1):  # type: ignore[no-untyped-def]
    from prioris.ingest.header.layout import HeaderLine, Span

    spans = []
    x = 100.0
    for index, part in enumerate(text.split("^")):  # "Name^1": 1 is a superscript marker
        digits = part[:1] if index else ""
        if digits:
            spans.append(Span(digits, size * 0.7, bold, True, x, x + 4))
            x += 4
            part = part[1:]
        if part:
            spans.append(Span(part, size, bold, False, x, x + 5.5 * len(part)))
            x += 5.5 * len(part)
    return HeaderLine(tuple(spans), 100.0, y, x, y + size, True, block)


def test_hand_built_layout_hyphen_wrap_email_on_the_byline_and_cjk_names() -> None:
    from prioris.ingest.header.header import parse_header
    from prioris.ingest.header.layout import HeaderPage

    page = HeaderPage(
        [
            _line("A Study of Reef Soundscapes Recorded at Night", 60, 18, bold=True, block=0),
            _line("Josephine Nana Afrakoma Agyeman-", 100, block=1),
            _line("Duah^1, Rui Wang rwang@coli.uni-sb.de, 王小明^2", 112, block=1),
            _line("^1University of Lagos", 130, 8, block=2),
            _line("Abstract", 160, 11, bold=True, block=3),
            _line("We listened to reefs at night and found that they are loud.", 175, block=4),
        ],
        width=612,
        height=792,
    )
    header = parse_header(page, body_size=10.0)
    assert header.title == "A Study of Reef Soundscapes Recorded at Night"
    assert header.authors == ["Josephine Nana Afrakoma Agyeman-Duah", "Rui Wang", "王小明"]
    assert header.affiliations == ["University of Lagos"]
    assert header.abstract == "We listened to reefs at night and found that they are loud."


def test_a_page_without_a_title_has_no_byline() -> None:
    """pypdf's multilingual sample came out with authors "Hello World, مرحبا بالعالم, …":
    with no title there is no byline under it, whatever looks like a name."""
    meta = meta_of(papers.greetings_sheet())
    assert meta.authors == []
