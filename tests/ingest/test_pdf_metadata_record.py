"""The records a parsed PDF's metadata gives a new work, built directly (no PDF): what
was printed, and the venue fields taken from the printed venue line or, without one,
from the PDF's own (page-checked) metadata."""

from __future__ import annotations

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
