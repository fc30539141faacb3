"""OpenAlex: parsers on every recorded response, and the client's requests via MockTransport."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from prioris.config import load_settings
from prioris.errors import (
    ConfigurationError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
)
from prioris.sources.http import ProviderHttp, make_client
from prioris.sources.openalex import (
    OpenAlexClient,
    arxiv_id_from_url,
    normalize_doi,
    parse_openalex_work,
    rebuild_abstract,
    year_filter,
)

from conftest import shared_path

BASE = "https://api.openalex.test"


def fixture_files() -> list[Path]:
    folder = shared_path("fixtures", "api", "openalex")
    files = sorted(folder.glob("*.json"))
    assert files, f"no OpenAlex fixtures in {folder}"
    return files


def fixture_works(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data.get("results", [data])


def load(name: str) -> dict[str, Any]:
    return json.loads(shared_path("fixtures", "api", "openalex", name).read_text("utf-8"))


# --- rebuild_abstract -------------------------------------------------------------------


def test_rebuild_abstract_orders_words_by_position() -> None:
    index = {"world": [1], "Hello": [0], "again": [3], "hello": [2]}
    assert rebuild_abstract(index) == "Hello world hello again"


def test_rebuild_abstract_repeated_words_and_gaps() -> None:
    assert rebuild_abstract({"a": [0, 2], "b": [1], "c": [5]}) == "a b a c"


@pytest.mark.parametrize("empty", [None, {}, {"word": []}, "not a dict"])
def test_rebuild_abstract_empty(empty: Any) -> None:
    assert rebuild_abstract(empty) == ""


def test_rebuild_abstract_ignores_junk_positions() -> None:
    assert rebuild_abstract({"ok": [0], "bad": ["x", -1, True], "also": "nope"}) == "ok"


# --- parse_openalex_work on every recorded fixture ---------------------------------------


def test_every_fixture_parses() -> None:
    for path in fixture_files():
        for obj in fixture_works(path):
            work = parse_openalex_work(obj)
            assert work.source == "openalex", path.name
            assert work.id in work.aliases, path.name
            assert all(alias == alias.strip() and ":" in alias for alias in work.aliases)
            if obj.get("id"):
                assert work.id == "openalex:" + obj["id"].rsplit("/", 1)[-1]
            if obj.get("doi"):
                assert f"doi:{obj['doi'].removeprefix('https://doi.org/').lower()}" in work.aliases
            assert work.is_oa == obj["open_access"]["is_oa"], path.name
            assert work.oa_status == obj["open_access"]["oa_status"], path.name
            if obj.get("abstract_inverted_index"):
                words = {w for w in obj["abstract_inverted_index"]}
                assert work.abstract and set(work.abstract.split()) == words
            else:
                assert work.abstract is None
            if obj.get("authorships"):
                assert work.authors == [a["author"]["display_name"] for a in obj["authorships"]]
            if "locations" in obj:
                assert len(work.extra["locations"]) >= len(obj["locations"])
            json.dumps(work.to_dict())  # JSON-ready


def test_fixture_work_with_pmid_and_topics() -> None:
    work = parse_openalex_work(load("paperqa_test_doi_search_paper_attributes0.json"))
    assert work.id == "openalex:W4408732759"
    assert work.aliases == [
        "openalex:W4408732759",
        "doi:10.1016/j.xgen.2025.100814",
        "pmid:40120586",
    ]
    assert (
        work.title == "High-throughput screening of human genetic variants by pooled prime editing"
    )
    assert work.year == 2025 and work.published == "2025-03-01"
    assert work.venue == "Cell Genomics"
    assert work.type == "article" and work.is_preprint is False
    assert work.cited_by_count == 3
    assert work.concepts[0] == "CRISPR and Genetic Engineering"  # primary topic first
    assert "High-throughput screening" in work.concepts  # legacy concepts kept too
    assert len(work.concepts) == len(set(work.concepts))
    assert work.is_oa is True and work.oa_status == "gold"
    assert work.pdf_url is None  # best_oa_location has no pdf_url
    versions = [loc["version"] for loc in work.extra["locations"]]
    assert versions == ["publishedVersion", None]
    assert (
        work.extra["locations"][0]["landing_page_url"]
        == "https://doi.org/10.1016/j.xgen.2025.100814"
    )


def test_fixture_search_result_keeps_relevance_and_abstract() -> None:
    data = load("paperqa_test_title_search_paper_attributes0.json")
    work = parse_openalex_work(data["results"][0])
    assert work.extra["relevance_score"] == pytest.approx(804.17926)
    assert work.abstract is not None and work.abstract.startswith("Metal-oxide layers are likely")
    assert work.is_oa is False and work.oa_status == "closed"


def test_partial_fixture_without_openalex_id_falls_back_to_doi() -> None:
    work = parse_openalex_work(load("paperqa_test_does_openalex_work_oa-in-openalex1.json"))
    assert work.id == "doi:10.1021/acs.jctc.5b00178"
    assert work.is_oa is True and work.oa_status == "green"
    assert work.extra["oa_url"] == "https://www.osti.gov/biblio/1329576"


# --- identifiers found in built records ---------------------------------------------------


def test_arxiv_doi_gives_arxiv_alias() -> None:
    work = parse_openalex_work(
        {"id": "https://openalex.org/W1", "doi": "https://doi.org/10.48550/arXiv.2401.01234"}
    )
    assert work.aliases == ["openalex:W1", "doi:10.48550/arxiv.2401.01234", "arxiv:2401.01234"]


def test_arxiv_id_from_location_landing_page() -> None:
    work = parse_openalex_work(
        {
            "id": "https://openalex.org/W2",
            "doi": "https://doi.org/10.1103/physrevd.1.1",
            "locations": [
                {
                    "is_oa": True,
                    "landing_page_url": "http://arxiv.org/abs/hep-th/9901001v2",
                    "pdf_url": "http://arxiv.org/pdf/hep-th/9901001v2",
                    "version": "submittedVersion",
                },
            ],
        }
    )
    assert "arxiv:hep-th/9901001v2" in work.aliases


def test_pmcid_and_pmid_from_ids() -> None:
    work = parse_openalex_work(
        {
            "id": "W3",
            "ids": {
                "pmid": "https://pubmed.ncbi.nlm.nih.gov/123456",
                "pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/7654321",
            },
        }
    )
    assert work.aliases == ["openalex:W3", "europepmc:PMC7654321", "pmid:123456"]


def test_record_without_any_identifier_is_a_parse_error() -> None:
    from prioris.errors import ParseError

    with pytest.raises(ParseError):
        parse_openalex_work({"title": "anonymous"})
    with pytest.raises(ParseError):
        parse_openalex_work(["not", "a", "dict"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://doi.org/10.1000/ABC", "10.1000/abc"),
        ("doi:10.1/x", "10.1/x"),
        ("10.1/x", "10.1/x"),
        ("https://doi.org/10.1000/a%2Fb", "10.1000/a/b"),
        ("not a doi", None),
        (None, None),
    ],
)
def test_normalize_doi(raw: str | None, expected: str | None) -> None:
    assert normalize_doi(raw) == expected


def test_arxiv_id_from_url_forms() -> None:
    assert arxiv_id_from_url("https://arxiv.org/pdf/2401.01234v3.pdf") == "2401.01234v3"
    assert arxiv_id_from_url("http://arxiv.org/abs/2401.01234") == "2401.01234"
    assert arxiv_id_from_url("https://example.org/abs/2401.01234") is None


def test_year_filter_syntax() -> None:
    assert year_filter(None, None) == []
    assert year_filter(2020, 2020) == ["publication_year:2020"]
    assert year_filter(2019, None) == ["publication_year:>2018"]
    assert year_filter(None, 2024) == ["publication_year:<2025"]
    assert year_filter(2019, 2024) == ["publication_year:>2018", "publication_year:<2025"]
    with pytest.raises(InvalidRequestError):
        year_filter(2025, 2020)


# --- the client through httpx.MockTransport -------------------------------------------------


class Recorder:
    """A MockTransport handler that records requests and answers with a canned JSON body."""

    def __init__(self, body: Any = None, status: int = 200, raw: bytes | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.body = body if body is not None else {"meta": {"count": 0}, "results": []}
        self.status = status
        self.raw = raw

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.raw is not None:
            return httpx.Response(self.status, content=self.raw)
        return httpx.Response(self.status, json=self.body)

    def params(self, i: int = -1) -> dict[str, str]:
        return dict(self.requests[i].url.params)


def make(handler: Recorder, api_key: str | None = "KEY") -> OpenAlexClient:
    settings = load_settings()
    client = make_client(settings, httpx.MockTransport(handler))
    http = ProviderHttp("openalex", client, min_interval=0, backoff_budget=0)
    return OpenAlexClient(http, BASE, api_key)


def test_search_sends_query_paging_filter_sort_and_key() -> None:
    body = load("paperqa_test_title_search_paper_attributes0.json")
    rec = Recorder(body)
    page = make(rec).search(
        "copper oxide", sort="cited_by_count", page=2, per_page=10, from_year=2010, to_year=2020
    )
    assert rec.requests[0].url.path == "/works"
    assert rec.params() == {
        "search": "copper oxide",
        "page": "2",
        "per_page": "10",
        "filter": "publication_year:>2009,publication_year:<2021",
        "sort": "cited_by_count:desc",
        "api_key": "KEY",
    }
    assert page.total == 1 and len(page.works) == 1
    assert page.works[0].id == "openalex:W2277923667"


def test_search_relevance_has_no_sort_and_no_key_when_unset() -> None:
    rec = Recorder()
    make(rec, api_key=None).search("graphene")
    assert rec.params() == {"search": "graphene", "page": "1", "per_page": "25"}


def test_search_rejects_bad_input_before_any_request() -> None:
    rec = Recorder()
    client = make(rec)
    with pytest.raises(InvalidRequestError):
        client.search("   ")
    with pytest.raises(InvalidRequestError):
        client.search("x", sort="newest")
    with pytest.raises(InvalidRequestError):
        client.search("x", per_page=0)
    assert rec.requests == []


def test_get_work_by_w_id_and_by_doi() -> None:
    rec = Recorder(load("paperqa_test_doi_search_paper_attributes1.json"))
    client = make(rec)
    work = client.get_work("https://openalex.org/w1554322594")
    assert rec.requests[-1].url.path == "/works/W1554322594"
    assert rec.params() == {"api_key": "KEY"}
    assert work.id == "openalex:W1554322594"
    client.get_work("https://doi.org/10.1023/A:1007154515475")
    assert rec.requests[-1].url.path == "/works/doi:10.1023/a:1007154515475"


def test_get_work_404_is_not_found_and_bad_id_is_invalid() -> None:
    rec = Recorder({"error": "nope"}, status=404)
    client = make(rec)
    with pytest.raises(NotFoundError, match="W999"):
        client.get_work("W999")
    with pytest.raises(InvalidRequestError):
        client.get_work("hello world")
    assert len(rec.requests) == 1


def test_malformed_json_is_provider_unavailable() -> None:
    rec = Recorder(raw=b"{not json")
    with pytest.raises(ProviderUnavailableError):
        make(rec).search("x")
    rec2 = Recorder({"unexpected": True})
    with pytest.raises(ProviderUnavailableError):
        make(rec2).search("x")


def test_search_semantic_parameters() -> None:
    body = {
        "meta": {"count": 50, "page": 2, "per_page": 20},
        "results": [{"id": "https://openalex.org/W5", "relevance_score": 0.87}],
    }
    rec = Recorder(body)
    page = make(rec).search_semantic(
        "  protein folding with language models  ",
        page=2,
        per_page=20,
        from_year=2020,
        to_year=2024,
        open_access_only=True,
    )
    assert rec.params() == {
        "search.semantic": "protein folding with language models",
        "page": "2",
        "per_page": "20",
        "filter": "publication_year:>2019,publication_year:<2025,is_oa:true",
        "api_key": "KEY",
    }
    assert (page.total, page.page, page.per_page, page.has_more) == (50, 2, 20, True)
    assert page.works[0].extra["relevance_score"] == pytest.approx(0.87)


def test_search_semantic_has_more_stops_at_fifty_and_honours_meta_flag() -> None:
    rec = Recorder({"meta": {"count": 120, "page": 2, "per_page": 25}, "results": []})
    assert make(rec).search_semantic("x", page=2, per_page=25).has_more is False
    rec = Recorder(
        {"meta": {"count": 10, "page": 1, "per_page": 5, "has_more": False}, "results": []}
    )
    assert make(rec).search_semantic("x", page=1, per_page=5).has_more is False


def test_search_semantic_without_key_is_configuration_error_and_no_request() -> None:
    rec = Recorder()
    with pytest.raises(ConfigurationError) as info:
        make(rec, api_key=None).search_semantic("anything")
    assert info.value.code == "configuration_error"
    assert "https://openalex.org/settings/api" in info.value.message
    assert "PRIORIS_MCP_OPENALEX_API_KEY" in info.value.message
    assert rec.requests == []


def test_search_semantic_too_long_is_invalid_and_no_request() -> None:
    rec = Recorder()
    with pytest.raises(InvalidRequestError) as info:
        make(rec).search_semantic("a" * 2001)
    assert info.value.code == "invalid_request"
    assert rec.requests == []
    make(rec).search_semantic("a" * 2000)  # the limit itself is accepted
    assert len(rec.params()["search.semantic"]) == 2000


def test_search_semantic_uses_its_own_spacing_provider() -> None:
    rec_main, rec_sem = Recorder(), Recorder()
    settings = load_settings()
    main = ProviderHttp(
        "openalex",
        make_client(settings, httpx.MockTransport(rec_main)),
        min_interval=0,
        backoff_budget=0,
    )
    sem = ProviderHttp(
        "discovery",
        make_client(settings, httpx.MockTransport(rec_sem)),
        min_interval=0,
        backoff_budget=0,
    )
    client = OpenAlexClient(main, BASE, "KEY", semantic_http=sem)
    client.search_semantic("text")
    client.search("text")
    assert len(rec_sem.requests) == 1 and "search.semantic" in rec_sem.params()
    assert len(rec_main.requests) == 1 and "search" in rec_main.params()


def test_list_work_types() -> None:
    body = {
        "meta": {"count": 2},
        "results": [
            {
                "id": "https://openalex.org/work-types/article",
                "display_name": "article",
                "description": "A journal article",
                "works_count": 10,
            },
            {"id": "https://openalex.org/work-types/preprint", "display_name": "preprint"},
        ],
    }
    rec = Recorder(body)
    types = make(rec).list_work_types()
    assert rec.requests[0].url.path == "/work-types"
    assert rec.params()["api_key"] == "KEY"
    assert types == [
        {
            "id": "article",
            "display_name": "article",
            "description": "A journal article",
            "works_count": 10,
        },
        {"id": "preprint", "display_name": "preprint"},
    ]


def test_list_work_types_without_key_makes_no_request() -> None:
    rec = Recorder()
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_OPENALEX_API_KEY"):
        make(rec, api_key=None).list_work_types()
    assert rec.requests == []
