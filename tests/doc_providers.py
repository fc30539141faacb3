"""Loopback stand-ins for arXiv, Europe PMC and OpenAlex, for running the docs' examples.

One HTTP server on 127.0.0.1 answers the requests the README's remote examples make, with
small responses shaped like the real ones (the parsers are tested against recorded real
responses elsewhere). ``env()`` gives the ``PRIORIS_MCP_*`` URLs pointing at it.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pymupdf

from route_server import RouteServer

ARXIV_ID = "2401.01234v2"
PMCID = "PMC3339582"
OPENALEX_ID = "W2741809807"

ATOM = f"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
 xmlns:arxiv="http://arxiv.org/schemas/atom">
<opensearch:totalResults>1</opensearch:totalResults>
<opensearch:startIndex>0</opensearch:startIndex>
<opensearch:itemsPerPage>1</opensearch:itemsPerPage>
<entry><id>http://arxiv.org/abs/{ARXIV_ID}</id>
<title>Diffusion models for protein design</title>
<published>2024-01-02T00:00:00Z</published><updated>2024-02-01T00:00:00Z</updated>
<summary>Denoising diffusion generates protein backbones that fold.</summary>
<author><name>Ada Lovelace</name></author><author><name>Alan Turing</name></author>
<link href="http://arxiv.org/abs/{ARXIV_ID}" rel="alternate" type="text/html"/>
<link title="pdf" href="http://arxiv.org/pdf/{ARXIV_ID}" rel="related" type="application/pdf"/>
<arxiv:primary_category term="cs.LG"/><category term="cs.LG"/>
</entry></feed>""".encode()

EPMC_RECORD = {
    "id": PMCID,
    "source": "PMC",
    "pmcid": PMCID,
    "pmid": "22558000",
    "doi": "10.1371/journal.pone.0035000",
    "title": "A malaria vaccine trial in children",
    "authorString": "Okafor J, Lima A.",
    "pubYear": "2012",
    "journalInfo": {"journal": {"title": "PLoS One"}},
    "abstractText": "A randomised trial of a malaria vaccine in young children.",
    "isOpenAccess": "Y",
    "inEPMC": "Y",
    "inPMC": "Y",
    "pubTypeList": {"pubType": ["research-article"]},
}
EPMC_SEARCH = {
    "hitCount": 1,
    "request": {"cursorMark": "*"},
    "nextCursorMark": "*",
    "resultList": {"result": [EPMC_RECORD]},
}
JATS = b"""<?xml version="1.0" encoding="UTF-8"?>
<article><front><article-meta><title-group>
<article-title>A malaria vaccine trial in children</article-title></title-group>
<abstract><p>A randomised trial of a malaria vaccine in young children.</p></abstract>
</article-meta></front><body><sec><title>Results</title>
<p>The vaccine halved clinical malaria episodes over two seasons.</p></sec></body></article>"""

OPENALEX_WORK = {
    "id": f"https://openalex.org/{OPENALEX_ID}",
    "doi": "https://doi.org/10.5555/crispr.screens",
    "title": "Genome-wide CRISPR screens in T cells",
    "display_name": "Genome-wide CRISPR screens in T cells",
    "publication_year": 2021,
    "type": "article",
    "cited_by_count": 321,
    "ids": {"openalex": f"https://openalex.org/{OPENALEX_ID}"},
    "authorships": [{"author": {"display_name": "Wei Zhang"}}],
    "open_access": {"is_oa": True, "oa_status": "gold"},
    "locations": [],
    "abstract_inverted_index": {"CRISPR": [0], "screens": [1], "find": [2], "regulators.": [3]},
    "relevance_score": 0.87,
}
OPENALEX_PAGE = {
    "meta": {"count": 1, "page": 1, "per_page": 25},
    "results": [OPENALEX_WORK],
}


def arxiv_pdf() -> bytes:
    """Three pages, so ``show ... --page 3`` has a page 3."""
    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(
            pymupdf.Rect(72, 72, 523, 770),
            f"Page {number}. Denoising diffusion generates protein backbones. " * 12,
            fontsize=11,
        )
    data = doc.tobytes()
    doc.close()
    return data


class Providers(RouteServer):
    """The server; ``paths`` records every request for the test to inspect."""

    def __init__(self) -> None:
        pdf = arxiv_pdf()
        routes = {
            "/arxiv/api": ("application/atom+xml", ATOM),
            f"/arxiv/site/pdf/{ARXIV_ID}": ("application/pdf", pdf),
            "/epmc/search": ("application/json", json.dumps(EPMC_SEARCH).encode()),
            f"/epmc/{PMCID}/fullTextXML": ("application/xml", JATS),
            f"/openalex/works/{OPENALEX_ID}": (
                "application/json",
                json.dumps(OPENALEX_WORK).encode(),
            ),
            "/openalex/works": ("application/json", json.dumps(OPENALEX_PAGE).encode()),
        }
        super().__init__(routes)

    def env(self) -> dict[str, str]:
        return {
            "PRIORIS_MCP_ARXIV_API_URL": f"{self.base}/arxiv/api",
            "PRIORIS_MCP_ARXIV_SITE_URL": f"{self.base}/arxiv/site",
            "PRIORIS_MCP_EUROPEPMC_BASE_URL": f"{self.base}/epmc",
            "PRIORIS_MCP_OPENALEX_BASE_URL": f"{self.base}/openalex",
            "PRIORIS_MCP_DOI_RESOLVER_URL": f"{self.base}/doi",
            "PRIORIS_MCP_OPENALEX_API_KEY": "test-key",
        }

    def queries(self, prefix: str) -> list[dict[str, list[str]]]:
        """The query strings of the requests made to paths starting with ``prefix``."""
        return [parse_qs(urlsplit(p).query) for p in self.paths if p.startswith(prefix)]
