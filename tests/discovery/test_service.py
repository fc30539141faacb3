"""DiscoveryService end to end over httpx.MockTransport: requests, marking, routes, errors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import pytest

from prioris.config import load_settings
from prioris.discovery import DiscoveryService
from prioris.errors import ConfigurationError, InvalidRequestError
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.openalex import OpenAlexClient

BASE = "https://api.openalex.test"

RESULTS: list[dict[str, Any]] = [
    {
        "id": "https://openalex.org/W1",
        "doi": "https://doi.org/10.48550/arxiv.2401.00001",
        "title": "An arXiv preprint",
        "publication_year": 2024,
        "type": "preprint",
        "relevance_score": 0.91,
        "cited_by_count": 4,
        "authorships": [{"author": {"display_name": "Ada Lovelace"}}],
        "abstract_inverted_index": {"Engines": [0], "compute": [1]},
    },
    {
        "id": "https://openalex.org/W2",
        "doi": "https://doi.org/10.1000/known",
        "title": "Already in the library",
        "publication_year": 2021,
        "ids": {"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC777"},
        "relevance_score": 0.85,
        "primary_location": {"source": {"display_name": "Journal of Things"}},
    },
    {
        "id": "https://openalex.org/W3",
        "title": "Open access elsewhere",
        "publication_year": 2022,
        "open_access": {"is_oa": True, "oa_status": "green"},
        "relevance_score": 0.8,
        "best_oa_location": {
            "is_oa": True,
            "version": "submittedVersion",
            "pdf_url": "https://preprints.example.org/w3.pdf",
        },
        "locations": [
            {
                "is_oa": True,
                "version": "submittedVersion",
                "pdf_url": "https://preprints.example.org/w3.pdf",
            },
            {
                "is_oa": True,
                "version": "acceptedVersion",
                "pdf_url": "https://repo.example.edu/w3.pdf",
            },
        ],
    },
    {"id": "https://openalex.org/W4", "title": "Closed", "relevance_score": 0.7},
]


class Api:
    """MockTransport handler standing in for OpenAlex; fails the test on any other host."""

    def __init__(self, results: list[dict[str, Any]], count: int = 42) -> None:
        self.requests: list[httpx.Request] = []
        self.results = results
        self.count = count

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        assert request.url.host == "api.openalex.test", f"unexpected request to {request.url}"
        page = int(request.url.params.get("page", "1"))
        per_page = int(request.url.params.get("per_page", "25"))
        return httpx.Response(
            200,
            json={
                "meta": {"count": self.count, "page": page, "per_page": per_page},
                "results": self.results,
            },
        )


class FakeKnown:
    """known_aliases: the library holds the work with DOI 10.1000/known."""

    def __init__(self, stored: set[str]) -> None:
        self.stored = stored
        self.calls: list[list[str]] = []

    def __call__(self, aliases: Sequence[str]) -> set[str]:
        self.calls.append(list(aliases))
        return {a for a in aliases if a in self.stored}


def service(api: Api, known: FakeKnown | None = None, key: str | None = "SECRET"):
    settings = load_settings()
    http = ProviderHttp(
        "discovery",
        make_client(settings, httpx.MockTransport(api)),
        min_interval=settings.min_intervals["discovery"],
        backoff_budget=0,
    )
    client = OpenAlexClient(http, BASE, key)
    return DiscoveryService(client, known or FakeKnown(set()))


def test_discover_request_and_hits() -> None:
    api = Api(RESULTS)
    known = FakeKnown({"doi:10.1000/known"})
    page = service(api, known).discover(
        "  how do analytical engines compute?  ",
        page=1,
        per_page=4,
        from_year=2020,
        to_year=2024,
        open_access_only=True,
    )
    assert len(api.requests) == 1
    assert dict(api.requests[0].url.params) == {
        "search.semantic": "how do analytical engines compute?",
        "page": "1",
        "per_page": "4",
        "filter": "publication_year:>2019,publication_year:<2025,is_oa:true",
        "api_key": "SECRET",
    }
    assert (page.total, page.has_more, page.page, page.per_page) == (42, True, 1, 4)
    assert [hit.id for hit in page.results] == [f"openalex:W{i}" for i in range(1, 5)]
    assert [hit.in_library for hit in page.results] == [False, True, False, False]
    assert [hit.fetch_route for hit in page.results] == [
        {"provider": "arxiv", "identifier": "arxiv:2401.00001"},
        {"provider": "europepmc", "identifier": "europepmc:PMC777"},
        {"pdf_url": "https://repo.example.edu/w3.pdf", "version": "acceptedVersion"},
        {"manual_upload": True},
    ]
    first = page.results[0]
    assert first.doi == "10.48550/arxiv.2401.00001"
    assert first.relevance_score == pytest.approx(0.91)
    assert first.abstract == "Engines compute" and first.authors == ["Ada Lovelace"]
    assert page.results[1].venue == "Journal of Things"
    # one batched lookup covering every alias of every hit
    assert len(known.calls) == 1 and "openalex:W3" in known.calls[0]
    assert "doi:10.1000/known" in known.calls[0]


def test_to_dict_shape() -> None:
    data = service(Api(RESULTS)).discover("engines").to_dict()
    assert set(data) == {"total", "has_more", "page", "per_page", "results"}
    hit = data["results"][0]
    for key in (
        "id",
        "doi",
        "title",
        "authors",
        "year",
        "venue",
        "type",
        "abstract",
        "cited_by_count",
        "relevance_score",
        "in_library",
        "fetch_route",
    ):
        assert key in hit


def test_has_more_false_on_last_page_and_at_the_fifty_ceiling() -> None:
    assert service(Api(RESULTS, count=4)).discover("x", per_page=4).has_more is False
    assert service(Api([], count=300)).discover("x", page=2, per_page=25).has_more is False
    assert service(Api([], count=300)).discover("x", page=1, per_page=25).has_more is True


def test_no_request_ever_goes_to_a_pdf_url() -> None:
    api = Api(RESULTS)
    service(api).discover("engines", per_page=10)
    assert all(r.url.host == "api.openalex.test" and r.url.path == "/works" for r in api.requests)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"text": "a" * 2001},
        {"text": "   "},
        {"text": "ok", "per_page": 51},
        {"text": "ok", "per_page": 0},
        {"text": "ok", "page": 0},
        {"text": "ok", "from_year": 2024, "to_year": 2020},
    ],
)
def test_invalid_requests_fail_before_any_request(kwargs: dict[str, Any]) -> None:
    api = Api(RESULTS)
    known = FakeKnown(set())
    kwargs = dict(kwargs)  # the parameter is shared by every run of the test: never mutate it
    text = kwargs.pop("text")
    with pytest.raises(InvalidRequestError) as info:
        service(api, known).discover(text, **kwargs)
    assert info.value.code == "invalid_request"
    assert api.requests == [] and known.calls == []


def test_long_text_is_never_truncated() -> None:
    api = Api([])
    text = "word " * 399 + "last"  # 1999 characters
    service(api).discover(text)
    assert api.requests[0].url.params["search.semantic"] == text


def test_missing_key_is_configuration_error_without_request() -> None:
    api = Api(RESULTS)
    with pytest.raises(ConfigurationError) as info:
        service(api, key=None).discover("engines")
    assert info.value.code == "configuration_error"
    assert "openalex.org/settings/api" in info.value.message
    assert api.requests == []


def test_empty_result_skips_the_library_lookup() -> None:
    known = FakeKnown(set())
    page = service(Api([], count=0), known).discover("nothing matches this")
    assert page.results == [] and page.total == 0 and page.has_more is False
    assert known.calls == []
