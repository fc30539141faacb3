"""Values of the wrong shape in provider answers, as the fuzz suite found them.

Each used to escape as a non-Prioris exception (ValueError, AttributeError, LookupError,
OverflowError) or pass a wrong type on; now a field is dropped or the item is a
ParseError.
"""

from __future__ import annotations

import pytest

from prioris.errors import ParseError
from prioris.sources.arxiv import parse_atom
from prioris.sources.europepmc import parse_record, parse_search
from prioris.sources.openalex import parse_openalex_work
from prioris.sources.xml import parse_xml

FEED = (
    '<?xml version="1.0" encoding="{encoding}"?><feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"><opensearch:totalResults>'
    "{total}</opensearch:totalResults><entry><id>http://arxiv.org/abs/2401.01234v1</id>"
    "<title>T</title><published>{published}</published></entry></feed>"
)


@pytest.mark.parametrize("encoding", ["TTF-8", "UTF-16-nonsense", "x-mac-klingon"])
def test_unknown_xml_encoding_is_a_parse_error(encoding: str) -> None:
    with pytest.raises(ParseError, match=r"cannot be decoded|malformed"):
        parse_xml(FEED.format(encoding=encoding, total=1, published="2024").encode())


@pytest.mark.parametrize("odd", ["²", "²024-01-01", "9" * 5000, "٣٤٥٦"])
def test_atom_numbers_that_are_not_ascii_digits(odd: str) -> None:
    feed = parse_atom(FEED.format(encoding="UTF-8", total=odd, published=odd).encode())
    assert feed.total == 0
    assert feed.works[0].year == (9999 if odd.startswith("9999") else None)


@pytest.mark.parametrize(
    "changes",
    [
        {"pubYear": "²"},
        {"pubYear": "9" * 5000},
        {"citedByCount": "²"},
        {"journalInfo": "Nature"},
        {"journalInfo": {"journal": ["x"]}},
        {"pubTypeList": ["review"]},
        {"pubTypeList": {"pubType": [1, None, "review"]}},
        {"authorList": "Curie M"},
        {"authorList": {"author": "Curie M"}},
        {"fullTextUrlList": ["https://x.example"]},
        {"fullTextUrlList": {"fullTextUrl": {"url": "x"}}},
        {"keywordList": {"keyword": "k"}},
        {"title": ["T"], "abstractText": {"a": 1}, "firstPublicationDate": 2020},
        {"bookOrReportDetails": "x", "source": "PPR", "journalInfo": None},
    ],
)
def test_europepmc_record_with_odd_shapes(changes: dict) -> None:
    record = {"id": "555", "source": "MED", "pmid": "555", "title": "Bio", **changes}
    work = parse_record(record)
    assert work.id in ("europepmc:MED:555", "europepmc:PPR:555")
    assert work.year is None or isinstance(work.year, int)
    assert isinstance(work.title, str) and all(isinstance(a, str) for a in work.authors)
    assert work.published is None or isinstance(work.published, str)


@pytest.mark.parametrize(
    "data",
    [
        {"hitCount": "²", "resultList": {"result": []}},
        {"hitCount": 1, "resultList": []},
        {"hitCount": 1, "resultList": {"result": {"id": "1"}}},
        {"hitCount": 1, "resultList": "none"},
    ],
)
def test_europepmc_search_with_odd_shapes(data: dict) -> None:
    page = parse_search(data)
    assert page.works == [] and isinstance(page.total, int)


def test_openalex_values_of_the_wrong_type_are_dropped() -> None:
    work = parse_openalex_work(
        {
            "id": "https://openalex.org/W42",
            "title": {"not": "a title"},
            "display_name": "Fallback title",
            "publication_year": "9" * 5000,
            "cited_by_count": "²",
            "primary_location": {"source": {"display_name": 1}},
            "relevance_score": 10**400,
        }
    )
    assert work.title == "Fallback title"
    assert work.year is None and work.cited_by_count is None and work.venue is None
    assert "relevance_score" not in work.extra
