"""PDFs made by the tests themselves, so the suite runs without ../shared."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf


def make_text_pdf(
    path: Path, title: str, pages: Sequence[str], *, author: str = "Test Author"
) -> Path:
    """A born-digital PDF: a big-font title on page 1, then one body text per page."""
    doc = pymupdf.open()
    for number, body in enumerate(pages):
        page = doc.new_page(width=595, height=842)
        y = 72
        if number == 0:
            page.insert_textbox(
                pymupdf.Rect(72, y, 523, y + 50), title, fontsize=18, fontname="hebo"
            )
            y += 60
        page.insert_textbox(pymupdf.Rect(72, y, 523, 770), body, fontsize=11)
    doc.set_metadata({"title": title, "author": author})
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path


def make_scanned_pdf(path: Path, text: str) -> Path:
    """An image-only page: the text rendered to pixels, no text layer."""
    source = pymupdf.open()
    page = source.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(72, 72, 523, 770), text, fontsize=14)
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    source.close()
    doc = pymupdf.open()
    scanned = doc.new_page(width=595, height=842)
    scanned.insert_image(scanned.rect, pixmap=pixmap)
    path.parent.mkdir(parents=True, exist_ok=True)
    doc.save(path)
    doc.close()
    return path
