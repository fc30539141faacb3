"""Enrichment: provider records completing what a PDF printed, at ingest and afterwards.

Providers answer through httpx.MockTransport (inline JSON/Atom, and the recorded responses
in ../shared/fixtures/api where present) or, for the CLI, a loopback HTTP server.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest

import paper_factory as papers
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.library import Library
from prioris.models import Work
from prioris.sources.enrich import ProviderLookup, merge_provider, same_paper
from prioris.sources.remote import RemoteSources

from conftest import FAKE_PROVIDER_ENV, FakeOcr, shared_path

ARXIV_ID = "2401.01234v1"
ARXIV_TITLE = "Reef Signals in Deep Ocean Acoustics Revisited"


def atom(arxiv_id: str = ARXIV_ID, title: str = ARXIV_TITLE, *more: tuple[str, str]) -> bytes:
    """An arXiv Atom feed with one entry per (id, title)."""
    entries = "".join(
        f"<entry><id>http://arxiv.org/abs/{ident}</id><title>{name}</title>"
        "<published>2024-01-03T10:00:00Z</published><summary>What reefs sound like.</summary>"
        "<author><name>Amara Nwosu</name></author><author><name>Chen Wei</name></author>"
        '<arxiv:primary_category term="physics.ao-ph"/></entry>'
        for ident, name in [(arxiv_id, title), *more]
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<opensearch:totalResults>{1 + len(more)}</opensearch:totalResults>{entries}</feed>"
    ).encode()


OPENALEX_WORK = {
    "id": "https://openalex.org/W42",
    "doi": "https://doi.org/10.5555/reef.2019.7",
    "title": "Coral Reef Recovery after Repeated Marine Heatwaves: A Six-Year Survey",
    "publication_year": 2019,
    "publication_date": "2019-05-02",
    "type": "article",
    "primary_location": {"source": {"display_name": "Journal of Reef Studies"}},
    "authorships": [
        {"author": {"display_name": "Ngozi Okafor"}},
        {"author": {"display_name": "José Álvarez-Núñez"}},
        {"author": {"display_name": "Zoë van der Berg"}},
    ],
    "abstract_inverted_index": {"Reefs": [0], "recover.": [1]},
}

EPMC_RESULT = {
    "hitCount": 1,
    "resultList": {
        "result": [
            {
                "id": "31000001",
                "source": "MED",
                "pmid": "31000001",
                "doi": "10.5555/reef.2019.7",
                "title": "Coral reef recovery after repeated marine heatwaves: a six-year survey.",
                "pubYear": "2019",
                "authorList": {
                    "author": [
                        {"fullName": "Okafor N", "firstName": "Ngozi", "lastName": "Okafor"},
                        {"fullName": "Tanaka K", "firstName": "Kenji", "lastName": "Tanaka"},
                    ]
                },
                "journalInfo": {"journal": {"title": "Reef Studies"}},
            }
        ]
    },
}


class Providers:
    """A MockTransport handler answering like arXiv, OpenAlex and Europe PMC (or offline)."""

    def __init__(
        self,
        *,
        arxiv: bytes | None = None,
        openalex: dict[str, Any] | None = None,
        europepmc: dict[str, Any] | None = None,
        offline: bool = False,
    ) -> None:
        self.arxiv, self.openalex, self.europepmc = arxiv, openalex, europepmc
        self.offline = offline
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.offline:
            raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution")
        host = request.url.host
        if host == "api.arxiv.test" and self.arxiv is not None:
            return httpx.Response(200, content=self.arxiv)
        if host == "openalex.test" and self.openalex is not None:
            return httpx.Response(200, json=self.openalex)
        if host == "epmc.test" and self.europepmc is not None:
            return httpx.Response(200, json=self.europepmc)
        return httpx.Response(404)

    def hosts(self) -> list[str]:
        return [r.url.host for r in self.requests]


@pytest.fixture
def provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PRIORIS_MCP_ENRICH", "auto")


@pytest.fixture
def open_library(provider_env: None) -> Any:
    opened: list[Library] = []

    def make(handler: Callable[[httpx.Request], httpx.Response], **env: str) -> Library:
        settings = load_settings()
        if env:
            settings = settings.with_overrides(**env)
        library = Library.open(
            settings,
            embedder=FakeEmbedder(),
            ocr=FakeOcr(),
            http_transport=httpx.MockTransport(handler),
        )
        opened.append(library)
        return library

    yield make
    for library in opened:
        library.close()


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# -- pure parts ----------------------------------------------------------------------------
def test_provider_wins_for_bibliographic_fields_and_ids_are_united() -> None:
    printed = Work(
        id="file:0123456789abcdef",
        title="Reef signals",
        authors=["A. Nwosu"],
        year=None,
        aliases=["arxiv:2401.01234v1"],
        source="file",
        extra={"filename": "reef.pdf"},
    )
    provider = Work(
        id="arxiv:2401.01234v1",
        title="Reef Signals in Deep Ocean Acoustics",
        authors=["Amara Nwosu", "Chen Wei"],
        year=2024,
        abstract="What reefs sound like.",
        aliases=["doi:10.5555/x"],
        source="arxiv",
        extra={"primary_category": "physics.ao-ph", "comment": "9 pages"},
    )
    merged = merge_provider(printed, provider)
    assert merged.id == printed.id and merged.source == "file"
    assert merged.title == provider.title and merged.authors == provider.authors
    assert merged.year == 2024 and merged.abstract == "What reefs sound like."
    assert merged.aliases == ["arxiv:2401.01234v1", "doi:10.5555/x"]
    assert merged.extra["filename"] == "reef.pdf"
    assert merged.extra["primary_category"] == "physics.ao-ph"
    assert "comment" not in merged.extra and merged.extra["enriched_from"] == "arxiv"
    assert printed.title == "Reef signals"  # the input is not modified


def test_same_paper_compares_titles_loosely() -> None:
    assert same_paper("Attention is all you need", "Attention Is All You Need")
    assert same_paper("Trace-based Just-in-Time Type Specialization for", ARXIV_TITLE) is False
    assert same_paper(
        "VESPA: Very large-scale Evolutionary",
        "VESPA: Very large-scale Evolutionary and Selective Pressure Analyses",
    )
    assert same_paper(None, "Anything")


# -- lookups through the rate-limited clients -----------------------------------------------
def test_lookup_order_arxiv_then_openalex_then_europepmc(provider_env: None) -> None:
    providers = Providers(arxiv=atom(), europepmc=EPMC_RESULT)  # OpenAlex: 404
    remote = RemoteSources(load_settings(), httpx.MockTransport(providers))
    lookup = ProviderLookup(remote)
    found = lookup.lookup(["file:x", "arxiv:2401.01234v1", "doi:10.5555/reef.2019.7"])
    assert (found.status, found.provider, found.work.id) == (  # type: ignore[union-attr]
        "found",
        "arxiv",
        "arxiv:2401.01234v1",
    )
    assert providers.requests[0].url.params["id_list"] == "2401.01234v1"  # the printed version
    found = lookup.lookup(["doi:10.5555/reef.2019.7"])
    assert found.provider == "europepmc" and providers.hosts()[-2:] == [
        "openalex.test",
        "epmc.test",
    ]
    assert found.work is not None and found.work.authors == ["Ngozi Okafor", "Kenji Tanaka"]
    assert lookup.lookup(["file:x"]).status == "no_identifier"
    remote.close()


def test_unreachable_provider_is_reported_not_raised_and_not_asked_again(
    provider_env: None,
) -> None:
    providers = Providers(offline=True)
    remote = RemoteSources(load_settings(), httpx.MockTransport(providers))
    lookup = ProviderLookup(remote)
    first = lookup.lookup(["arxiv:2401.01234v1"])
    assert first.status == "unavailable" and "could not reach" in (first.message or "")
    assert lookup.lookup(["arxiv:2402.00001"]).status == "unavailable"
    assert len(providers.requests) == 1  # offline costs one failed connection per provider
    remote.close()


def test_recorded_arxiv_response(provider_env: None) -> None:
    body = shared_path(
        "fixtures", "api", "arxiv", "id_1605.08386_s0_m100_199195aa31ad.atom.xml"
    ).read_bytes()
    remote = RemoteSources(load_settings(), httpx.MockTransport(Providers(arxiv=body)))
    found = ProviderLookup(remote).lookup(["arxiv:1605.08386v1"])
    assert found.work is not None
    assert found.work.title == "Heat-bath random walks with Markov bases"
    assert found.work.authors == ["Caprice Stanley", "Tobias Windisch"] and found.work.year == 2016
    remote.close()


def test_recorded_openalex_response(provider_env: None) -> None:
    record = json.loads(
        shared_path(
            "fixtures", "api", "openalex", "paperqa_test_doi_search_paper_attributes1.json"
        ).read_text()
    )
    remote = RemoteSources(load_settings(), httpx.MockTransport(Providers(openalex=record)))
    found = ProviderLookup(remote).lookup(["doi:10.1023/a:1007154515475"])
    assert found.provider == "openalex" and found.work is not None
    assert found.work.year == 2001
    assert found.work.authors[0] == "Subrata Adak"
    remote.close()


# -- at ingest ------------------------------------------------------------------------------
def test_ingest_completes_the_record_and_keeps_what_was_printed(
    open_library: Any, tmp_path: Path
) -> None:
    providers = Providers(arxiv=atom())
    library = open_library(providers)
    pdf = papers.two_column_grid(stamp=f"arXiv:{ARXIV_ID}  [physics.ao-ph]  3 Jan 2024")
    result = library.ingest_file(write(tmp_path, "reef.pdf", pdf))
    assert result.enriched == "arxiv" and result.to_dict()["enriched"] == "arxiv"
    work = library.get_work(result.id)
    assert work.source == "file" and work.id.startswith("file:")
    assert work.title == ARXIV_TITLE and work.authors == ["Amara Nwosu", "Chen Wei"]
    assert work.year == 2024 and work.abstract == "What reefs sound like."
    records = library.metadata_records(result.id)
    assert records["printed"]["title"] == papers.GRID_TITLE
    assert records["printed"]["authors"] == [name for name, _, _ in papers.GRID_AUTHORS]
    assert records["arxiv"]["title"] == ARXIV_TITLE
    hits = library.search("Revisited", mode="fts").hits  # the index has the provider's title
    assert [h.id for h in hits] == [result.id]


def test_offline_ingest_works_as_before(open_library: Any, tmp_path: Path) -> None:
    providers = Providers(offline=True)
    library = open_library(providers)
    first = library.ingest_file(
        write(tmp_path, "a.pdf", papers.two_column_grid(stamp=f"arXiv:{ARXIV_ID} [cs.SD]"))
    )
    second = library.ingest_file(
        write(tmp_path, "b.pdf", papers.single_column_lncs(doi="10.5555/reef.2019.7"))
    )
    assert first.status == second.status == "ingested" and not first.enriched
    assert library.get_work(first.id).title == papers.GRID_TITLE
    assert library.get_work(second.id).authors[0] == "Ngozi Okafor"
    assert library.metadata_records(second.id)["printed"]["doi"] == "10.5555/reef.2019.7"
    assert providers.hosts() == ["api.arxiv.test", "openalex.test", "epmc.test"]


def test_enrichment_off_asks_no_provider(open_library: Any, tmp_path: Path) -> None:
    providers = Providers(arxiv=atom())
    library = open_library(providers, enrich="off")
    result = library.ingest_file(
        write(tmp_path, "a.pdf", papers.two_column_grid(stamp=f"arXiv:{ARXIV_ID} [cs.SD]"))
    )
    assert providers.requests == [] and library.get_work(result.id).title == papers.GRID_TITLE


def test_an_identifier_of_another_paper_is_not_merged(open_library: Any, tmp_path: Path) -> None:
    library = open_library(Providers(arxiv=atom(title="Quantum Chromodynamics on the Lattice")))
    result = library.ingest_file(
        write(tmp_path, "a.pdf", papers.two_column_grid(stamp=f"arXiv:{ARXIV_ID} [cs.SD]"))
    )
    assert not result.enriched and library.get_work(result.id).title == papers.GRID_TITLE


# -- works already stored -------------------------------------------------------------------
def test_enrich_stored_works_updates_record_and_indexes(open_library: Any, tmp_path: Path) -> None:
    providers = Providers(openalex=OPENALEX_WORK)
    library = open_library(providers, enrich="off")
    lncs = papers.single_column_lncs(doi="10.5555/reef.2019.7", title="Coral Reef Recovery")
    stored = library.ingest_file(write(tmp_path, "reef.pdf", lncs))
    other = library.ingest_file(write(tmp_path, "grid.pdf", papers.many_authors()))
    assert library.get_work(stored.id).year is None
    assert library.enrichment.enrichable_ids() == [stored.id]  # the other has no identifier
    seen: list[str] = []
    reports = library.enrich(on_done=lambda work_id, report: seen.append(work_id))
    assert seen == [stored.id] and reports[0]["status"] == "enriched"
    assert reports[0]["provider_id"] == "openalex:W42"
    assert set(reports[0]["changed"]) >= {"title", "year", "venue", "abstract"}
    work = library.get_work(stored.id)
    assert work.year == 2019 and work.venue == "Journal of Reef Studies"
    assert "openalex:W42" in work.aliases
    assert library.resolve_work_id("W42") == stored.id
    records = library.metadata_records(stored.id)
    assert records["printed"]["title"] == "Coral Reef Recovery"
    assert records["openalex"]["year"] == 2019
    hits = library.search("Survey", mode="fts").hits
    assert stored.id in [h.id for h in hits]
    in_year = library.search("reef heatwaves", mode="vector", from_year=2019, to_year=2019).hits
    assert [h.id for h in in_year] == [stored.id]  # the vector index knows the new year
    # the work's own vector was made again from the provider's title and abstract
    from prioris.ingest.embed import work_text
    from prioris.storage import work_vectors as work_vector_store

    with library.lock:
        own = work_vector_store.read(library.conn, [stored.id])[stored.id]
    text = work_text(work.title, work.abstract, None)
    assert work.abstract and text.startswith(work.title)
    # stored as float16
    np.testing.assert_allclose(own, library.embedder.embed_passages([text])[0], atol=1e-3)
    assert library.status()["stale_works"] == 0
    assert library.enrich([other.id])[0]["status"] == "no_identifier"


def test_enrich_asks_arxiv_once_for_many_works(open_library: Any, tmp_path: Path) -> None:
    providers = Providers(
        arxiv=atom(
            "2401.01234v1",
            f"{papers.GRID_TITLE} Part 1",
            ("2402.05678v2", f"{papers.GRID_TITLE} Part 2"),
        )
    )
    library = open_library(providers, enrich="off")
    ids = []
    for n, stamp in enumerate(["arXiv:2401.01234v1 [cs.SD]", "arXiv:2402.05678v2 [cs.SD]"]):
        pdf = papers.two_column_grid(stamp=stamp, title=f"{papers.GRID_TITLE} Part {n + 1}")
        ids.append(library.ingest_file(write(tmp_path, f"{n}.pdf", pdf)).id)
    reports = library.enrich()
    assert [r["status"] for r in reports] == ["enriched", "enriched"]
    assert [r["provider_id"] for r in reports] == ["arxiv:2401.01234v1", "arxiv:2402.05678v2"]
    (request,) = providers.requests  # one batched request, not one per work
    assert request.url.params["id_list"] == "2401.01234v1,2402.05678v2"


# -- the CLI over a loopback server -----------------------------------------------------------
@contextmanager
def loopback(routes: dict[str, bytes]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 answering JSON for ``routes`` (else 404)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = routes.get(self.path.split("?", 1)[0])
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_cli_enrich_json_over_loopback(
    open_library: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from prioris.interfaces.cli import main

    library = open_library(Providers(), enrich="off")  # stored first, without providers
    pdf = write(tmp_path, "reef.pdf", papers.single_column_lncs(doi="10.5555/reef.2019.7"))
    work_id = library.ingest_file(pdf).id
    library.close()
    body = json.dumps(OPENALEX_WORK).encode()
    with loopback({"/works/doi:10.5555/reef.2019.7": body}) as base:
        monkeypatch.setenv("PRIORIS_MCP_OPENALEX_BASE_URL", base)
        monkeypatch.setenv("PRIORIS_MCP_EUROPEPMC_BASE_URL", base)
        assert main(["enrich", "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["enriched"] == 1 and out["unavailable"] == 0
        assert out["works"][0]["id"] == work_id and "year" in out["works"][0]["changed"]
        assert main(["enrich", work_id]) == 0
        assert f"enriched     {work_id}  from openalex (openalex:W42)" in capsys.readouterr().out
    assert main(["enrich", work_id]) == 1  # the server is gone: unavailable, exit 1
    assert "unavailable" in capsys.readouterr().out
    assert main(["enrich", "file:0000000000000000"]) == 1
    assert "error [not_found]" in capsys.readouterr().err


def test_enrich_never_takes_another_stored_works_identifier(
    open_library: Any, tmp_path: Path
) -> None:
    """A provider reply for one work that names another stored work's id (or alias) leaves
    that identifier with its owner, says so in the report, and a deleted owner imported
    again is a work of its own, not merged into the enriched one."""
    reply = {**OPENALEX_WORK, "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/777"}}
    providers = Providers(openalex=reply)
    library = open_library(providers, enrich="off")
    lncs = papers.single_column_lncs(doi="10.5555/reef.2019.7", title="Coral Reef Recovery")
    stored = library.ingest_file(write(tmp_path, "reef.pdf", lncs))
    # another work whose own id the provider's record names (its OpenAlex id)
    library.import_records([{"_id": "openalex:W42", "title": "Other paper", "text": "other"}])
    library.import_records([{"_id": "b", "title": "Holder of a PMID", "text": "pmid holder"}])
    with library.lock:
        library.conn.execute("INSERT INTO aliases(alias, work_id) VALUES ('pmid:777', 'b')")
    (report,) = library.enrich([stored.id])
    assert report["status"] == "enriched"
    assert {(c["alias"], c["owner"]) for c in report["conflicts"]} == {
        ("openalex:W42", "openalex:W42"),
        ("pmid:777", "b"),
    }
    work = library.get_work(stored.id)
    assert "openalex:W42" not in work.aliases and "pmid:777" not in work.aliases
    assert library.resolve_work_id("pmid:777") == "b"
    library.delete(["openalex:W42"])
    again = library.import_records([{"_id": "openalex:W42", "title": "Other paper", "text": "x"}])
    assert len(again.ingested) == 1
    assert library.resolve_work_id("openalex:W42") == "openalex:W42"


def test_ingest_time_completion_never_takes_another_stored_works_identifier(
    open_library: Any, tmp_path: Path
) -> None:
    """The same guard when the record is completed at ingest (before the commit): the
    provider's reply names another stored work's id and a third one's alias; both stay
    with their owners, and the owner deleted and imported again is a work of its own."""
    reply = {**OPENALEX_WORK, "ids": {"pmid": "https://pubmed.ncbi.nlm.nih.gov/777"}}
    library = open_library(Providers(openalex=reply))  # completion on (enrich "auto")
    library.import_records([{"_id": "openalex:W42", "title": "Other paper", "text": "other"}])
    library.import_records([{"_id": "b", "title": "Holder of a PMID", "text": "pmid holder"}])
    with library.lock:
        library.conn.execute("INSERT INTO aliases(alias, work_id) VALUES ('pmid:777', 'b')")
    lncs = papers.single_column_lncs(doi="10.5555/reef.2019.7", title="Coral Reef Recovery")
    result = library.ingest_file(write(tmp_path, "reef.pdf", lncs))
    assert result.enriched == "openalex" and result.id not in ("openalex:W42", "b")
    work = library.get_work(result.id)
    assert work.year == 2019  # the provider's record was merged in
    assert "openalex:W42" not in work.aliases and "pmid:777" not in work.aliases
    assert library.resolve_work_id("pmid:777") == "b"
    assert library.resolve_work_id("openalex:W42") == "openalex:W42"
    library.delete(["openalex:W42"])
    again = library.import_records([{"_id": "openalex:W42", "title": "Other paper", "text": "x"}])
    assert len(again.ingested) == 1
    assert library.resolve_work_id("openalex:W42") == "openalex:W42"


def test_an_interrupted_enrich_is_mended_by_the_next(open_library: Any, tmp_path: Path) -> None:
    providers = Providers(openalex=OPENALEX_WORK)
    library = open_library(providers, enrich="off")
    lncs = papers.single_column_lncs(doi="10.5555/reef.2019.7", title="Coral Reef Recovery")
    stored = library.ingest_file(write(tmp_path, "reef.pdf", lncs))
    assert library.status()["stale_works"] == 0

    def stop(work_id: str, report: dict[str, Any]) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        library.enrich(on_done=stop)  # stopped right after the work was stored
    assert library.get_work(stored.id).year == 2019
    assert library.status()["stale_works"] == 0  # embedded before the stop
    with library.lock:  # as an older run would have left it: the vector gone
        library.conn.execute("DELETE FROM work_vectors")
    (report,) = library.enrich()
    assert report["status"] == "enriched" and report["changed"] == []
    assert library.status()["stale_works"] == 0  # mended by the next run


# -- what enrich reports when it changes nothing, and a failed store -------------------------
def test_an_imported_work_is_compared_by_its_stored_title(open_library: Any) -> None:
    """No printed record (imported, not parsed from a PDF): the provider's title is compared
    with the stored one, and another paper's record is a mismatch that changes nothing."""
    library = open_library(Providers(openalex=OPENALEX_WORK), enrich="off")
    doi = "doi:10.5555/reef.2019.7"
    library.import_records([{"_id": doi, "title": "Glacier melt in the Alps", "text": "ice"}])
    [report] = library.enrich()
    assert report["status"] == "mismatch" and report["changed"] == []
    assert report["provider"] == "openalex" and report["provider_id"] == "openalex:W42"
    assert report["message"] == (
        f"openalex has {OPENALEX_WORK['title']!r} for this identifier, not the printed title "
        "'Glacier melt in the Alps'; left unchanged"
    )
    assert library.get_work(doi).title == "Glacier melt in the Alps"
    assert "openalex" not in library.metadata_records(doi)


def test_a_renamed_pdf_work_is_compared_by_its_printed_title(
    open_library: Any, tmp_path: Path
) -> None:
    """The user gave a parsed PDF's work a title of their own: the provider's record is
    judged against what the PDF printed (the same paper), not against the user's title,
    so it is kept; the user's title still wins over the provider's."""
    library = open_library(Providers(openalex=OPENALEX_WORK), enrich="off")
    lncs = papers.single_column_lncs(doi="10.5555/reef.2019.7", title="Coral Reef Recovery")
    stored = library.ingest_file(write(tmp_path, "reef.pdf", lncs))
    library.edit_work(stored.id, {"title": "Glacier melt in the Alps"})
    [report] = library.enrich([stored.id])
    assert report["status"] == "enriched" and report["provider_id"] == "openalex:W42"
    work = library.get_work(stored.id)
    assert work.title == "Glacier melt in the Alps" and work.year == 2019


def test_a_work_deleted_before_its_turn_is_left_out_and_the_rest_enriched(
    open_library: Any,
) -> None:
    """A work deleted while earlier ones are enriched gets no report; the works after it
    still get theirs."""
    library = open_library(Providers(openalex=OPENALEX_WORK), enrich="off")
    ids = [f"doi:10.5555/reef.2019.{i}" for i in (7, 8, 9)]
    titles = ["Reef survey", "Kelp survey", "Glacier survey"]  # distinct: three works
    library.import_records(
        [{"_id": i, "title": t, "text": t.lower()} for i, t in zip(ids, titles, strict=True)]
    )
    assert all(library.get_work(i) for i in ids)

    def delete_the_second(work_id: str, report: dict[str, Any]) -> None:
        if work_id == ids[0]:
            library.delete([ids[1]])

    reports = library.enrich(ids, on_done=delete_the_second)
    assert [r["id"] for r in reports] == [ids[0], ids[2]], reports


def test_a_work_no_provider_knows_is_reported_with_nothing_changed(open_library: Any) -> None:
    library = open_library(Providers(), enrich="off")
    library.import_records([{"_id": "doi:10.5555/none", "title": "Unknown", "text": "words"}])
    [report] = library.enrich()
    assert report["status"] == "not_found" and report["changed"] == []
    assert report["id"] == "doi:10.5555/none"


def test_a_failed_store_rolls_back_and_the_library_stays_writable(
    open_library: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from prioris.storage import records as record_store

    library = open_library(Providers(openalex=OPENALEX_WORK), enrich="off")
    doi = "doi:10.5555/reef.2019.7"
    library.import_records([{"_id": doi, "title": OPENALEX_WORK["title"], "text": "reef"}])

    def broken(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk full")

    monkeypatch.setattr(record_store, "save_records", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        library.enrich()
    monkeypatch.undo()
    assert library.get_work(doi).year is None  # the provider's year was not kept
    library.import_records([{"_id": "later", "title": "Later", "text": "words"}])  # no open
    assert library.get_work("later") is not None  # transaction was left behind
    assert library.enrich([doi])[0]["status"] == "enriched"


def test_ingest_completion_without_a_printed_record_trusts_the_identifier() -> None:
    """A prepared work with no printed title (nothing to compare): the provider's record
    is merged, kept beside it, and the result says who enriched it."""
    import threading
    from types import SimpleNamespace

    from prioris.enrichment import EnrichmentService
    from prioris.sources.enrich import Lookup

    found = Work(id="doi:10.1/x", title="Provider title", year=2020, aliases=["doi:10.1/x"])
    lookup = SimpleNamespace(lookup=lambda aliases: Lookup("found", found, "openalex"))
    service = EnrichmentService(None, threading.Lock(), lookup, lambda: "now")  # type: ignore[arg-type]
    prepared = SimpleNamespace(
        work=Work(id="doi:10.1/x", aliases=["doi:10.1/x"]),
        records={},
        result=SimpleNamespace(enriched=None),
    )
    service.complete(prepared)
    assert prepared.work.title == "Provider title" and prepared.work.year == 2020
    assert prepared.records["openalex"]["title"] == "Provider title"
    assert prepared.result.enriched == "openalex"


def test_the_enrich_line_names_each_identifier_left_with_its_owner() -> None:
    """The text form of an enrich report says which identifiers stayed with other works."""
    from prioris.interfaces.cli.enrich_cmds import _line

    report = {
        "status": "enriched",
        "id": "file:1",
        "provider": "openalex",
        "provider_id": "openalex:W42",
        "changed": ["year"],
        "conflicts": [
            {"alias": "openalex:W42", "owner": "openalex:W42"},
            {"alias": "pmid:777", "owner": "b"},
        ],
    }
    assert _line(report) == (
        "enriched     file:1  from openalex (openalex:W42): year"
        "; openalex:W42 left with openalex:W42; pmid:777 left with b"
    )
    assert _line({**report, "conflicts": []}).endswith(": year")


def test_one_providers_error_ends_neither_that_works_lookup_nor_the_run(
    open_library: Any,
) -> None:
    """Three works: OpenAlex answers the first with a 503 and the third with a body that is
    no JSON, the second with its record. The first and third are still asked of Europe PMC
    (and completed from it), the second from OpenAlex: a server error of one provider for
    one work neither skips the next provider nor marks the provider out of reach for the
    works after it, and the run reports every work."""
    dois = ["10.5555/reef.2019.7", "10.5555/kelp.1", "10.5555/glacier.1"]
    titles = [
        "Coral reef recovery after repeated marine heatwaves",
        "Kelp forest decline",
        "Glacier melt in the Alps",
    ]

    def epmc(doi: str, title: str) -> dict[str, Any]:
        result = {**EPMC_RESULT["resultList"]["result"][0], "doi": doi, "title": title}
        return {"hitCount": 1, "resultList": {"result": [result]}}

    kelp = {**OPENALEX_WORK, "id": "https://openalex.org/W7", "doi": f"https://doi.org/{dois[1]}"}
    kelp["title"] = titles[1]
    asked: list[tuple[str, str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        url = str(request.url).lower().replace("%2f", "/")
        doi = next((d for d in dois if d in url), "")
        asked.append((request.url.host, doi))
        if request.url.host == "openalex.test":
            if doi == dois[0]:
                return httpx.Response(503)
            if doi == dois[1]:
                return httpx.Response(200, json=kelp)
            return httpx.Response(200, content=b"{not json")
        if request.url.host == "epmc.test" and doi in (dois[0], dois[2]):
            return httpx.Response(200, json=epmc(doi, titles[dois.index(doi)]))
        return httpx.Response(404)

    library = open_library(handler, enrich="off")
    ids = [f"doi:{d}" for d in dois]
    library.import_records(
        [{"_id": i, "title": t, "text": t.lower()} for i, t in zip(ids, titles, strict=True)]
    )
    reports = library.enrich(ids)
    assert [(r["id"], r["status"], r["provider"]) for r in reports] == [
        (ids[0], "enriched", "europepmc"),
        (ids[1], "enriched", "openalex"),
        (ids[2], "enriched", "europepmc"),
    ], reports
    assert ("openalex.test", dois[1]) in asked and ("openalex.test", dois[2]) in asked
    assert library.get_work(ids[0]).authors == ["Ngozi Okafor", "Kenji Tanaka"]
    assert library.get_work(ids[1]).year == 2019
