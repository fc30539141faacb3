"""First pages of papers in the common layouts, made with PyMuPDF for the header tests.

Each builder returns PDF bytes whose page 1 looks like a real paper of that family:
fonts, sizes, superscript affiliation markers (HTML ``<sup>``, which MuPDF reads back as
superscript spans), columns, footnotes and margin stamps, so the header parser is tested
on layout, not on a text stream.
"""

from __future__ import annotations

import pymupdf

BODY = (
    "Coral reefs face repeated marine heatwaves, and the heatwaves in 2016 bleached much "
    "of the northern reef. We measured recovery at forty sites over six years and found "
    "that reefs with more herbivorous fish recovered faster than the others. "
) * 6


def _box(page: pymupdf.Page, rect: tuple[float, float, float, float], html: str) -> None:
    page.insert_htmlbox(pymupdf.Rect(*rect), html)


def _p(text: str, size: float, *, bold: bool = False, align: str = "center") -> str:
    weight = "bold" if bold else "normal"
    return (
        f'<p style="font-size:{size}pt;font-weight:{weight};text-align:{align};margin:0">{text}</p>'
    )


def _save(doc: pymupdf.Document, metadata: dict[str, str] | None = None) -> bytes:
    if metadata:
        doc.set_metadata(metadata)
    data = doc.tobytes()
    doc.close()
    return data


def _body_pages(doc: pymupdf.Document, count: int) -> None:
    for _ in range(count):
        page = doc.new_page(width=612, height=792)
        _box(page, (72, 72, 540, 720), _p(BODY, 10, align="justify"))


LNCS_TITLE = "Coral Reef Recovery after Repeated Marine Heatwaves: A Six-Year Survey"
GRID_TITLE = "Reef Signals in Deep Ocean Acoustics"


def single_column_lncs(
    *,
    footer: str | None = None,
    metadata: dict[str, str] | None = None,
    title: str = LNCS_TITLE,
    doi: str | None = None,
) -> bytes:
    """Springer LNCS style: numbered affiliations, ``and``, inline ``Abstract.``."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _box(
        page,
        (100, 70, 512, 130),
        _p(title, 14, bold=True),
    )
    _box(
        page,
        (100, 135, 512, 165),
        _p(
            "Ngozi Okafor<sup>1</sup>, Jos\u00e9 \u00c1lvarez-N\u00fa\u00f1ez<sup>2</sup>, and "
            "Zo\u00eb van der Berg<sup>1,2</sup>",
            10,
        ),
    )
    _box(
        page,
        (100, 170, 512, 230),
        _p(
            "<sup>1</sup> Department of Marine Biology, University of Lagos, Nigeria<br>"
            "n.okafor@unilag.edu.ng<br>"
            "<sup>2</sup> Instituto de Ciencias del Mar, Barcelona, Spain",
            9,
        ),
    )
    _box(
        page,
        (120, 250, 492, 420),
        _p(f"<b>Abstract.</b> {BODY[:600]}", 9, align="justify"),
    )
    _box(page, (100, 440, 512, 460), _p("<b>1 Introduction</b>", 12, align="left"))
    _box(page, (100, 465, 512, 680), _p(BODY, 10, align="justify"))
    if footer:
        _box(page, (100, 700, 512, 740), _p(footer, 8, align="left"))
    if doi:
        _box(page, (100, 40, 512, 55), _p(f"DOI: {doi}", 8, align="left"))
    _body_pages(doc, 2)
    return _save(doc, metadata)


GRID_AUTHORS = [
    ("Amara Nwosu", "Marine Institute", "amara@marine.org"),
    ("Bj\u00f6rn \u00c5str\u00f6m", "Stockholm University", "bjorn@su.se"),
    ("Chen Wei", "Tsinghua University", "chenwei@tsinghua.edu.cn"),
    ("Dana O\u2019Neill", "Google Research", "dana@google.com"),
    ("\u00c9lodie Marchand", "Inria Paris", "elodie.marchand@inria.fr"),
    ("Farid Haddad", "American University of Beirut", "fh@aub.edu.lb"),
]


def two_column_grid(
    *, stamp: str | None = None, copyright_note: str | None = None, title: str = GRID_TITLE
) -> bytes:
    """ACM/NeurIPS style: a grid of author blocks (bold name, affiliation, e-mail), then
    a two-column body whose left column starts with an ``Abstract`` heading."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _box(page, (72, 60, 540, 110), _p(title, 17, bold=True))
    for index, (name, affiliation, email) in enumerate(GRID_AUTHORS):
        column, row = index % 3, index // 3
        x = 72 + column * 156
        y = 120 + row * 50
        _box(
            page,
            (x, y, x + 156, y + 48),
            _p(f"<b>{name}</b><sup>*</sup><br>{affiliation}<br>{email}", 10),
        )
    _box(page, (72, 230, 300, 250), _p("<b>Abstract</b>", 12))
    _box(page, (72, 252, 300, 520), _p(BODY[:900], 10, align="justify"))
    _box(page, (72, 530, 300, 550), _p("<b>1 Introduction</b>", 12, align="left"))
    _box(page, (72, 552, 300, 680), _p(BODY[:500], 10, align="justify"))
    _box(page, (312, 230, 540, 720), _p(BODY, 10, align="justify"))
    if copyright_note:
        _box(page, (72, 690, 300, 730), _p(copyright_note, 7, align="left"))
    if stamp:
        page.insert_text((20, 560), stamp, fontsize=20, rotate=90)
    _body_pages(doc, 2)
    return _save(doc)


MANY_AUTHORS = [
    "Ngozi Okafor",
    "Jos\u00e9 \u00c1lvarez-N\u00fa\u00f1ez",
    "Zo\u00eb van der Berg",
    "\u0141ukasz Wr\u00f3bel",
    "Sin\u00e9ad Ni Bhriain",
    "Mohammad R. Haghighat",
    "Jean-Fran\u00e7ois Dub\u00e9",
    "Kenji Tanaka",
    "Ana Lu\u00edsa Ferreira",
    "Weinan E",
    "Olusegun A. Adeyemi",
    "Benjamin Charles Germain Lee",
]


def many_authors(*, wrap_name: bool = True) -> bytes:
    """Twelve authors over three lines with symbols and numbers as markers, accented
    names, a one-letter family name and (``wrap_name``) a name broken across lines."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _box(page, (72, 60, 540, 110), _p("Large Collaborative Survey of Reef Recovery", 18, bold=True))
    marks = ["1", "2,*", "1", "3", "\u2020", "4", "2", "5", "1,3", "6", "\u2021", "4"]
    tagged = [f"{name}<sup>{mark}</sup>" for name, mark in zip(MANY_AUTHORS, marks, strict=True)]
    lines = [", ".join(tagged[:4]) + ",", ", ".join(tagged[4:8]) + ","]
    last = tagged[8:]
    if wrap_name:  # "Benjamin Charles Germain" / "Lee" as LaTeX breaks long bylines
        lines.append(", ".join(last[:3]) + ", and Benjamin Charles Germain")
        lines.append("Lee<sup>4</sup>")
    else:
        lines.append(", ".join(last[:3]) + ", and " + last[3])
    y = 118
    for line in lines:
        _box(page, (60, y, 552, y + 16), _p(line, 11))
        y += 15
    _box(
        page,
        (72, y + 8, 540, y + 60),
        _p(
            "<sup>1</sup>University of Lagos <sup>2</sup>Universit\u00e9 Laval "
            "<sup>3</sup>Polish Academy of Sciences <sup>4</sup>Intel Corporation",
            9,
        ),
    )
    _box(page, (72, y + 70, 540, y + 90), _p("<b>Abstract</b>", 11))
    _box(page, (90, y + 92, 522, y + 300), _p(BODY[:700], 10, align="justify"))
    _body_pages(doc, 1)
    return _save(doc)


def left_column_title() -> bytes:
    """IEEE-style two-column page whose title and author sit in the left column only,
    beside a figure with large labels in the right one; info title differs (stale)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    _box(page, (40, 50, 292, 90), _p("Creativity in Machine Learning", 13, bold=True))
    _box(page, (40, 95, 292, 125), _p("Martin Thoma<br>E-Mail: info@martin-thoma.de", 10))
    _box(
        page,
        (40, 135, 292, 300),
        _p(f"<b><i>Abstract</i>\u2014{BODY[:500]}</b>", 9, align="justify"),
    )
    _box(page, (320, 55, 560, 80), _p("x0 w0 \u03a3 \u03c6", 10))
    _box(page, (320, 85, 560, 130), _p("(a) Example of an artificial neuron unit.", 8))
    _box(page, (320, 140, 560, 720), _p(BODY, 10, align="justify"))
    _box(page, (40, 310, 292, 720), _p(BODY, 10, align="justify"))
    _body_pages(doc, 1)
    return _save(doc, {"title": "Art in Machine Learning", "creationDate": "D:20160115013029Z"})


def cover_sheet() -> bytes:
    """A JSTOR-style cover sheet, then the article's own first page."""
    doc = pymupdf.open()
    cover = doc.new_page(width=612, height=792)
    lines = [
        "Reef Futures",
        "Author(s): Ngozi Okafor and Kenji Tanaka",
        "Source: Journal of Reef Studies , March 2019, Vol. 12, No. 3 (March 2019), pp. 1-9",
        "Stable URL: https://www.jstor.org/stable/10.2307/99999999",
        "JSTOR is a not-for-profit service that helps scholars discover content.",
        "Your use of the JSTOR archive indicates your acceptance of the Terms & Conditions of Use",
    ]
    _box(cover, (36, 150, 576, 400), _p("<br>".join(lines), 12, align="left"))
    page = doc.new_page(width=612, height=792)
    _box(page, (60, 80, 420, 160), _p("Reef Futures: Planning for a Warmer Sea", 22, align="left"))
    _box(page, (60, 165, 420, 180), _p("Ngozi Okafor*, and Kenji Tanaka", 9, align="left"))
    _box(
        page,
        (60, 185, 540, 200),
        _p("https://doi.org/10.5555/jrs.2019.0012", 8, align="left"),
    )
    _box(page, (60, 260, 300, 720), _p(BODY, 9.5, align="justify"))
    _box(page, (320, 260, 560, 720), _p(BODY, 9.5, align="justify"))
    _body_pages(doc, 1)
    return _save(doc)


def scanned_first_page() -> bytes:
    """A first page rendered to an image (a scan): title, byline and abstract as pixels."""
    source = pymupdf.open()
    page = source.new_page(width=612, height=792)
    _box(page, (72, 72, 540, 130), _p("Coral Reef Recovery after Heatwaves", 20, bold=True))
    _box(page, (72, 140, 540, 160), _p("Ngozi Okafor, Kenji Tanaka and Ana Ferreira", 12))
    _box(page, (72, 170, 540, 190), _p("University of Lagos, Nigeria", 10))
    _box(page, (72, 210, 540, 400), _p(f"<b>Abstract</b><br>{BODY[:500]}", 11, align="justify"))
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    source.close()
    doc = pymupdf.open()
    scanned = doc.new_page(width=612, height=792)
    scanned.insert_image(scanned.rect, pixmap=pixmap)
    return _save(doc, {"creationDate": "D:20230405120000Z"})


def greetings_sheet() -> bytes:
    """Not a paper: label lines in one body size, each followed by a greeting that looks
    like a name ("Hello World"), as in pypdf's multilingual sample."""
    doc = pymupdf.open()
    page = doc.new_page()
    lines = "".join(
        _p(text, 12, align="left")
        for pair in (
            ("English:", "Hello World"),
            ("Russian:", "Привет, мир"),
            ("German:", "Hallo Welt"),
        )
        for text in pair
    )
    _box(page, (72, 72, 540, 400), lines)
    return _save(doc)
