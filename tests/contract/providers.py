"""The remote providers a PriorisMCP client talks to, played by a loopback HTTP server.

One small consistent world, written here so the contract suite always runs: four new-style
arXiv papers and one old-style one (PDFs made with pymupdf, one HTML rendering), arXiv's
OAI-PMH category sets, two Europe PMC records (one whose JATS full text Europe PMC hosts,
one it does not) with cursor paging, a DOI resolver, and a query that arXiv answers with
503 and one Europe PMC answers with 429. When ``recorded`` is given, the
arXiv API and Europe PMC search answer with real recorded responses from
``../shared/fixtures/api`` instead (see ``test_recorded.py``). Every request is kept in
``requests`` so tests can check what a tool sent.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from html import escape
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pdf_factory import make_text_pdf

ARXIV = {
    "2401.00001v2": {
        "title": "Quokka population dynamics on Rottnest Island",
        "authors": [("Ada Marsupial", "University of Western Australia"), ("Ben Burrow", None)],
        "summary": "We count quokkas across seasons and model their population.",
        "categories": ["q-bio.PE", "cs.LG"],
        "published": "2024-01-02T10:00:00Z",
        "updated": "2024-02-03T10:00:00Z",
        "doi": "10.1000/quokka.2024",
        "journal_ref": "J. Marsupial Stud. 12 (2024) 1-20",
        "comment": "20 pages, 4 figures",
        "pages": [
            "Quokkas are small marsupials living on Rottnest Island. We counted quokka "
            "groups in every season and fitted a population model.",
            "The quokka population declines in dry summers; water availability explains "
            "most of the variance. Predators are absent from the island.",
        ],
        "html": "<html><head><title>Quokka population dynamics</title></head><body>"
        "<h1>Quokka population dynamics</h1><p>The HTML rendering talks about "
        "wombats burrowing under the quokka colony.</p></body></html>",
    },
    "2401.00002v1": {
        "title": "Wallaby locomotion on sand",
        "authors": [("Carl Hopper", None)],
        "summary": "Wallabies hop differently on sand than on rock.",
        "categories": ["cs.RO"],
        "published": "2024-01-05T10:00:00Z",
        "updated": "2024-01-05T10:00:00Z",
        "pages": ["Wallaby hopping on sand costs more energy than hopping on rock."],
    },
    "2401.00003v1": {
        "title": "Echidna spines and thermoregulation",
        "authors": [("Iris Quill", None)],
        "summary": "Echidna spines shed heat.",
        "categories": ["q-bio.PE"],
        "published": "2024-01-06T10:00:00Z",
        "updated": "2024-01-06T10:00:00Z",
        "pages": ["Echidna spines shed heat on warm days; echidnas burrow when it is hot."],
    },
    "2401.00004v1": {
        "title": "Numbat termite diet",
        "authors": [("Jo Termite", None)],
        "summary": "Numbats eat termites.",
        "categories": ["q-bio.PE"],
        "published": "2024-01-07T10:00:00Z",
        "updated": "2024-01-07T10:00:00Z",
        "pages": ["A numbat eats up to twenty thousand termites a day."],
    },
    "hep-th/9901001v1": {
        "title": "Dualities of open strings",
        "authors": [("Dana Brane", "Institute for Strings")],
        "summary": "Open string dualities revisited.",
        "categories": ["hep-th"],
        "published": "1999-01-04T10:00:00Z",
        "updated": "1999-01-04T10:00:00Z",
        "pages": ["Open strings end on branes; T-duality exchanges Neumann and Dirichlet."],
    },
}

OAI_SETS = [
    ("cs", "Computer Science"),
    ("cs:cs:AI", "Artificial Intelligence"),
    ("cs:cs:LG", "Machine Learning"),
    ("physics", "Physics"),
    ("physics:astro-ph", "Astrophysics"),
    ("physics:astro-ph:CO", "Cosmology and Nongalactic Astrophysics"),
    ("physics:hep-th", "High Energy Physics - Theory"),
    ("q-bio", "Quantitative Biology"),
    ("q-bio:q-bio:PE", "Populations and Evolution"),
]

EPMC_HOSTED = {
    "source": "MED",
    "id": "30000001",
    "pmid": "30000001",
    "pmcid": "PMC7000001",
    "doi": "10.1000/koala.2020",
    "title": "Koala retrovirus in wild populations",
    "authorString": "Eve Eucalypt, Finn Fur.",
    "authorList": {
        "author": [
            {"fullName": "Eucalypt E", "firstName": "Eve", "lastName": "Eucalypt", "initials": "E"},
            {"fullName": "Fur F", "firstName": "Finn", "lastName": "Fur", "initials": "F"},
        ]
    },
    "abstractText": "Koala retrovirus spreads through wild koala populations.",
    "journalInfo": {"journal": {"title": "Wildlife Virology"}, "volume": "7"},
    "pubYear": "2020",
    "isOpenAccess": "Y",
    "inEPMC": "Y",
    "license": "cc by",
}
EPMC_NOT_HOSTED = {
    "source": "MED",
    "id": "30000002",
    "pmid": "30000002",
    "title": "Platypus electroreception",
    "authorString": "Gus Bill.",
    "authorList": {"author": [{"fullName": "Bill G", "lastName": "Bill", "initials": "G"}]},
    "abstractText": "Platypuses sense electric fields with their bills.",
    "pubYear": "2019",
    "isOpenAccess": "N",
    "inEPMC": "N",
}
EPMC_RECORDS = [EPMC_HOSTED, EPMC_NOT_HOSTED]
NEXT_CURSOR = "AoIIP4ZawSg1MzEyODI1MA=="
JATS = b"""<?xml version="1.0" encoding="UTF-8"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink"><front><article-meta>
<title-group><article-title>Koala retrovirus in wild populations</article-title></title-group>
<abstract><p>Koala retrovirus spreads through wild koala populations.</p></abstract>
</article-meta></front><body>
<sec><title>Results</title><p>Retroviral load was highest in northern koala colonies,
where eucalyptus forests are fragmented.</p></sec>
</body></article>"""
DOIS = {
    "10.1000/koala.2020": "https://europepmc.org/article/PMC/PMC7000001",
    "10.1000/elsewhere": "https://publisher.example/article/1",
}


def atom_entry(arxiv_id: str, paper: dict[str, Any], site: str) -> str:
    authors = "".join(
        f"<author><name>{escape(name)}</name>"
        + (f"<arxiv:affiliation>{escape(aff)}</arxiv:affiliation>" if aff else "")
        + "</author>"
        for name, aff in paper["authors"]
    )
    optional = "".join(
        f"<arxiv:{tag}>{escape(paper[tag])}</arxiv:{tag}>"
        for tag in ("doi", "journal_ref", "comment")
        if paper.get(tag)
    )
    categories = "".join(f'<category term="{c}"/>' for c in paper["categories"])
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id}</id>"
        f"<title>{escape(paper['title'])}</title><summary>{escape(paper['summary'])}</summary>"
        f"<published>{paper['published']}</published><updated>{paper['updated']}</updated>"
        f'<link href="{site}/abs/{arxiv_id}" rel="alternate" type="text/html"/>'
        f'<link href="{site}/pdf/{arxiv_id}" rel="related" type="application/pdf" title="pdf"/>'
        f'{categories}<arxiv:primary_category term="{paper["categories"][0]}"/>'
        f"{optional}{authors}</entry>"
    )


def atom_feed(entries: list[str], total: int, start: int = 0) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<title>arXiv Query</title><opensearch:totalResults>{total}</opensearch:totalResults>"
        f"<opensearch:startIndex>{start}</opensearch:startIndex>"
        f"<opensearch:itemsPerPage>{len(entries)}</opensearch:itemsPerPage>"
        + "".join(entries)
        + "</feed>"
    ).encode()


def _bare(arxiv_id: str) -> str:
    head, _, version = arxiv_id.rpartition("v")
    return head if version.isdigit() and head else arxiv_id


class ProviderWorld:
    """The loopback server and what it serves; ``base`` is its ``http://127.0.0.1:PORT``."""

    def __init__(self, pdf_dir: Path, recorded: Path | None = None) -> None:
        self.recorded = recorded
        self.requests: list[str] = []
        self.pdfs = {
            arxiv_id: make_text_pdf(
                pdf_dir / f"{arxiv_id.replace('/', '_')}.pdf", paper["title"], paper["pages"]
            ).read_bytes()
            for arxiv_id, paper in ARXIV.items()
        }
        world = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                world.requests.append(self.path)
                status, body, headers = world.answer(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def env(self) -> dict[str, str]:
        """The settings that point ``prioris serve`` at this world."""
        return {
            "PRIORIS_MCP_ARXIV_API_URL": f"{self.base}/arxiv/api/query",
            "PRIORIS_MCP_ARXIV_SITE_URL": f"{self.base}/arxiv",
            "PRIORIS_MCP_ARXIV_OAI_URL": f"{self.base}/oai",
            "PRIORIS_MCP_EUROPEPMC_BASE_URL": f"{self.base}/epmc/rest",
            "PRIORIS_MCP_DOI_RESOLVER_URL": f"{self.base}/doi",
            "PRIORIS_MCP_OPENALEX_BASE_URL": f"{self.base}/openalex",
            "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS": "0",  # a 429 is final at once
            **{
                f"PRIORIS_MCP_{p}_MIN_INTERVAL_SECONDS": "0"
                for p in ("ARXIV", "EUROPEPMC", "OPENALEX", "DISCOVERY")
            },
        }

    def sent(self, prefix: str) -> list[dict[str, list[str]]]:
        """Query parameters of every request whose path starts with ``prefix``."""
        return [parse_qs(urlsplit(p).query) for p in self.requests if p.startswith(prefix)]

    # -- routing -----------------------------------------------------------------------
    def answer(self, path: str) -> tuple[int, bytes, dict[str, str]]:
        parts = urlsplit(path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        routes: list[tuple[str, Callable[[str, dict[str, str]], Any]]] = [
            ("/arxiv/api/query", self._arxiv_api),
            ("/arxiv/pdf/", self._arxiv_pdf),
            ("/arxiv/html/", self._arxiv_html),
            ("/oai", self._oai),
            ("/epmc/rest/search", self._epmc_search),
            ("/epmc/rest/", self._epmc_full_text),
            ("/doi/", self._doi),
        ]
        for prefix, route in routes:
            if parts.path.startswith(prefix):
                return route(unquote(parts.path[len(prefix) :]), query)
        return 404, b"not here", {"Content-Type": "text/plain"}

    def _recorded(self, *parts: str) -> bytes | None:
        if self.recorded is None:
            return None
        return self.recorded.joinpath(*parts).read_bytes()

    def _arxiv_api(self, _: str, query: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        atom = {"Content-Type": "application/atom+xml"}
        site = f"{self.base}/arxiv"
        if "providerdown" in query.get("search_query", ""):
            return 503, b"arXiv is down", {"Content-Type": "text/plain"}
        if "id_list" in query:
            asked = query["id_list"].split(",")
            if self.recorded is not None:
                name = {
                    "0808.05394,1707.08567": "id_0808.05394_1707.08567_s0_m100_42e5aa0ec3af",
                    "1605.08386": "id_1605.08386_s0_m100_199195aa31ad",
                }.get(query["id_list"], "id_0000.0000_s0_m100_8b51d9633a68")
                return 200, self._recorded("arxiv", f"{name}.atom.xml") or b"", atom
            found = [
                atom_entry(arxiv_id, paper, site)
                for wanted in asked
                for arxiv_id, paper in ARXIV.items()
                if wanted in (arxiv_id, _bare(arxiv_id))
            ]
            return 200, atom_feed(found, len(found)), atom
        if self.recorded is not None:
            start = query.get("start", "0")
            name = (
                "q_testing_s10_m10_34e56e15aaac"
                if start == "10"
                else "q_testing_s0_m10_bc5a6c384fe9"
            )
            return 200, self._recorded("arxiv", f"{name}.atom.xml") or b"", atom
        start = int(query.get("start", "0"))
        entries = [atom_entry(i, p, site) for i, p in ARXIV.items()]
        entries = entries[: int(query.get("max_results", "10"))]
        return 200, atom_feed(entries, 42, start), atom

    def _arxiv_pdf(self, arxiv_id: str, _: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        if arxiv_id in self.pdfs:
            return 200, self.pdfs[arxiv_id], {"Content-Type": "application/pdf"}
        return 404, b"no such paper", {"Content-Type": "text/plain"}

    def _arxiv_html(self, arxiv_id: str, _: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        html = ARXIV.get(arxiv_id, {}).get("html")
        if html:
            return 200, html.encode(), {"Content-Type": "text/html; charset=utf-8"}
        return 404, b"no html rendering", {"Content-Type": "text/plain"}

    def _oai(self, _: str, query: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        sets = "".join(
            f"<set><setSpec>{spec}</setSpec><setName>{escape(name)}</setName></set>"
            for spec, name in OAI_SETS
        )
        body = (
            '<?xml version="1.0" encoding="UTF-8"?>'
            '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">'
            f"<ListSets>{sets}</ListSets></OAI-PMH>"
        )
        return 200, body.encode(), {"Content-Type": "text/xml"}

    def _epmc_search(self, _: str, query: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        text, cursor = query.get("query", ""), query.get("cursorMark", "*")
        if text == "ratelimited":
            return 429, b"slow down", {"Content-Type": "text/plain"}
        if "EXT_ID:" in text or "PMCID:" in text:  # a metadata batch
            found = [
                r
                for r in EPMC_RECORDS
                if f"PMCID:{r.get('pmcid')}" in text or f"EXT_ID:{r['id']} " in text
            ]
            payload: dict[str, Any] = {"hitCount": len(found), "resultList": {"result": found}}
        elif self.recorded is not None:
            return (
                200,
                self._recorded("europepmc", "pyeuropepmc_search_cancer_core.json") or b"",
                {"Content-Type": "application/json"},
            )
        elif cursor == "*":
            payload = {
                "hitCount": 2,
                "nextCursorMark": NEXT_CURSOR,
                "request": {"cursorMark": "*"},
                "resultList": {"result": [EPMC_HOSTED]},
            }
        else:  # the last page: Europe PMC hands the same cursor back
            payload = {
                "hitCount": 2,
                "nextCursorMark": cursor,
                "request": {"cursorMark": cursor},
                "resultList": {"result": [EPMC_NOT_HOSTED] if cursor == NEXT_CURSOR else []},
            }
        return 200, json.dumps(payload).encode(), {"Content-Type": "application/json"}

    def _epmc_full_text(self, rest: str, _: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        if rest == "PMC7000001/fullTextXML":
            return 200, JATS, {"Content-Type": "application/xml"}
        return 404, b"", {"Content-Type": "text/plain"}

    def _doi(self, doi: str, _: dict[str, str]) -> tuple[int, bytes, dict[str, str]]:
        target = DOIS.get(doi)
        if target is None:
            return 404, b"DOI not found", {"Content-Type": "text/plain"}
        return 302, b"", {"Location": target}
