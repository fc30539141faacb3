"""The fetch ladder as a pure function over works parsed from OpenAlex-shaped records."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from prioris.discovery import fetch_route, is_https_url
from prioris.sources.openalex import parse_openalex_work

from conftest import shared_path


def loc(version: str | None, pdf: str | None, *, is_oa: bool = True) -> dict[str, Any]:
    return {
        "is_oa": is_oa,
        "version": version,
        "pdf_url": pdf,
        "landing_page_url": f"https://landing.example.org/{version}",
        "source": {"display_name": f"host of {version}"},
    }


def work(**fields: Any):
    return parse_openalex_work({"id": "https://openalex.org/W100", **fields})


def test_arxiv_doi_only_routes_to_arxiv() -> None:
    w = work(doi="https://doi.org/10.48550/arxiv.2310.06825")
    assert fetch_route(w) == {"provider": "arxiv", "identifier": "arxiv:2310.06825"}


def test_arxiv_found_in_locations_beats_pmcid_and_pdfs() -> None:
    w = work(
        ids={"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC42"},
        locations=[
            loc("publishedVersion", "https://publisher.example.org/a.pdf"),
            {
                "is_oa": True,
                "version": "submittedVersion",
                "landing_page_url": "https://arxiv.org/abs/2101.00001v2",
                "pdf_url": None,
            },
        ],
    )
    assert fetch_route(w) == {"provider": "arxiv", "identifier": "arxiv:2101.00001v2"}


def test_pmcid_only_routes_to_europepmc() -> None:
    w = work(
        ids={"pmcid": "https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1234567"},
        locations=[loc("publishedVersion", "https://publisher.example.org/a.pdf")],
    )
    assert fetch_route(w) == {"provider": "europepmc", "identifier": "europepmc:PMC1234567"}


def test_prefers_published_then_accepted_then_submitted_in_any_order() -> None:
    locations = [
        loc("submittedVersion", "https://preprints.example.org/s.pdf"),
        loc("publishedVersion", "https://journal.example.org/p.pdf"),
        loc("acceptedVersion", "https://repository.example.edu/a.pdf"),
    ]
    rng = random.Random(7)
    for _ in range(6):
        rng.shuffle(locations)
        w = work(locations=list(locations), best_oa_location=locations[0])
        assert fetch_route(w) == {
            "pdf_url": "https://journal.example.org/p.pdf",
            "version": "publishedVersion",
        }
    without_published = [x for x in locations if x["version"] != "publishedVersion"]
    assert fetch_route(work(locations=without_published)) == {
        "pdf_url": "https://repository.example.edu/a.pdf",
        "version": "acceptedVersion",
    }


def test_looks_beyond_best_oa_location() -> None:
    best = loc("publishedVersion", None)  # OpenAlex's pick has no PDF
    other = loc("acceptedVersion", "https://repository.example.edu/accepted.pdf")
    w = work(best_oa_location=best, locations=[best, other])
    assert fetch_route(w) == {
        "pdf_url": "https://repository.example.edu/accepted.pdf",
        "version": "acceptedVersion",
    }


def test_unknown_version_is_last_resort_and_closed_locations_are_ignored() -> None:
    w = work(
        locations=[
            loc(None, "https://somewhere.example.org/x.pdf"),
            loc("publishedVersion", "https://paywall.example.org/p.pdf", is_oa=False),
        ]
    )
    assert fetch_route(w) == {"pdf_url": "https://somewhere.example.org/x.pdf", "version": None}


@pytest.mark.parametrize(
    "bad",
    [
        "http://insecure.example.org/p.pdf",
        "javascript:alert(1)",
        "not a url",
        "https://",
        "https://localhost/p.pdf",
        "https://127.0.0.1/p.pdf",
        "https://user:pw@example.org/p.pdf",
        "https://exa mple.org/p.pdf",
        "/relative/p.pdf",
        "ftp://example.org/p.pdf",
        "https://example.org:99999/p.pdf",
    ],
)
def test_junk_pdf_urls_are_ignored(bad: str) -> None:
    assert not is_https_url(bad)
    w = work(locations=[loc("publishedVersion", bad)])
    assert fetch_route(w) == {"manual_upload": True}


def test_junk_url_skipped_for_a_valid_lower_ranked_one() -> None:
    w = work(
        locations=[
            loc("publishedVersion", "http://journal.example.org/p.pdf"),
            loc("submittedVersion", "https://preprints.example.org/s.pdf"),
        ]
    )
    assert fetch_route(w)["pdf_url"] == "https://preprints.example.org/s.pdf"


def test_nothing_usable_means_manual_upload() -> None:
    assert fetch_route(work()) == {"manual_upload": True}


def test_recorded_fixtures_route() -> None:
    folder = shared_path("fixtures", "api", "openalex")
    for path in sorted(folder.glob("*.json")):
        data = json.loads(path.read_text("utf-8"))
        for obj in data.get("results", [data]):
            route = fetch_route(parse_openalex_work(obj))
            # none of the recorded works has an arXiv id, a PMCID or an OA pdf_url
            assert route == {"manual_upload": True}, path.name


@pytest.mark.parametrize(
    "bad",
    [
        "https://example.org/" + "a" * 2100,  # too long
        "https://user@example.org/p.pdf",  # a user name alone
        "https://:secret@example.org/p.pdf",  # a password alone
        "https://.example.org/p.pdf",
        "https://example.org./p.pdf",
        "https:///p.pdf",
    ],
)
def test_more_junk_urls(bad: str) -> None:
    assert is_https_url(bad) is False


def test_url_shape_edges() -> None:
    exact = "https://example.org/" + "a" * (2048 - len("https://example.org/"))
    assert len(exact) == 2048 and is_https_url(exact) is True
    assert is_https_url(exact + "a") is False
    for value in (None, 123, b"https://example.org/p.pdf", ""):
        assert is_https_url(value) is False


def test_an_empty_provider_id_is_no_route() -> None:
    from prioris.models import Work

    bare = Work(id="openalex:W1", title="t", aliases=["arxiv:", "europepmc:PMC7"])
    assert fetch_route(bare) == {"provider": "europepmc", "identifier": "europepmc:PMC7"}
