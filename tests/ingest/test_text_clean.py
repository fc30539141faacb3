"""The text cleaning every stored text passes (:mod:`prioris.text_clean`), rule by rule,
on strings built here; and where it runs: PDF lines, prepared pages, provider records."""

from __future__ import annotations

import unicodedata

import pytest

from prioris.ingest.lines import clean_text as line_clean_text
from prioris.ingest.lines import join_lines
from prioris.models import Work
from prioris.text_clean import (
    clean_metadata,
    clean_text,
    clean_work,
    has_control,
    latex_accents,
    remove_controls,
)

from backend_sql import chunk_text


# -- control characters ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Mangen \x012009\x02", "Mangen 2009"),  # the held-out case
        ("Mangen\x012009", "Mangen 2009"),  # between a word and a digit: a space, no glue
        ("2009\x02and", "2009 and"),
        ("e\x0ecient", "ecient"),  # between letters: a lost glyph, nothing put in
        ("a\x00b\x1fc\x7fd\x9ee", "abcde"),  # C0, DEL, C1
        ("keep\ttabs\nand lines", "keep\ttabs\nand lines"),
        ("a\r\nb\rc\x0bd\x0ce", "a\nb\nc\nd\ne"),  # line ends become \n
        ("zero\u200bwidth\ufeff", "zerowidth"),
        ("hy\u00adphen", "hyphen"),  # a soft hyphen inside a word
        ("\x01 bullet item", " bullet item"),
    ],
)
def test_control_characters_go_without_gluing_words(raw: str, clean: str) -> None:
    assert remove_controls(raw) == clean
    assert not has_control(clean_text(raw))


def test_has_control_sees_what_the_cleaning_removes() -> None:
    assert has_control("a\x01b") and has_control("a\x0cb") and has_control("\x85")
    assert not has_control("tab\tand\nnewline")


# -- TeX spacing accents ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("Barlas O\u02d8guz", "Barlas O\u011fuz"),  # breve before its letter
        ("Gy\u00a8ongyi", "Gy\u00f6ngyi"),  # diaeresis
        ("Gy\u00a8 ongyi", "Gy\u00f6ngyi"),  # ... with a space between, inside a word
        ("Franc\u00b8ois", "Fran\u00e7ois"),  # cedilla AFTER its letter
        ("Franc \u00b8ois", "Fran\u00e7ois"),
        ("Wa\u02dbsowski", "W\u0105sowski"),  # ogonek after its letter
        ("\u00b8Stefan", "\u015etefan"),  # a cedilla some fonts print first
        ("Tapu\u00b8s", "Tapu\u015f"),  # ... goes with the letter that can carry it
        ("Ren\u00b4e", "Ren\u00e9"),  # acute
        ("Erd\u02ddos", "Erd\u0151s"),  # double acute
        ("\u02d9Zu\u0142aw", "\u017bu\u0142aw"),  # dot above, word start
        ("Dvo\u02c7r\u00b4ak", "Dvo\u0159\u00e1k"),  # caron and acute
        ("\u02daAngstr\u00a8om", "\u00c5ngstr\u00f6m"),  # ring
        ("Ni\u02dcno", "Ni\u00f1o"),  # tilde
        ("\u02c6etre", "\u00eatre"),  # circumflex
        ("\u00afa and \u02c9e", "\u0101 and \u0113"),  # macrons
        ("na\u00a8\u0131ve", "na\u00efve"),  # a dotless i takes the accent of i
        ("Universit`a", "Universit\u00e0"),  # the grave is a backtick in TeX fonts
        ("Franco\u0327is", "Fran\u00e7ois"),  # the earlier cleaner's misplaced cedilla
        ("\u0308Ubung", "\u00dcbung"),  # a combining mark printed before its letter
        ("f(x)\u0338 = 0", "f(x) \u2260 0"),  # the negation overlay before its relation
        ("x\u0338\u2208A", "x\u2209A"),
    ],
)
def test_spacing_accents_compose_with_the_letter_they_mark(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


@pytest.mark.parametrize(
    "text",
    [
        "``quoted'' and `code`",  # TeX quotes and code keep their backticks
        "R \u02c6 R and p1 \u00b4 tanh",  # accents between spaces: some fonts map other glyphs
        "price 5\u00b4",  # no letter to mark
        "cafe\u0301 au lait",  # a combining mark after its letter is already right
    ],
)
def test_what_is_not_an_accent_stays(text: str) -> None:
    assert clean_text(text) == unicodedata.normalize("NFC", text)


# -- ligatures, NFC, idempotence --------------------------------------------------------------
def test_ligatures_are_spelled_out() -> None:
    assert clean_text("\ufb01nd the \ufb03x, \ufb02ow, \ufb00, \ufb04, \ufb05, \ufb06") == (
        "find the ffix, flow, ff, ffl, st, st"
    )


def test_an_fl_printed_as_a_macron_is_mended() -> None:
    assert clean_text("in\u00af uenced, re\u00af ects; greater \u00af exibility") == (
        "influenced, reflects; greater flexibility"
    )
    assert clean_text("\u00affa") == "f\u0304a"  # a math bar touching its letter


def test_nfc() -> None:
    assert clean_text("cafe\u0301") == "caf\u00e9"


@pytest.mark.parametrize(
    "raw",
    [
        "Mangen \x012009\x02 by Barlas O\u02d8guz and Franc\u00b8ois",
        "Gy\u00a8 ongyi \ufb01nds f(x)\u0338 = 0 at Universit`a",
        "",
        "plain text",
    ],
)
def test_cleaning_is_idempotent(raw: str) -> None:
    once = clean_text(raw)
    assert clean_text(once) == once


# -- LaTeX accent macros in providers' strings ------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ('Schr{\\"o}dinger', "Schr\u00f6dinger"),
        ('Schr\\"odinger', "Schr\u00f6dinger"),
        ("\\'{e}t\\'e", "\u00e9t\u00e9"),
        ("Fran\\c{c}ois", "Fran\u00e7ois"),
        ("Fran\\c cois", "Fran\u00e7ois"),
        ("Erd\\H{o}s", "Erd\u0151s"),
        ("\\v{S}koda", "\u0160koda"),
        ('na\\"{\\i}ve', "na\u00efve"),
        ("Stra{\\ss}e", "Stra\u00dfe"),
        ("{\\O}stergaard and {\\l}ukasz", "\u00d8stergaard and \u0142ukasz"),
        ("$\\alpha$-helices and $\\hat{x}$", "$\\alpha$-helices and $\\hat{x}$"),  # math stays
        ("a \\emph{new} method", "a \\emph{new} method"),
    ],
)
def test_latex_accents_in_provider_strings(raw: str, clean: str) -> None:
    assert clean_metadata(raw) == clean


def test_latex_accents_leave_text_without_backslashes() -> None:
    assert latex_accents("no macros") == "no macros"
    assert clean_metadata(None) is None


def test_clean_work_cleans_the_record_fields_only() -> None:
    work = Work(
        id="arxiv:1",
        title="On Schr{\\\"o}dinger's \ufb01eld",
        authors=["Barlas O\u02d8guz", "Franc\u00b8ois\x01"],
        venue="Proc. \ufb01rst",
        abstract="We \ufb01nd \x02it.",
        source="arxiv",
    )
    cleaned = clean_work(work)
    assert cleaned.title == "On Schr\u00f6dinger's field"
    assert cleaned.authors == ["Barlas O\u011fuz", "Fran\u00e7ois"]
    assert cleaned.venue == "Proc. first" and cleaned.abstract == "We find it."
    assert cleaned.id == work.id and work.title.startswith("On Schr{")  # a new object
    assert clean_work(cleaned) is cleaned  # nothing to clean: the same one


# -- where it runs ------------------------------------------------------------------------------
def test_pdf_lines_use_the_same_cleaning() -> None:
    assert line_clean_text("Franc\u00b8ois O\u02d8guz \x01") == "Fran\u00e7ois O\u011fuz "


def test_a_compound_the_document_prints_keeps_its_hyphen_at_a_line_end() -> None:
    from prioris.ingest.lines import compounds_in

    compounds = compounds_in(["a large-scale study of", "follow-up visits and online", "on-line"])
    assert compounds == frozenset({"large-scale", "follow-up"})  # "online" is printed whole
    assert join_lines(["at large-", "scale, we"], compounds) == "at large-scale, we"
    assert join_lines(["the follow-", "up visits"], compounds) == "the follow-up visits"
    assert join_lines(["on-", "line"], compounds) == "online"
    assert join_lines(["retrie-", "val"], compounds) == "retrieval"
    assert join_lines(["large\u00ad", "scale"], compounds) == "largescale"  # a soft hyphen


def test_a_control_character_does_not_hide_a_line_end_hyphen() -> None:
    assert join_lines(["retrie-\x02", "val of passages"]) == "retrieval of passages"
    assert join_lines(["Trace-", "Monkey"]) == "Trace-Monkey"  # a real compound keeps it


def test_imported_records_and_their_fields_are_stored_clean(library) -> None:  # type: ignore[no-untyped-def]
    library.import_records(
        [
            {
                "_id": "r1",
                "title": "Fields by Franc\u00b8ois",
                "text": "Mangen \x012009\x02 found \ufb01ve O\u02d8guz effects.",
            }
        ]
    )
    row = library.conn.execute("SELECT title, markdown FROM works WHERE id = 'r1'").fetchone()
    assert row[0] == "Fields by Fran\u00e7ois"
    assert "Mangen 2009 found five O\u011fuz effects." in row[1]
    sql = f"SELECT {chunk_text(library)} FROM chunks WHERE work_id = 'r1'"
    texts = [r[0] for r in library.conn.execute(sql)]
    assert texts and not any(has_control(t) for t in texts)


def test_jats_or_html_markdown_and_the_providers_fields_are_stored_clean(library) -> None:  # type: ignore[no-untyped-def]
    from prioris.models import FullText

    work = Work(
        id="europepmc:PMC1",
        title='On Schr{\\"o}dinger\x01 fields',
        authors=["Franc\u00b8ois Gy\u00a8ongyi"],
        abstract="We \ufb01nd it.",
        source="europepmc",
    )
    markdown = "# On fields\n\nMangen \x012009\x02 by O\u02d8guz.\n\n## Methods\n\nWe \ufb01t."
    text = FullText(format="xml", content=b"<article/>", markdown=markdown)
    library.pipeline.store(library.pipeline.prepare_fulltext(work, text))
    stored = library.get_work("europepmc:PMC1")
    assert stored.title == "On Schr\u00f6dinger fields"
    assert stored.authors == ["Fran\u00e7ois Gy\u00f6ngyi"] and stored.abstract == "We find it."
    row = library.conn.execute(
        "SELECT markdown FROM works WHERE id = ?", ("europepmc:PMC1",)
    ).fetchone()
    assert "Mangen 2009 by O\u011fuz." in row[0] and "We fit." in row[0]
    assert not has_control(row[0])


def test_a_providers_record_is_cleaned_when_merged() -> None:
    from prioris.sources.enrich import merge_provider

    printed = Work(id="file:1", title="Quantum fields", source="file")
    provider = Work(
        id="arxiv:2", title='Schr{\\"o}dinger fields', authors=["Erd\\H{o}s"], source="arxiv"
    )
    merged = merge_provider(printed, provider)
    assert merged.title == "Schr\u00f6dinger fields" and merged.authors == ["Erd\u0151s"]
