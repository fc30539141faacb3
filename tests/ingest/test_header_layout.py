""":func:`read_header_page` read in the test process (the PDF parser calls it only in its
worker process, where mutation testing cannot see which test reaches it): a real MuPDF
page with a bold title, a byline with superscript markers and a rotated margin line, and
MuPDF's ``dict`` output with its optional keys missing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pymupdf

from prioris.ingest.header.layout import HeaderPage, read_header_page
from prioris.ingest.lines import TEXT_FLAGS


def _spans(page: HeaderPage) -> list[list[tuple[str, float, bool, bool]]]:
    return [
        [(s.text, round(s.size, 1), s.bold, s.superscript) for s in ln.spans] for ln in page.lines
    ]


def test_a_real_page_is_read_with_fonts_positions_and_directions() -> None:
    doc = pymupdf.open()
    pdf_page = doc.new_page(width=500, height=700)
    pdf_page.insert_text((72, 80), "Reef Recovery", fontname="hebo", fontsize=18)
    pdf_page.insert_htmlbox(
        pymupdf.Rect(72, 150, 400, 200),
        '<p style="font-size:11px">Ana Lima<sup>1</sup> and <b>Bo Chen</b><sup>2</sup></p>',
    )
    pdf_page.insert_text((480, 600), "Rotated margin", fontname="helv", fontsize=8, rotate=90)
    raw = pdf_page.get_text("dict", flags=TEXT_FLAGS)

    page = read_header_page(pdf_page)

    assert (page.width, page.height) == (500.0, 700.0)
    assert _spans(page) == [
        [("Reef Recovery", 18.0, True, False)],
        [
            ("Ana Lima", 11.0, False, False),
            ("1", 9.1, False, True),
            (" and ", 11.0, False, False),
            ("Bo Chen", 11.0, True, False),
            ("2", 9.1, False, True),
        ],
        [("Rotated margin", 8.0, False, False)],
    ]
    assert [ln.horizontal for ln in page.lines] == [True, True, False]
    expected_lines = [(n, ln) for n, b in enumerate(raw["blocks"]) for ln in b["lines"]]
    for line, (number, mupdf) in zip(page.lines, expected_lines, strict=True):
        assert (line.x0, line.y0, line.x1, line.y1) == tuple(mupdf["bbox"])
        assert line.block == number
        assert [(s.x0, s.x1) for s in line.spans] == [
            (s["bbox"][0], s["bbox"][2]) for s in mupdf["spans"]
        ]
    assert page.lines[1].text == "Ana Lima and Bo Chen"  # the markers left out
    assert len({ln.block for ln in page.lines}) == 3


class _FakePage:
    """MuPDF's ``get_text`` for a page whose ``dict`` has only the required keys: the
    option is read case-insensitively and ligatures are kept unless the flags drop them,
    as MuPDF does."""

    def __init__(self, blocks: list[dict[str, Any]] | None, width: float, height: float) -> None:
        self.blocks = blocks
        self.rect = SimpleNamespace(width=width, height=height)

    def get_text(self, option: str = "text", *, flags: int | None = None) -> Any:
        if option.lower() != "dict":
            return "text"
        if self.blocks is None:
            return {}
        keep = flags is None or flags & pymupdf.TEXT_PRESERVE_LIGATURES
        if keep:
            return {"blocks": [_ligatures(b) for b in self.blocks]}
        return {"blocks": self.blocks}


def _ligatures(block: dict[str, Any]) -> dict[str, Any]:
    lines = [
        {**ln, "spans": [{**s, "text": s["text"].replace("fi", "\ufb01")} for s in ln["spans"]]}
        for ln in block.get("lines", [])
    ]
    return {**block, "lines": lines}


def test_optional_keys_of_mupdf_s_dict_take_their_defaults() -> None:
    """No ``flags`` (neither bold nor raised), no ``dir`` (horizontal), blocks without
    lines, lines without spans or with only blank ones, image blocks (skipped, still
    numbered) and a page of no size (US Letter assumed)."""
    span = {"text": "Coral fish", "size": 12, "bbox": (10, 20, 60, 32)}
    blocks = [
        {"type": 1},  # an image
        {"type": 0},  # no lines
        {"type": 0, "lines": [{"bbox": (0, 0, 1, 1)}, {"bbox": (0, 0, 1, 1), "spans": []}]},
        {
            "type": 0,
            "lines": [
                {"bbox": (1, 2, 3, 4), "spans": [{"text": "  ", "size": 9}, {"size": 9}]},
                {"bbox": (10, 20, 60, 32), "spans": [span]},
            ],
        },
        {"type": 1},
        {
            "type": 0,
            "lines": [{"bbox": (5, 6, 7, 8), "dir": (0.0, -1.0), "spans": [{**span, "flags": 17}]}],
        },
    ]
    page = read_header_page(_FakePage(blocks, 0, 0))  # type: ignore[arg-type]

    assert (page.width, page.height) == (612.0, 792.0)
    assert [(ln.block, ln.horizontal, (ln.x0, ln.y0, ln.x1, ln.y1)) for ln in page.lines] == [
        (3, True, (10.0, 20.0, 60.0, 32.0)),
        (5, False, (5.0, 6.0, 7.0, 8.0)),
    ]
    assert _spans(page) == [
        [("Coral fish", 12.0, False, False)],
        [("Coral fish", 12.0, True, True)],
    ]
    first = page.lines[0].spans[0]
    assert (first.x0, first.x1) == (10.0, 60.0)


def test_a_slightly_tilted_line_is_not_horizontal() -> None:
    """MuPDF's direction is a unit vector: a line is horizontal only when it runs left to
    right within a hundredth of the axis."""

    def line(direction: tuple[float, float]) -> dict[str, Any]:
        spans = [{"text": "Reef", "size": 10, "bbox": (0, 0, 20, 10)}]
        return {"bbox": (0, 0, 20, 10), "dir": direction, "spans": spans}

    directions = [(1.0, 0.0), (0.995, 0.0099), (0.995, 0.01), (0.99, 0.0), (-1.0, 0.0), (0.5, 0.5)]
    page = read_header_page(
        _FakePage([{"type": 0, "lines": [line(d) for d in directions]}], 500, 700)  # type: ignore[arg-type]
    )
    assert [ln.horizontal for ln in page.lines] == [True, True, False, False, False, False]
    assert (page.width, page.height) == (500.0, 700.0)


def test_a_dict_without_blocks_is_a_page_without_lines() -> None:
    page = read_header_page(_FakePage(None, 300, 400))  # type: ignore[arg-type]
    assert (page.lines, page.width, page.height) == ([], 300.0, 400.0)
