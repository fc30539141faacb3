"""A first page's author line set as a heading becomes text again; real headings stay."""

from __future__ import annotations

from prioris.ingest.pdf.author_lines import demote_author_headings

PAGE = """Proceedings of the 52nd Annual Meeting, pages 624-633

# How to make words with vectors

## Georgiana Dinu and Marco Baroni Center for Mind/Brain Sciences

University of Trento, Italy

## Abstract

We introduce the problem of generation.

## 1 Introduction

## Marco Baroni as a heading later stays
"""


def test_an_author_heading_above_the_body_is_made_plain() -> None:
    out = demote_author_headings(
        PAGE, ["Georgiana Dinu", "Marco Baroni"], "How to make words with vectors"
    )
    assert "\nGeorgiana Dinu and Marco Baroni Center for Mind/Brain Sciences\n" in out
    assert "# How to make words with vectors" in out  # the title keeps its heading
    assert "## Abstract" in out and "## 1 Introduction" in out
    assert "## Marco Baroni as a heading later stays" in out  # after the body began


def test_accents_case_and_missing_authors() -> None:
    page = "# A Title\n\n## NUALA E. TULLY, Karen Morgan\n\ntext"
    assert "\nNUALA E. TULLY, Karen Morgan\n" in demote_author_headings(
        page, ["Nuala E. Tully"], "A Title"
    )
    accented = "# T\n\n## François Élan\n"
    assert demote_author_headings(accented, ["Francois Elan"], "T") == "# T\n\nFrançois Élan\n"
    assert demote_author_headings(PAGE, [], "x") == PAGE
    assert demote_author_headings(PAGE, ["Li"], "x") == PAGE  # too short to trust
