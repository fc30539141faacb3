"""The rest of the alert sources: dates compared at the coarser precision, identifiers in
the library's canonical forms, the JSONL file source, a saved search over several
providers, and the ``--sources`` spec parsed and built into source objects."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from prioris.alerts import CandidateSource
from prioris.alerts.feed_source import FeedSource
from prioris.alerts.jsonl_source import JsonlSource
from prioris.alerts.openalex_sources import OpenAlexCitingSource, OpenAlexSearchSource
from prioris.alerts.protocols import Candidate
from prioris.alerts.provider_sources import ArxivNewSource, EuropePmcSource
from prioris.alerts.saved_search import SavedSearch
from prioris.alerts.source_kit import canonical_identifiers, failing_as
from prioris.alerts.spec import AlertClients, SourceSpec, build_sources, parse_sources
from prioris.alerts.when import check_since, is_new, normalise_date
from prioris.config import load_settings
from prioris.errors import (
    ConfigurationError,
    FileTooLargeError,
    InvalidRequestError,
    NotFoundError,
    ProviderUnavailableError,
)
from prioris.sources.openalex_graph_cache import MemoryBudget, MemoryCache
from prioris.sources.remote import RemoteSources

# -- dates and identifiers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("2026-03-02", "2026-03-02"),
        ("2026", "2026"),
        ("2026-03", "2026-03"),
        ("2026-03-02T10:00:00Z", "2026-03-02T10:00:00Z"),
        ("2026-03-02T10:00:00+02:00", "2026-03-02T08:00:00Z"),
        ("Mon, 02 Mar 2026 05:00:00 GMT", "2026-03-02T05:00:00Z"),
        ("2026-02-30", None),
        ("soon", None),
        ("", None),
    ],
)
def test_dates_are_read_into_one_sortable_form(text: str, normal: str | None) -> None:
    assert normalise_date(text) == normal


def test_new_is_decided_at_the_coarser_precision() -> None:
    assert is_new("2026-03-02", "2026-03-02T09:00:00Z")  # the day cannot be placed: kept
    assert not is_new("2026-03-01T23:59:59Z", "2026-03-02")
    assert is_new("2026", "2026-06-01") and not is_new("2025", "2026-01-01")
    assert is_new(None, "2026-01-01") and is_new("2020-01-01", None)
    assert check_since("2026-03-02") == "2026-03-02" and check_since(None) is None
    for bad in ("2026", "tomorrow", "2026-13-01"):
        with pytest.raises(InvalidRequestError, match="since must be"):
            check_since(bad)


def test_identifiers_are_the_library_canonical_forms() -> None:
    assert canonical_identifiers(
        [
            "https://doi.org/10.1101/2026.02.27.640101",
            "info:doi/10.1371/journal.pone.0320101",
            "INFO:DOI/10.1371/journal.pone.0320101",
            "urn:doi:10.5555/urn",
            "arXiv:2401.01234v2",
            "10.48550/arXiv.2402.00001",
            "PMID:123",
            "https://openalex.org/w55",
            "https://journal.example.org/article/1",
            "file:0123456789abcdef",
            None,
        ]
    ) == (
        "doi:10.1101/2026.02.27.640101",
        "doi:10.1371/journal.pone.0320101",
        "doi:10.5555/urn",
        "arxiv:2401.01234v2",
        "arxiv:2401.01234",
        "doi:10.48550/arxiv.2402.00001",
        "arxiv:2402.00001",
        "europepmc:MED:123",
        "pmid:123",
        "openalex:W55",
    )


def test_failing_as_keeps_the_code_and_names_the_source_once() -> None:
    with (
        pytest.raises(ProviderUnavailableError) as caught,
        failing_as("outer"),
        failing_as("inner"),
    ):
        raise ProviderUnavailableError("arxiv: down")
    assert caught.value.code == "provider_unavailable" and caught.value.source == "outer"
    assert caught.value.message == (
        "alert source 'outer' failed: alert source 'inner' failed: arxiv: down"
    )


# -- JSONL -------------------------------------------------------------------------------


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n\n", "utf-8")
    return path


def test_jsonl_records_become_candidates_since_a_day(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "c.jsonl",
        [
            {"_id": "MED-10", "title": "Old", "text": "old text", "published": "2025-12-31"},
            {
                "id": "x2",
                "title": "New",
                "abstract": "new  text",
                "published": "2026-01-02",
                "doi": "https://doi.org/10.1234/ABC",
                "arxiv": "2401.01234",
                "pmid": 77,
            },
            {"_id": "x3", "title": "Undated", "text": "t"},
        ],
    )
    source = JsonlSource(path)
    found = source.candidates("2026-01-01")
    assert [c.id for c in found] == ["x2", "x3"]
    assert found[0].text == "new text" and found[0].published == "2026-01-02"
    assert found[0].identifiers == (
        "doi:10.1234/abc",
        "arxiv:2401.01234",
        "europepmc:MED:77",
        "pmid:77",
    )
    assert found[0].source == f"jsonl:{path}"
    assert len(JsonlSource(path, max_results=1).candidates(None)) == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "line 2 is not JSON"),
        ("[1, 2]", "line 2 is not a JSON object"),
        ('{"title": "no id"}', 'line 2 has no "_id"'),
        ('{"_id": "a"}', 'neither "title" nor "text"'),
    ],
)
def test_a_bad_jsonl_line_is_named(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"_id": "ok", "title": "fine"}\n' + line + "\n", "utf-8")
    with pytest.raises(InvalidRequestError) as caught:
        JsonlSource(path).candidates(None)
    assert message in caught.value.message and caught.value.source == f"jsonl:{path}"


def test_jsonl_bounds_and_missing_files(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "c.jsonl", [{"_id": str(n), "title": "t" * 100} for n in range(50)]
    )
    with pytest.raises(FileTooLargeError, match="more than the limit of 1000 bytes"):
        JsonlSource(path, max_bytes=1000).candidates(None)
    with pytest.raises(NotFoundError):
        JsonlSource(tmp_path / "absent.jsonl").candidates(None)
    with pytest.raises(InvalidRequestError, match="not a file"):
        JsonlSource(tmp_path).candidates(None)


# -- saved search ------------------------------------------------------------------------


class Listed:
    def __init__(self, name: str, items: list[Candidate], fail: bool = False) -> None:
        self.name, self.items, self.fail = name, items, fail
        self.asked: list[str | None] = []

    def candidates(self, since: str | None) -> list[Candidate]:
        self.asked.append(since)
        if self.fail:
            raise ProviderUnavailableError(f"{self.name}: down")
        return self.items


def test_a_saved_search_merges_its_providers_once_per_paper() -> None:
    arxiv = Listed("arxiv", [Candidate("arxiv:1", "A", identifiers=("arxiv:1", "doi:10.1/a"))])
    epmc = Listed(
        "europepmc",
        [
            Candidate("europepmc:PPR:PPR1", "A again", identifiers=("doi:10.1/a",)),
            Candidate("europepmc:MED:2", "B", identifiers=("europepmc:MED:2",)),
        ],
    )
    search = SavedSearch("sleep", [arxiv, epmc])
    assert isinstance(search, CandidateSource)
    found = search.candidates("2026-03-01")
    assert [c.id for c in found] == ["arxiv:1", "europepmc:MED:2"]
    assert arxiv.asked == epmc.asked == ["2026-03-01"]
    assert len(SavedSearch("sleep", [arxiv, epmc], max_results=1).candidates(None)) == 1
    with pytest.raises(ProviderUnavailableError) as caught:
        SavedSearch("sleep", [arxiv, Listed("europepmc", [], fail=True)]).candidates(None)
    assert caught.value.message.startswith("alert source 'search:\"sleep\"' failed:")


# -- the spec ----------------------------------------------------------------------------


def test_the_cli_spec_is_parsed_into_items() -> None:
    items = parse_sources(
        'arxiv:cs.LG,europepmc:"malaria, vaccine",openalex-cites,'
        "feed:https://connect.biorxiv.org/biorxiv_xml/neuroscience,jsonl:~/c.jsonl"
    )
    assert items == [
        SourceSpec("arxiv", "cs.LG"),
        SourceSpec("europepmc", "malaria, vaccine", quoted=True),
        SourceSpec("openalex-cites"),
        SourceSpec("feed", "https://connect.biorxiv.org/biorxiv_xml/neuroscience"),
        SourceSpec("jsonl", "~/c.jsonl"),
    ]
    assert items[1].text == 'europepmc:"malaria, vaccine"'
    assert SourceSpec("arxiv", "cs.LG+stat.ML").arxiv_categories == ["cs.LG", "stat.ML"]
    # what a shell leaves of arxiv:"graph neural" is a search, as are quoted words
    assert parse_sources("arxiv:graph neural")[0].arxiv_categories == []
    assert parse_sources('arxiv:"transformers"')[0].arxiv_categories == []
    assert parse_sources('search:"say \\"hi\\""')[0].value == 'say "hi"'


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "none given"),
        ("pubmed:cancer", "unknown kind 'pubmed'"),
        ("arxiv:cs.LG,,jsonl:x", "empty item"),
        ("arxiv", "arxiv needs a value, e.g. arxiv:cs.LG"),
        ("openalex-cites:W1", "takes no value"),
        ('europepmc:"open', "quote is not closed"),
        ("feed:ftp://example.org/x", "http(s) URL or a file"),
        (",".join(["jsonl:a"] * 33), "at most 32"),
    ],
)
def test_a_bad_spec_is_invalid_request_saying_why(spec: str, message: str) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_sources(spec)
    assert message in caught.value.message


def test_the_spec_builds_source_objects_over_the_remote_clients(tmp_path: Path) -> None:
    settings = load_settings({"PRIORIS_MCP_OPENALEX_API_KEY": "key"})
    remote = RemoteSources(settings, httpx.MockTransport(lambda r: httpx.Response(500)))
    graph_built: list[int] = []

    def graph() -> object:
        graph_built.append(1)
        return remote.openalex_graph(MemoryCache(), MemoryBudget(10))

    clients = AlertClients.from_remote(remote, graph=graph, budget=MemoryBudget(10))  # type: ignore[arg-type]
    sources = build_sources(
        'arxiv:cs.LG+stat.ML,arxiv:"graph neural",europepmc-preprints:"malaria",'
        f'openalex:"sleep",openalex-cites,search:"sleep",feed:https://x.test/feed,'
        f"feed:{tmp_path / 'f.atom'},jsonl:{tmp_path / 'c.jsonl'}",
        clients,
        seeds=["openalex:W1"],
        max_results=50,
    )
    kinds = [type(s) for s in sources]
    assert kinds == [
        ArxivNewSource,
        ArxivNewSource,
        EuropePmcSource,
        OpenAlexSearchSource,
        OpenAlexCitingSource,
        SavedSearch,
        FeedSource,
        FeedSource,
        JsonlSource,
    ]
    assert all(isinstance(s, CandidateSource) for s in sources)
    assert sources[0].search_query == "(cat:cs.LG OR cat:stat.ML)"  # type: ignore[attr-defined]
    assert sources[1].search_query == "all:graph AND all:neural"  # type: ignore[attr-defined]
    assert sources[2].preprints_only  # type: ignore[attr-defined]
    assert [s.name for s in sources[:3]] == [
        "arxiv:cs.LG+stat.ML",
        'arxiv:"graph neural"',
        'europepmc-preprints:"malaria"',
    ]
    assert all(getattr(s, "max_results", 50) == 50 for s in sources)
    assert len(sources[5].targets) == 3 and graph_built == [1]  # type: ignore[attr-defined]
    assert sources[6].http.provider == "feed" and sources[7].http is None  # type: ignore[attr-defined]
    # a provider that fails still fails with its source named
    with pytest.raises(ProviderUnavailableError, match=r"alert source 'arxiv:cs\.LG\+stat\.ML'"):
        sources[0].candidates(None)


def test_building_says_what_is_missing() -> None:
    remote = RemoteSources(load_settings({}), httpx.MockTransport(lambda r: httpx.Response(500)))
    clients = AlertClients.from_remote(remote)  # no OpenAlex key: no OpenAlex client
    with pytest.raises(ConfigurationError, match="OpenAlex API key"):
        build_sources('openalex:"x"', clients)
    with pytest.raises(InvalidRequestError, match="needs a collection"):
        build_sources("openalex-cites", clients)
    with pytest.raises(InvalidRequestError, match="max_results"):
        build_sources("arxiv:cs.LG", clients, max_results=10**6)
    search = build_sources('search:"x"', clients)[0]
    assert [t.name for t in search.targets] == ["arxiv:x", "europepmc:x"]  # type: ignore[attr-defined]


def test_in_accounts_mode_files_outside_the_allowed_folders_answer_as_missing(
    tmp_path: Path,
) -> None:
    allowed, elsewhere = tmp_path / "imports", tmp_path / "private"
    allowed.mkdir()
    elsewhere.mkdir()
    inside = write_jsonl(allowed / "c.jsonl", [{"_id": "a", "title": "t"}])
    outside = write_jsonl(elsewhere / "c.jsonl", [{"_id": "b", "title": "t"}])
    (allowed / "link.jsonl").symlink_to(outside)  # a link out of the folder is outside
    remote = RemoteSources(load_settings({}), httpx.MockTransport(lambda r: httpx.Response(500)))
    clients = AlertClients.from_remote(remote)
    roots = [allowed]
    built = build_sources(f"jsonl:{inside}", clients, allowed_roots=roots)
    assert [c.id for c in built[0].candidates(None)] == ["a"]
    for spec in (f"jsonl:{outside}", f"jsonl:{allowed / 'link.jsonl'}", f"feed:{outside}"):
        with pytest.raises(NotFoundError, match="among the server's import folders"):
            build_sources(spec, clients, allowed_roots=roots)
    assert build_sources(f"jsonl:{outside}", clients)  # loopback: no bound (None)
