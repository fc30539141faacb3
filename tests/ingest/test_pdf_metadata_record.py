"""The records a parsed PDF's metadata gives a new work, built directly (no PDF): what
was printed, and the venue fields taken from the printed venue line or, without one,
from the PDF's own (page-checked) metadata."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from prioris.ingest.header.embedded import EmbeddedRecord
from prioris.ingest.header.metadata import PdfMetadata

EMBEDDED = EmbeddedRecord(
    venue="Embedded Journal", volume="9", issue="1", pages="1-2", publisher="Pub House"
)


def test_the_printed_record_has_every_field() -> None:
    meta = PdfMetadata(
        title="Reef recovery",
        authors=["Ana Lima", "Bo Chen"],
        year=2019,
        identifiers=["doi:10.5555/reef", "arxiv:2401.01234"],
        affiliations=["Reef Institute"],
        abstract="Reefs recover.",
        venue="Reef Studies",
        volume="12",
        issue="3",
        pages="45-67",
    )
    assert meta.printed() == {
        "title": "Reef recovery",
        "authors": ["Ana Lima", "Bo Chen"],
        "year": 2019,
        "doi": "10.5555/reef",
        "arxiv_id": "2401.01234",
        "affiliations": ["Reef Institute"],
        "abstract": "Reefs recover.",
        "venue": "Reef Studies",
        "volume": "12",
        "issue": "3",
        "pages": "45-67",
    }


def test_venue_fields_come_from_the_printed_line_else_from_the_pdf_s_record() -> None:
    printed = PdfMetadata(venue="Reef Studies", volume="12", issue="3", pages="45-67")
    printed.embedded = EMBEDDED
    assert printed.venue_fields() == {
        "venue": "Reef Studies",
        "volume": "12",
        "issue": "3",
        "pages": "45-67",
        "publisher": "Pub House",  # the publisher only ever from the PDF's record
    }
    unprinted = PdfMetadata(issue="7")  # no venue line: the PDF's record, whole
    unprinted.embedded = EMBEDDED
    assert unprinted.venue_fields() == {
        "venue": "Embedded Journal",
        "volume": "9",
        "issue": "1",
        "pages": "1-2",
        "publisher": "Pub House",
    }
    assert PdfMetadata().venue_fields() == {}  # nothing anywhere: no empty fields


def test_a_header_the_heuristics_trip_over_is_empty_and_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from prioris.ingest.header import metadata
    from prioris.ingest.header.layout import Header

    def trips(*args: Any) -> Header:
        raise ZeroDivisionError("a line of zero height")

    monkeypatch.setattr(metadata, "header_from_text", trips)
    with caplog.at_level(logging.WARNING, logger=metadata.__name__):
        assert metadata._header_of(None, "Some title\nSome Author", 10.0) == Header()
    assert caplog.messages == ["could not read the header of page 1: a line of zero height"]
    assert metadata._header_of(None, "", 10.0) == Header()  # no text: nothing to read


def _xmp(**tags: str) -> str:
    inner = "".join(f"<{tag}>{value}</{tag}>" for tag, value in tags.items())
    return f"<x:xmpmeta><rdf:RDF><rdf:Description>{inner}</rdf:Description></rdf:RDF></x:xmpmeta>"


def test_the_embedded_candidates_of_the_xmp_packet_and_the_info_dictionary() -> None:
    from prioris.ingest.header.embedded import read_embedded

    xmp = _xmp(
        **{
            "dc:title": "<rdf:Alt><rdf:li>Reef &amp; recovery</rdf:li></rdf:Alt>",
            "dc:creator": "<rdf:Seq><rdf:li>Ana Lima; Bo Chen et al.</rdf:li></rdf:Seq>",
            "prism:doi": "10.5555/reef",
            "prism:publicationName": "Reef Studies",
            "prism:volume": "12",
            "prism:number": "3",
            "prism:startingPage": "45",
            "prism:endingPage": "67",
            "dc:publisher": "Pub House",
            "prism:coverDate": "2019-05-02",
        }
    )
    info = {
        "title": "Reef recovery (draft)",
        "author": "Ana Lima and Carl Diaz",
        "subject": "J. Reefs 2019",
    }
    found = read_embedded(info, xmp)
    assert found.titles == ["Reef & recovery", "Reef recovery (draft)"]
    # "et al." dropped, one list per source
    assert found.creators == [["Ana Lima", "Bo Chen"], ["Ana Lima", "Carl Diaz"]]
    assert (found.doi, found.venue, found.volume, found.issue) == (
        "10.5555/reef",
        "Reef Studies",
        "12",
        "3",
    )
    assert found.pages == "45-67" and found.publisher == "Pub House"
    assert found.dates == ["2019-05-02", "J. Reefs 2019"]
    one_page = read_embedded({}, _xmp(**{"prism:startingPage": "9", "prism:endingPage": "9"}))
    assert one_page.pages == "9"
    ranged = read_embedded({}, _xmp(**{"prism:pageRange": "3-8", "prism:startingPage": "3"}))
    assert ranged.pages == "3-8"
    several = read_embedded(
        {},
        _xmp(
            **{
                "dc:creator": "<rdf:Seq><rdf:li>Ana Lima</rdf:li>"
                "<rdf:li>Bo Chen et al.</rdf:li></rdf:Seq>"
            }
        ),
    )
    assert several.creators == [["Ana Lima", "Bo Chen"]]


def test_without_a_header_title_the_info_title_is_taken_when_plausible() -> None:
    from prioris.ingest.header.metadata import pdf_metadata

    def parsed(info: dict[str, str]) -> PdfMetadata:
        return pdf_metadata(
            info=info, xmp="", header_pages=[None, None], body_size=10.0, page_texts=["", ""]
        )

    title = "Coral reef recovery after repeated heatwaves"
    assert parsed({"title": title}).title == title
    assert parsed({}).title is None
    assert parsed({"title": "Microsoft Word - draft7.docx"}).title is None
