"""A small world for the alerts that run: a library with a software-testing collection and
an oncology one, and loopback providers answering with recorded replies (arXiv's search
for "testing", Europe PMC's search for "cancer", from ../shared/fixtures/api) plus an RSS
2.0 feed written here from the format's documented elements (RSS 2.0 specification:
channel title/link/description, item title/link/description/pubDate/guid), a feed that
answers 500 and one that is not XML. The arXiv route also answers a fetch by id (the entry
of the recorded page) and serves a PDF, so accepting a candidate runs the real fetch."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from conftest import shared_path
from pdf_factory import make_text_pdf
from route_server import Answer, RouteServer

RECORDS = [
    {
        "_id": "t-mutation",
        "title": "Mutation testing of software test suites",
        "year": 2019,
        "text": "Mutation testing seeds faults to measure how well a test suite finds them; "
        "automated test generation and fuzzing of software systems.",
        "collections": ["Software testing"],
    },
    {
        "_id": "t-fuzz",
        "title": "Active Fuzzing for Testing and Securing Cyber-Physical Systems",
        "year": 2020,
        "text": "Fuzzing and testing of cyber-physical systems with learned models.",
        "collections": ["Software testing"],
    },
    {
        "_id": "t-deep",
        "title": "Testing deep learning models and neural network software",
        "year": 2021,
        "text": "Test generation and testing techniques for deep learning software.",
        "collections": ["Software testing"],
    },
    {
        "_id": "o-tumour",
        "title": "Hepatocellular carcinoma treatment outcomes",
        "year": 2022,
        "text": "Patients with liver cancer treated with immunotherapy; tumour response.",
        "collections": ["Oncology"],
    },
    {
        "_id": "o-survey",
        "title": "Active surveillance of prostate cancer",
        "year": 2023,
        "text": "Men with localized prostate cancer under active surveillance.",
        "collections": ["Oncology"],
    },
]

RSS_ITEMS = [
    (
        "Metamorphic testing of autonomous driving software",
        "https://feeds.test/items/1",
        "Metamorphic relations find faults in driving software without an oracle.",
        "Mon, 02 Mar 2026 10:00:00 GMT",
        "info:doi/10.1101/2026.03.02.000001",
    ),
    (
        "Tumour organoids predict chemotherapy response",
        "https://feeds.test/items/2",
        "Patient-derived organoids of colorectal cancer respond to chemotherapy.",
        "Sun, 01 Mar 2026 08:00:00 GMT",
        "info:doi/10.1101/2026.03.01.000002",
    ),
]


def rss(items: list[tuple[str, str, str, str, str]]) -> bytes:
    """An RSS 2.0 document of ``(title, link, description, pubDate, guid)`` items."""
    body = "".join(
        f"<item><title>{t}</title><link>{link}</link><description>{d}</description>"
        f'<pubDate>{when}</pubDate><guid isPermaLink="false">{guid}</guid></item>'
        for t, link, d, when, guid in items
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        "<title>Preprints</title><link>https://feeds.test/</link>"
        f"<description>New preprints</description>{body}</channel></rss>"
    ).encode()


EMPTY_ATOM = (
    b'<feed xmlns="http://www.w3.org/2005/Atom" '
    b'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
    b"<opensearch:totalResults>0</opensearch:totalResults></feed>"
)


def query_of(path: str) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlsplit(path).query).items()}


class World:
    """The loopback providers and what they were asked."""

    def __init__(self, server: RouteServer, folder: Path) -> None:
        self.server = server
        self.folder = folder

    @property
    def base(self) -> str:
        return self.server.base

    def env(self) -> dict[str, str]:
        """The settings that point a library at these providers."""
        return {
            "PRIORIS_MCP_ARXIV_API_URL": f"{self.base}/api/query",
            "PRIORIS_MCP_ARXIV_SITE_URL": self.base,
            "PRIORIS_MCP_EUROPEPMC_BASE_URL": f"{self.base}/rest",
            "PRIORIS_MCP_RATE_LIMIT_BACKOFF_BUDGET_SECONDS": "0",
            "PRIORIS_MCP_OCR": "never",
            "PRIORIS_MCP_ENRICH": "off",
        }

    def asked(self, prefix: str) -> list[dict[str, str]]:
        """The query strings of the requests whose path starts with ``prefix``."""
        return [query_of(p) for p in self.server.paths if urlsplit(p).path.startswith(prefix)]


@contextmanager
def providers(tmp_path: Path) -> Iterator[World]:
    """The loopback providers (skips without ../shared's recorded replies)."""
    arxiv = shared_path("fixtures", "api", "arxiv")
    epmc = shared_path("fixtures", "api", "europepmc")
    pages = {
        "0": (arxiv / "q_testing_s0_m10_bc5a6c384fe9.atom.xml").read_bytes(),
        "10": (arxiv / "q_testing_s10_m10_34e56e15aaac.atom.xml").read_bytes(),
    }
    core = (epmc / "pyeuropepmc_search_cancer_core.json").read_bytes()
    last = (epmc / "pyeuropepmc_search_no_results.json").read_bytes()
    text = "Testing deep learning models compares test input generators. " * 20
    pdf = make_text_pdf(tmp_path / "deep.pdf", "Testing Deep Learning Models", [text]).read_bytes()

    def arxiv_api(path: str) -> Answer:
        query = query_of(path)
        atom = {"Content-Type": "application/atom+xml"}
        if query.get("id_list"):  # a fetch by id: the recorded entry of that id
            wanted = query["id_list"].split(",")[0]
            page = pages["0"].decode()
            head = page[: page.index("<entry>")]
            for entry in re.findall(r"<entry>.*?</entry>", page, re.S):
                if f"/abs/{wanted}" in entry:
                    return 200, atom, (head + entry + "</feed>").encode()
            return 200, atom, EMPTY_ATOM
        return 200, atom, pages.get(query.get("start", ""), EMPTY_ATOM)

    def epmc_search(path: str) -> Answer:
        body = core if query_of(path).get("cursorMark") == "*" else last
        return 200, {"Content-Type": "application/json"}, body

    def fixed(status: int, kind: str, body: bytes) -> Callable[[str], Answer]:
        return lambda _path: (status, {"Content-Type": kind}, body)

    routes: dict[str, Any] = {
        "/api/query": arxiv_api,
        "/rest/search": epmc_search,
        "/pdf/2202.12139v1": ("application/pdf", pdf),
        "/feed.xml": ("application/rss+xml", rss(RSS_ITEMS)),
        "/broken.xml": fixed(500, "text/plain", b"internal error"),
        "/garbled.xml": fixed(200, "application/rss+xml", b"<rss><channel><item><title>x"),
    }
    with RouteServer(routes) as server:
        yield World(server, arxiv)


class Clock:
    """The library's ``now``: a moment a test sets."""

    def __init__(self, moment: str) -> None:
        self.moment = moment

    def __call__(self) -> str:
        return self.moment
