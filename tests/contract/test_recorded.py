"""The PriorisMCP contract against real recorded provider responses (../shared/fixtures/api).

The same calls as a PriorisMCP client makes, but arXiv and Europe PMC answer with what they
really answered once: a search feed and its second page, a mixed batch with an unknown id,
a Europe PMC ``resultType=core`` page with its cursor. Skipped when the recordings are
not available.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from contract.conftest import Mcp, open_session
from contract.providers import ProviderWorld

from conftest import shared_path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    fixtures = shared_path("fixtures", "api")
    root = tmp_path_factory.mktemp("recorded")
    world = ProviderWorld(root / "pdfs", recorded=fixtures)
    with ExitStack() as stack:
        stack.callback(world.close)
        yield open_session(world, root / "data", stack)


def test_arxiv_search_pages(recorded: Mcp) -> None:
    first = recorded.call("research_arxiv_search", {"query": "testing"})
    second = recorded.call("research_arxiv_search", {"query": "testing", "start": 10})
    assert first["total_results"] > 10 and len(first["results"]) == 10
    ids = [r["arxiv_id"] for r in first["results"]]
    assert all(re.search(r"v\d+$", arxiv_id) for arxiv_id in ids)  # versioned
    assert not set(ids) & {r["arxiv_id"] for r in second["results"]}
    record = first["results"][0]
    assert record["title"] and record["authors"] and "name" in record["authors"][0]
    assert record["categories"] and record["primary_category"] in record["categories"]
    assert record["published"] and record["updated"] and record["pdf_url"]


def test_arxiv_mixed_batch(recorded: Mcp) -> None:
    out = recorded.call(
        "research_arxiv_fetch_metadata", {"arxiv_ids": ["0808.05394", "1707.08567"]}
    )
    assert [r["arxiv_id"] for r in out["results"]] == ["1707.08567v1"]
    assert out["not_found"] == ["0808.05394"]
    assert out["results"][0]["comment"].startswith("44 pages")


def test_europepmc_search_core_page(recorded: Mcp) -> None:
    out = recorded.call("research_europepmc_search", {"query": "cancer"})
    assert out["hit_count"] == 5059039 and len(out["results"]) == 25
    assert out["next_cursor_mark"] == "AoIIP4ZawSg1MzEyODI1MA=="
    hosted = next(r for r in out["results"] if r["pmcid"] == "PMC12124214")
    assert hosted["identifier"] == "MED:39709208" and hosted["full_text_available"] is True
    authored = next(r for r in out["results"] if r["authors"])
    assert set(authored["authors"][0]) >= {"full_name", "first_name", "last_name", "initials"}
    assert authored["authors"][0]["full_name"]
    assert all(r["identifier"].startswith("MED:") for r in out["results"])
