"""Fuzz the provider parsers end to end: damaged Atom, OAI-PMH, JATS, OpenAlex and Europe
PMC answers go through the real HTTP layer (MockTransport) and the real clients.

Invariant: a result with sane types, or exactly one PriorisError with a stable code;
never another exception. Recorded answers are used when ``../shared`` is present; the
documents written below always run.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzz.mutations import check_work, mutated_bytes, mutated_json, mutated_xml, outcome
from prioris.config import load_settings
from prioris.errors import PriorisError
from prioris.sources.jats import jats_to_markdown
from prioris.sources.openalex import parse_openalex_work
from prioris.sources.remote import RemoteSources

from conftest import FAKE_PROVIDER_ENV, shared_path

ATOM = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/"
 xmlns:arxiv="http://arxiv.org/schemas/atom"><title>q</title>
<opensearch:totalResults>2</opensearch:totalResults><opensearch:startIndex>0</opensearch:startIndex>
<opensearch:itemsPerPage>2</opensearch:itemsPerPage>
<entry><id>http://arxiv.org/abs/2401.01234v2</id><updated>2024-01-03T00:00:00Z</updated>
<published>2024-01-02T00:00:00Z</published><title>Diffusion  for proteins</title>
<summary>We design proteins.</summary><author><name>Ada Lovelace</name></author>
<author><name>Alan Turing</name></author><arxiv:doi>10.5555/x</arxiv:doi>
<arxiv:journal_ref>J. Prot. 1 (2024)</arxiv:journal_ref><arxiv:comment>9 pages</arxiv:comment>
<link href="http://arxiv.org/abs/2401.01234v2" rel="alternate" type="text/html"/>
<link title="pdf" href="http://arxiv.org/pdf/2401.01234v2" rel="related" type="application/pdf"/>
<arxiv:primary_category term="q-bio.BM"/><category term="q-bio.BM"/><category term="cs.LG"/>
</entry><entry><id>http://arxiv.org/abs/hep-th/9901001v1</id><title>Old style</title>
<published>1999-01-01T00:00:00Z</published><summary>s</summary></entry></feed>"""
OAI = b"""<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">
<request verb="ListSets">x</request><ListSets><set><setSpec>cs</setSpec><setName>Computer
Science</setName></set><set><setSpec>cs:cs:AI</setSpec><setName>AI</setName></set>
<set><setSpec>physics:hep-th</setSpec><setName>HEP</setName></set></ListSets></OAI-PMH>"""
JATS = b"""<?xml version="1.0"?><!DOCTYPE article PUBLIC "-//NLM//DTD JATS//EN" "JATS.dtd">
<article><front><journal-meta><journal-title>J Bio</journal-title></journal-meta>
<article-meta><article-id pub-id-type="pmcid">PMC123</article-id>
<article-id pub-id-type="doi">10.1/ABC</article-id><article-id pub-id-type="pmid">99</article-id>
<title-group><article-title>A <italic>title</italic></article-title></title-group>
<contrib-group><contrib contrib-type="author"><name><surname>Curie</surname>
<given-names>Marie</given-names></name></contrib></contrib-group>
<pub-date><year>2012</year></pub-date><abstract><p>Abstract with
<inline-formula><tex-math>x^2</tex-math></inline-formula>.</p></abstract></article-meta></front>
<body><sec><label>1</label><title>Intro</title><p>Text <xref>1</xref>.</p>
<list><list-item><p>item</p></list-item></list><table-wrap><label>Table 1</label>
<caption><p>Cap</p></caption><table><tr><th>a</th><td>b</td></tr></table></table-wrap>
<disp-formula><mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML" alttext="y=1">
<mml:mi>y</mml:mi></mml:math></disp-formula><def-list><def-item><term>T</term><def><p>D</p>
</def></def-item></def-list><preformat>code</preformat></sec></body><back><ref-list><ref>
<element-citation><person-group><name><surname>Doe</surname><given-names>J</given-names></name>
</person-group><year>2001</year><article-title>Ref</article-title><source>Src</source>
<volume>1</volume><fpage>2</fpage><lpage>3</lpage><pub-id pub-id-type="doi">10.2/r</pub-id>
</element-citation></ref><ref><mixed-citation>Mixed ref.</mixed-citation></ref></ref-list>
</back></article>"""
OPENALEX_WORK: dict[str, Any] = {
    "id": "https://openalex.org/W42",
    "doi": "https://doi.org/10.5555/X",
    "title": "Diffusion models",
    "display_name": "Diffusion models",
    "publication_year": 2024,
    "publication_date": "2024-01-02",
    "type": "article",
    "cited_by_count": 3,
    "ids": {"openalex": "https://openalex.org/W42", "pmid": "https://pubmed.ncbi.nlm.nih.gov/1"},
    "authorships": [{"author": {"display_name": "Ada"}}, {"raw_author_name": "Bob"}],
    "primary_location": {"source": {"display_name": "J"}},
    "best_oa_location": {"pdf_url": "https://arxiv.org/pdf/2401.01234"},
    "open_access": {"is_oa": True, "oa_status": "green", "oa_url": "https://x.example"},
    "locations": [{"landing_page_url": "https://arxiv.org/abs/2401.01234", "is_oa": True}],
    "abstract_inverted_index": {"We": [0], "design": [1, 3], "proteins": [2]},
    "primary_topic": {"display_name": "Biology"},
    "concepts": [{"display_name": "Protein"}],
    "relevance_score": 1.5,
}
OPENALEX_PAGE = {"meta": {"count": 1, "page": 1, "per_page": 25}, "results": [OPENALEX_WORK]}
EPMC_PAGE: dict[str, Any] = {
    "hitCount": 2,
    "nextCursorMark": "AoE=",
    "request": {"cursorMark": "*"},
    "resultList": {
        "result": [
            {
                "id": "555",
                "source": "MED",
                "pmid": "555",
                "pmcid": "PMC777",
                "doi": "10.6666/Bio",
                "title": "Bio <i>title</i>",
                "authorString": "Curie M, Doe J.",
                "authorList": {"author": [{"fullName": "Curie M"}, {"collectiveName": "Team"}]},
                "pubYear": "2020",
                "journalInfo": {"journal": {"title": "J"}},
                "abstractText": "<h4>A</h4>bstract",
                "isOpenAccess": "Y",
                "inEPMC": "Y",
                "citedByCount": 4,
                "keywordList": {"keyword": ["k"]},
                "pubTypeList": {"pubType": ["review"]},
                "fullTextUrlList": {"fullTextUrl": [{"url": "https://x.example/a.pdf"}]},
                "firstPublicationDate": "2020-01-01",
            },
            {"id": "PPR1", "source": "PPR", "title": "Preprint", "pubType": "preprint"},
        ]
    },
}


class Canned:
    """A provider that answers every request with the current ``body``."""

    def __init__(self) -> None:
        self.body = b""

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=self.body)


@functools.cache
def sources() -> tuple[RemoteSources, Canned]:
    canned = Canned()
    remote = RemoteSources(load_settings(FAKE_PROVIDER_ENV), transport=httpx.MockTransport(canned))
    return remote, canned


def _answer(body: bytes, call: str) -> Any:
    remote, canned = sources()
    canned.body = body
    calls = {
        "arxiv_search": lambda: remote.arxiv.search("proteins"),
        "arxiv_metadata": lambda: remote.arxiv.fetch_metadata(["2401.01234"]),
        "arxiv_categories": lambda: remote.arxiv.list_categories(),
        "epmc_search": lambda: remote.europepmc.search("malaria"),
        "epmc_metadata": lambda: remote.europepmc.fetch_metadata(["PMC777"]),
        "epmc_full_text": lambda: remote.europepmc.fetch_full_text("PMC123"),
        "openalex_search": lambda: remote.openalex.search("proteins"),
        "openalex_work": lambda: remote.openalex.get_work("W42"),
    }
    result = outcome(calls[call])
    if isinstance(result, PriorisError):
        return result
    works = getattr(result, "works", None)
    if works is None and isinstance(result, list):
        works = [w for w in result if hasattr(w, "title")]
    if works is None and hasattr(result, "title") and hasattr(result, "aliases"):
        works = [result]
    for work in works or []:
        check_work(work)
    return result


# -- documents written here: always run -----------------------------------------------------
def test_the_written_seeds_parse() -> None:
    """The seeds are valid answers, so mutations start from the success path."""
    assert len(_answer(ATOM, "arxiv_search").works) == 2
    assert len(_answer(OAI, "arxiv_categories")) == 3
    assert "Intro" in (_answer(JATS, "epmc_full_text").markdown or "")
    assert _answer(json.dumps(OPENALEX_PAGE).encode(), "openalex_search").works
    assert _answer(json.dumps(OPENALEX_WORK).encode(), "openalex_work").id
    assert len(_answer(json.dumps(EPMC_PAGE).encode(), "epmc_search").works) == 2


@given(st.one_of(mutated_xml(ATOM), mutated_bytes(ATOM)))
def test_atom(body: bytes) -> None:
    _answer(body, "arxiv_search")
    _answer(body, "arxiv_metadata")


@given(st.one_of(mutated_xml(OAI), mutated_bytes(OAI)))
def test_oai_list_sets(body: bytes) -> None:
    _answer(body, "arxiv_categories")


@given(st.one_of(mutated_xml(JATS), mutated_bytes(JATS)))
def test_jats(body: bytes) -> None:
    _answer(body, "epmc_full_text")
    outcome(lambda: jats_to_markdown(body))


@given(st.one_of(mutated_json(OPENALEX_PAGE), mutated_bytes(json.dumps(OPENALEX_PAGE).encode())))
def test_openalex_search(body: bytes) -> None:
    _answer(body, "openalex_search")


@given(mutated_json(OPENALEX_WORK))
def test_openalex_work(body: bytes) -> None:
    _answer(body, "openalex_work")
    obj = json.loads(body)
    if isinstance(obj, dict):
        result = outcome(lambda: parse_openalex_work(obj))
        if not isinstance(result, PriorisError):
            check_work(result)


@given(st.one_of(mutated_json(EPMC_PAGE), mutated_bytes(json.dumps(EPMC_PAGE).encode())))
def test_europepmc_search(body: bytes) -> None:
    _answer(body, "epmc_search")
    _answer(body, "epmc_metadata")


# -- recorded answers: run when ../shared is there -------------------------------------------
def _recorded(folder: str, pattern: str) -> list[Path]:
    path = shared_path("fixtures", "api", folder)
    files = sorted(path.glob(pattern))
    if not files:
        pytest.skip(f"no {pattern} under ../shared/fixtures/api/{folder}")
    return files


def _trimmed_json(path: Path) -> Any:
    """A recorded JSON answer with long result lists cut to three (mutations stay cheap)."""
    data = json.loads(path.read_bytes())
    if isinstance(data, dict):
        for key in ("results",):
            if isinstance(data.get(key), list):
                data[key] = data[key][:3]
        result_list = data.get("resultList")
        if isinstance(result_list, dict) and isinstance(result_list.get("result"), list):
            result_list["result"] = result_list["result"][:3]
    return data


def test_recorded_atom() -> None:
    seeds = [p.read_bytes() for p in _recorded("arxiv", "*.atom.xml")]

    @given(st.sampled_from(seeds).flatmap(lambda s: st.one_of(mutated_xml(s), mutated_bytes(s))))
    def run(body: bytes) -> None:
        _answer(body, "arxiv_search")

    run()


def test_recorded_jats() -> None:
    seeds = [p.read_bytes() for p in _recorded("europepmc", "PMC*.xml")]

    @given(st.sampled_from(seeds).flatmap(lambda s: st.one_of(mutated_xml(s), mutated_bytes(s))))
    def run(body: bytes) -> None:
        _answer(body, "epmc_full_text")

    run()


def test_recorded_europepmc_json() -> None:
    seeds = [_trimmed_json(p) for p in _recorded("europepmc", "*.json")]

    @given(st.sampled_from(seeds).flatmap(mutated_json))
    def run(body: bytes) -> None:
        _answer(body, "epmc_search")

    run()


def test_recorded_openalex_json() -> None:
    seeds = [_trimmed_json(p) for p in _recorded("openalex", "*.json")]

    @given(st.sampled_from(seeds).flatmap(mutated_json))
    def run(body: bytes) -> None:
        call = "openalex_search" if b'"results"' in body[:20000] else "openalex_work"
        _answer(body, call)

    run()
