"""extract_pdf: Markdown from text layers, per-page OCR decisions, metadata, bad files.

The tests build their PDFs with pymupdf (text pages, image-only "scanned" pages, mixed,
truncated, encrypted), use a FakeOcr for the per-page logic, run the real tesseract on an
image-only page, and sweep the shared fixture PDFs (good, scanned, bad).
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pymupdf
import pytest

from prioris.errors import (
    FileTooLargeError,
    InvalidRequestError,
    OcrUnavailableError,
    ParseError,
)
from prioris.ingest.ocr import TesseractOcr
from prioris.ingest.pdf.reader import (
    PARSER_VERSION,
    check_pdf_bytes,
    extract_pdf,
    page_text_is_usable,
)

from conftest import shared_path

BODY = (
    "Retrieval augmented generation combines a search index with a language model so that "
    "answers cite their sources. We measure how chunk size changes recall on scientific "
    "papers and find that passages of a few hundred tokens work best."
)


class FakeOcr:
    """Records the images it is given and answers with a fixed text (or an error)."""

    def __init__(
        self, text: str = "Scanned words from the fake engine.", error=None, delay: float = 0.0
    ) -> None:
        self.text = text
        self.error = error
        self.delay = delay
        self.images: list[bytes] = []

    def ocr_page(self, image_png: bytes) -> str:
        self.images.append(image_png)
        if self.delay:
            time.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return self.text


def _write_paragraph(page: pymupdf.Page, y: float, text: str, size: float = 11) -> float:
    rect = pymupdf.Rect(72, y, 540, y + 200)
    page.insert_textbox(rect, text, fontsize=size, fontname="helv")
    lines = 1 + len(text) * size * 0.5 // 468
    return y + lines * size * 1.25 + 14


def _add_text_page(
    doc: pymupdf.Document, number: int, *, title: str | None = None, running: bool = False
) -> None:
    page = doc.new_page(width=612, height=792)
    if running:  # a running header and a page number in the margins
        page.insert_text((72, 30), "Journal of Reproducible Tests", fontsize=8, fontname="helv")
        page.insert_text((300, 770), str(number), fontsize=8, fontname="helv")
    y = 90.0
    if title:
        page.insert_text((72, y), title, fontsize=24, fontname="hebo")
        y += 50
    page.insert_text((72, y), f"{number} Methods of Section {number}", fontsize=16, fontname="hebo")
    y += 30
    y = _write_paragraph(page, y, BODY)
    # A word hyphenated at the line end, written as two lines of one paragraph.
    page.insert_text(
        (72, y), "The evaluation used a carefully hyphen-", fontsize=11, fontname="helv"
    )
    page.insert_text((72, y + 13.5), "ated vocabulary of terms.", fontsize=11, fontname="helv")


def _add_image_page(doc: pymupdf.Document, lines: list[str]) -> None:
    """A page that is one picture of printed text: no text layer at all."""
    scratch = pymupdf.open()
    src = scratch.new_page(width=612, height=792)
    for i, line in enumerate(lines):
        src.insert_text((72, 120 + 40 * i), line, fontsize=22, fontname="helv")
    pix = src.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
    page = doc.new_page(width=612, height=792)
    page.insert_image(page.rect, pixmap=pix)


def text_pdf(pages: int = 3, metadata: dict[str, str] | None = None) -> bytes:
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        _add_text_page(
            doc,
            number,
            title="Chunking Matters for Retrieval" if number == 1 else None,
            running=pages >= 3,
        )
    if metadata:
        doc.set_metadata(metadata)
    return doc.tobytes()


SCAN_LINES = ["The quick brown fox jumps", "over the lazy sleeping dog"]


def image_pdf(pages: int = 1) -> bytes:
    doc = pymupdf.open()
    for _ in range(pages):
        _add_image_page(doc, SCAN_LINES)
    return doc.tobytes()


def mixed_pdf() -> bytes:
    doc = pymupdf.open()
    _add_text_page(doc, 1, title="Chunking Matters for Retrieval")
    _add_image_page(doc, SCAN_LINES)
    return doc.tobytes()


# -- page_text_is_usable ---------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "  \n\t ",
        "(cid:12)(cid:45)(cid:3) (cid:77)(cid:78)(cid:79)(cid:80)",
        "\ufffd\ufffd\ufffd\ufffd \ufffd\ufffd\ufffd ab",
        "\ue001\ue002\ue003\ue004\ue005 x",
        '"7+%-',
        "12 34 56 78 90 -- 3.5",
        "\x01\x02\x03\x04\x05\x06 abc",
    ],
)
def test_garbage_text_layers_are_not_usable(text: str) -> None:
    assert page_text_is_usable(text) is False


@pytest.mark.parametrize(
    "text",
    [
        BODY,
        "Chinese (traditional): 你好世界 Russian: Привет, мир",
        BODY + " (cid:12) one unmapped glyph among real text",
        "Table 2: 0.81 0.77 0.92 recall precision",
    ],
)
def test_real_text_layers_are_usable(text: str) -> None:
    assert page_text_is_usable(text) is True


# -- check_pdf_bytes -------------------------------------------------------------------


def test_check_pdf_bytes_caps_the_size() -> None:
    data = text_pdf(1)
    check_pdf_bytes(data, max_bytes=len(data))
    with pytest.raises(FileTooLargeError, match="over the"):
        check_pdf_bytes(data, max_bytes=len(data) - 1)


def test_check_pdf_bytes_wants_the_magic_within_the_first_kib() -> None:
    data = text_pdf(1)
    check_pdf_bytes(b"\r\n junk from a mail gateway\n" + data, max_bytes=10**8)
    with pytest.raises(ParseError, match="not a PDF"):
        check_pdf_bytes(b"<html><body>404 Not Found</body></html>", max_bytes=10**8)
    with pytest.raises(ParseError, match="not a PDF"):
        check_pdf_bytes(b" " * 2000 + data, max_bytes=10**8)


# -- text layer to Markdown ------------------------------------------------------------


def test_text_pages_become_markdown_with_headings_and_paragraphs() -> None:
    fake = FakeOcr()
    content = extract_pdf(text_pdf(3), ocr=fake)
    assert fake.images == []  # auto mode: good text layers are never OCR'd
    assert content.ocr_pages == 0
    assert [page.number for page in content.pages] == [1, 2, 3]
    first = content.pages[0].text
    assert first.startswith("# Chunking Matters for Retrieval\n\n## 1 Methods of Section 1\n\n")
    assert "\n## 2 Methods of Section 2\n" in "\n" + content.pages[1].text
    assert "Retrieval augmented generation combines" in first
    assert "carefully hyphenated vocabulary of terms." in first  # line-end hyphen removed
    assert "\n\n" in first and "\n\n\n" not in first
    for page in content.pages:
        assert "Journal of Reproducible Tests" not in page.text  # running header dropped
        assert not re.search(r"(^|\n)\d\s*($|\n)", page.text)  # page numbers dropped
        assert page.ocr is False


def test_text_page_markdown_escapes_a_leading_hash() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "#hashtag research is a topic with words", fontsize=11)
    content = extract_pdf(doc.tobytes())
    assert content.pages[0].text == "\\#hashtag research is a topic with words"


def test_printed_title_wins_over_the_info_dictionary_and_a_file_date_is_no_year() -> None:
    data = text_pdf(
        1,
        {
            "title": "Chunk Sizes and Recall",
            "author": "Ada Lovelace; Alan Turing",
            "creationDate": "D:20210314120000Z",
            "subject": "https://doi.org/10.1234/ABC.Def5",
        },
    )
    meta = extract_pdf(data).metadata
    assert meta.title == "Chunking Matters for Retrieval"  # what page 1 prints
    assert meta.authors == ["Ada Lovelace", "Alan Turing"]  # no byline printed: the info's
    assert meta.year is None  # the file's creation date is not a publication year
    assert meta.identifiers == ["doi:10.1234/abc.def5"]


def test_info_title_when_page_one_prints_none() -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "plain body text only " * 5, fontsize=10)
    doc.set_metadata({"title": "Chunk Sizes and Recall"})
    assert extract_pdf(doc.tobytes(), ocr_mode="never").metadata.title == ("Chunk Sizes and Recall")


def test_metadata_falls_back_to_the_largest_font_on_page_one() -> None:
    doc = pymupdf.open(stream=text_pdf(2))
    doc.set_metadata(
        {
            "title": "Microsoft Word - draft_v3.docx",
            "author": "Grace Hopper, Katherine Johnson and Mary Jackson",
        }
    )
    page = doc[1]
    page.insert_text((72, 700), "Preprint arXiv:2401.01234v2 and doi:10.5555/XYZ.1.", fontsize=9)
    meta = extract_pdf(doc.tobytes()).metadata
    assert meta.title == "Chunking Matters for Retrieval"
    assert meta.authors == ["Grace Hopper", "Katherine Johnson", "Mary Jackson"]
    assert meta.identifiers == ["doi:10.5555/xyz.1", "arxiv:2401.01234v2"]
    assert PARSER_VERSION == "pdf-1"


def test_filename_titles_are_ignored() -> None:
    meta = extract_pdf(text_pdf(1, {"title": "paper_final.pdf"})).metadata
    assert meta.title == "Chunking Matters for Retrieval"


# -- per-page OCR decisions ------------------------------------------------------------


def test_image_only_page_is_ocrd_in_auto_mode_from_a_300_dpi_gray_png() -> None:
    fake = FakeOcr("Recognised text\nacross two lines\n\nsecond para-\ngraph")
    content = extract_pdf(image_pdf(1), ocr=fake)
    assert len(fake.images) == 1
    image = pymupdf.Pixmap(fake.images[0])
    assert fake.images[0].startswith(b"\x89PNG")
    assert image.n == 1  # grayscale
    assert abs(image.width - 612 / 72 * 300) <= 2
    assert content.pages[0].ocr is True
    assert content.ocr_pages == 1
    assert content.pages[0].text == "Recognised text across two lines\n\nsecond paragraph"


def test_mixed_document_ocrs_only_the_page_without_text() -> None:
    fake = FakeOcr()
    content = extract_pdf(mixed_pdf(), ocr=fake)
    assert len(fake.images) == 1
    assert [page.ocr for page in content.pages] == [False, True]
    assert content.pages[0].text.startswith("# Chunking Matters for Retrieval")
    assert content.pages[1].text == "Scanned words from the fake engine."
    assert content.ocr_pages == 1


def test_a_scan_with_a_stamped_text_line_is_still_ocrd() -> None:
    doc = pymupdf.open(stream=image_pdf(1))
    doc[0].insert_text((72, 780), "Downloaded from the archive on 1 May 2020", fontsize=8)
    fake = FakeOcr()
    content = extract_pdf(doc.tobytes(), ocr=fake)
    assert len(fake.images) == 1 and content.pages[0].ocr is True
    # without an engine the stamp is all there is, and it is kept
    assert extract_pdf(doc.tobytes(), ocr=None).pages[0].text.startswith("Downloaded from")


def test_always_mode_ocrs_every_page_and_never_mode_none() -> None:
    fake = FakeOcr()
    content = extract_pdf(mixed_pdf(), ocr_mode="always", ocr=fake)
    assert len(fake.images) == 2 and content.ocr_pages == 2
    assert all(page.text == fake.text for page in content.pages)

    fake = FakeOcr()
    content = extract_pdf(mixed_pdf(), ocr_mode="never", ocr=fake)
    assert fake.images == [] and content.ocr_pages == 0
    assert content.pages[0].text.startswith("# Chunking")
    assert content.pages[1].text == ""


def test_never_mode_on_a_scan_says_there_is_no_text() -> None:
    with pytest.raises(ParseError, match="OCR is disabled"):
        extract_pdf(image_pdf(1), ocr_mode="never", ocr=FakeOcr())


def test_blank_pages_are_not_sent_to_ocr() -> None:
    doc = pymupdf.open(stream=text_pdf(1))
    doc.new_page()
    fake = FakeOcr()
    content = extract_pdf(doc.tobytes(), ocr=fake)
    assert fake.images == []
    assert content.pages[1].text == "" and content.pages[1].ocr is False


def test_without_ocr_auto_keeps_the_text_pages() -> None:
    content = extract_pdf(mixed_pdf(), ocr=None)
    assert content.pages[0].text.startswith("# Chunking")
    assert content.pages[1].text == "" and content.ocr_pages == 0


def test_without_ocr_a_scan_raises_ocr_unavailable() -> None:
    with pytest.raises(OcrUnavailableError, match="no usable text layer"):
        extract_pdf(image_pdf(1), ocr=None)
    with pytest.raises(OcrUnavailableError):
        extract_pdf(text_pdf(1), ocr_mode="always", ocr=None)


def test_engine_that_cannot_run_is_asked_once_in_auto_and_fatal_in_always() -> None:
    doc = pymupdf.open(stream=mixed_pdf())
    _add_image_page(doc, SCAN_LINES)
    data = doc.tobytes()
    fake = FakeOcr(error=OcrUnavailableError("tesseract missing"))
    content = extract_pdf(data, ocr=fake)
    assert len(fake.images) == 1  # not retried on the third page
    assert [bool(page.text) for page in content.pages] == [True, False, False]
    with pytest.raises(OcrUnavailableError, match="tesseract missing"):
        extract_pdf(
            data, ocr_mode="always", ocr=FakeOcr(error=OcrUnavailableError("tesseract missing"))
        )


def test_one_page_failing_ocr_does_not_sink_the_others() -> None:
    class FlakyOcr(FakeOcr):
        def ocr_page(self, image_png: bytes) -> str:
            self.images.append(image_png)
            if len(self.images) == 1:
                raise ParseError("OCR of a page took longer than 1 s")
            return "second page words"

    fake = FlakyOcr()
    content = extract_pdf(image_pdf(2), ocr=fake)
    assert [page.text for page in content.pages] == ["", "second page words"]
    assert content.ocr_pages == 1
    with pytest.raises(ParseError, match="OCR failed"):
        extract_pdf(image_pdf(1), ocr=FakeOcr(error=ParseError("tesseract crashed")))


class CountingOcr(FakeOcr):
    """A slow fake that records how many pages it was reading at the same time.

    After the first page, a call waits (up to ``join_wait`` seconds) for a second one to
    start beside it, so a parallel run shows overlap however slowly pages render (under
    coverage tracing rendering can outlast any fixed delay) and a serial run still ends.
    """

    def __init__(self, join_wait: float = 0.0) -> None:
        super().__init__(delay=0.05)
        self.join_wait = join_wait
        self.lock = threading.Condition()
        self.active = 0
        self.calls = 0
        self.peaks: list[int] = []

    def ocr_page(self, image_png: bytes) -> str:
        with self.lock:
            self.active += 1
            self.calls += 1
            self.peaks.append(self.active)
            self.lock.notify_all()
            if self.calls > 1 and self.join_wait:
                self.lock.wait_for(lambda: self.active >= 2, timeout=self.join_wait)
        try:
            return super().ocr_page(image_png)
        finally:
            with self.lock:
                self.active -= 1


def test_pages_are_ocrd_in_parallel_after_the_first_succeeds() -> None:
    fake = CountingOcr(join_wait=10.0)
    content = extract_pdf(image_pdf(3), ocr=fake, ocr_workers=2)
    assert content.ocr_pages == 3
    assert fake.peaks[0] == 1  # the first page runs alone: a broken engine is asked once
    assert max(fake.peaks) == 2
    serial = CountingOcr()
    extract_pdf(image_pdf(2), ocr=serial, ocr_workers=1)
    assert max(serial.peaks) == 1


def test_progress_is_reported_after_each_page() -> None:
    calls: list[tuple[int, int]] = []
    extract_pdf(
        mixed_pdf(), ocr=FakeOcr(), progress=lambda done, total: calls.append((done, total))
    )
    assert calls == [(1, 2), (2, 2)]


def test_time_limit_is_checked_between_pages() -> None:
    def slow_progress(done: int, total: int) -> None:
        time.sleep(0.6)

    with pytest.raises(
        ParseError,
        match=r"exceeded the 0.5 s parse time limit \(stopped "
        r"after 1 of 3 pages; PRIORIS_MCP_PDF_TIME_LIMIT_SECONDS\)",
    ):
        extract_pdf(text_pdf(3), time_limit_seconds=0.5, progress=slow_progress)


class HeldOcr(FakeOcr):
    """Holds its page until the test lets it go (or ``patience`` runs out, so a parser that
    waited for the page fails the test rather than hanging it)."""

    def __init__(self, events: list[str], patience: float = 30.0) -> None:
        super().__init__()
        self.events = events
        self.patience = patience
        self.release = threading.Event()

    def ocr_page(self, image_png: bytes) -> str:
        self.events.append("ocr started")
        self.release.wait(self.patience)
        self.events.append("ocr done")
        return super().ocr_page(image_png)


def test_time_limit_also_bounds_a_page_still_being_ocrd() -> None:
    events: list[str] = []
    ocr = HeldOcr(events)
    pdf = image_pdf(1)  # made before the clock starts: only the parse is timed
    try:
        with pytest.raises(ParseError, match=r"parse time limit \(stopped after 0 of 1 pages;"):
            extract_pdf(pdf, ocr=ocr, time_limit_seconds=2.0)
        events.append("limit reached")
    finally:
        ocr.release.set()
    # the limit ended the parse while the OCR still held the page: it did not wait for it
    # (2 s leaves the parser process and the rendering time to hand the page over even on
    # a loaded machine; if they took longer, the limit came first and there is no order)
    if "ocr started" in events:
        assert events[:2] == ["ocr started", "limit reached"]
    else:
        assert events == ["limit reached"]


def test_an_engine_bug_on_one_page_is_a_parse_error_not_a_crash() -> None:
    with pytest.raises(ParseError, match="OCR failed"):
        extract_pdf(image_pdf(1), ocr=FakeOcr(error=RuntimeError("segfault-ish")))


def test_unknown_ocr_mode_is_an_invalid_request() -> None:
    with pytest.raises(InvalidRequestError):
        extract_pdf(text_pdf(1), ocr_mode="sometimes")


# -- real tesseract --------------------------------------------------------------------


def test_real_tesseract_reads_an_image_only_pdf() -> None:
    content = extract_pdf(mixed_pdf(), ocr=TesseractOcr("eng"))
    assert content.ocr_pages == 1
    words = set(content.pages[1].text.lower().split())
    assert {"quick", "brown", "fox", "jumps", "lazy", "sleeping", "dog"} <= words


# -- broken input ----------------------------------------------------------------------


def test_non_pdf_bytes_are_a_parse_error() -> None:
    with pytest.raises(ParseError, match="not a PDF"):
        extract_pdf(b"PK\x03\x04 this is a zip file")


def test_a_truncated_pdf_with_nothing_readable_is_a_parse_error() -> None:
    data = text_pdf(3)
    with pytest.raises(ParseError, match="no text: the PDF is damaged"):
        extract_pdf(data[: int(len(data) * 0.3)])


@pytest.mark.parametrize("keep", [0.6, 0.9])
def test_a_truncated_pdf_that_mupdf_repairs_is_read_with_a_warning(keep: float) -> None:
    data = text_pdf(3)
    content = extract_pdf(data[: int(len(data) * keep)])
    assert len(content.pages) == 3
    assert "# Chunking Matters for Retrieval" in content.pages[0].text
    assert content.warnings and "damaged" in content.warnings[0]
    assert "repaired" in content.warnings[0]


def test_encrypted_pdf_is_a_parse_error() -> None:
    doc = pymupdf.open(stream=text_pdf(1))
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="user")
    with pytest.raises(ParseError, match="encrypted"):
        extract_pdf(data)


def test_pdf_with_only_an_owner_password_opens() -> None:
    doc = pymupdf.open(stream=text_pdf(1))
    data = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="")
    assert extract_pdf(data).pages[0].text.startswith("# Chunking")


def test_leading_junk_before_the_header_is_tolerated() -> None:
    content = extract_pdf(b"\n\n%junk\n" + text_pdf(1))
    assert content.pages[0].text.startswith("# Chunking")


# -- shared fixture PDFs ---------------------------------------------------------------


def _fixture_files(kind: str) -> list[Path]:
    return sorted(shared_path("fixtures", "pdfs", kind).glob("*.pdf"))


def _words(text: str) -> list[str]:
    return re.findall(r"[A-Za-z]{4,}", text)


def test_good_fixtures_extract_usable_text() -> None:
    files = _fixture_files("good")
    assert files
    for path in files:
        content = extract_pdf(path.read_bytes(), ocr=TesseractOcr("eng"))
        texts = [page.text for page in content.pages]
        assert all(page_text_is_usable(text) for text in texts), path.name
        if path.name == "ocrmypdf_truetype_font_nomapping.pdf":
            assert content.ocr_pages == 1  # garbage layer detected and OCR'd instead
            assert "Phone" in content.pages[0].text  # the one word printed on that form
        else:
            assert content.ocr_pages == 0, path.name


def test_good_fixture_metadata() -> None:
    pasa = extract_pdf(shared_path("fixtures", "pdfs", "good", "paperqa_pasa.pdf").read_bytes())
    assert pasa.metadata.title == "PaSa: An LLM Agent for Comprehensive Academic Paper Search"
    assert "arxiv:2501.10120v1" in pasa.metadata.identifiers
    assert pasa.metadata.year == 2025
    assert "## 1 Introduction" in pasa.pages[0].text
    trace = extract_pdf(
        shared_path("fixtures", "pdfs", "good", "pdfjs_tracemonkey.pdf").read_bytes()
    )
    assert trace.metadata.title == (
        "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
    )
    assert trace.metadata.year == 2009
    assert "identifies frequently executed loop traces" in trace.pages[0].text


def test_no_unicode_mapping_fixture_is_unusable_without_ocr() -> None:
    data = shared_path("fixtures", "pdfs", "good", "ocrmypdf_truetype_font_nomapping.pdf")
    with pytest.raises(ParseError, match="no usable text layer"):
        extract_pdf(data.read_bytes(), ocr_mode="never")
    with pytest.raises(OcrUnavailableError):
        extract_pdf(data.read_bytes(), ocr=None)


def test_scanned_fixtures_yield_ocr_text_with_real_words() -> None:
    expected = {
        "ocrmypdf_c02-22.pdf": {"garden", "kitchen"},
        "ocrmypdf_linn.pdf": {"sequence", "track"},
    }
    files = _fixture_files("scanned")
    assert files
    for path in files:
        content = extract_pdf(path.read_bytes(), ocr=TesseractOcr("eng"))
        assert content.ocr_pages == len(content.pages), path.name
        words = {w.lower() for page in content.pages for w in _words(page.text)}
        assert len(words) >= 20, path.name
        assert expected.get(path.name, set()) <= words, path.name


def test_bad_fixtures_raise_parse_error_and_nothing_else() -> None:
    """Unreadable fixtures are refused; the one MuPDF repairs is read with a warning."""
    files = _fixture_files("bad")
    assert files
    for path in files:
        if path.name == "qpdf_bad-xref.pdf":  # a broken xref table over a readable page
            content = extract_pdf(path.read_bytes(), ocr=TesseractOcr("eng"))
            assert content.pages[0].text == "Potato"
            assert "damaged" in content.warnings[0]
            continue
        with pytest.raises(ParseError) as info:
            extract_pdf(path.read_bytes(), ocr=TesseractOcr("eng"))
        assert type(info.value) is ParseError, path.name
