"""PriorisMCP 0.1.1's ``research_resolve_identifier``.

Contract: the answer is wrapped under ``result``: ``{provider, identifier, resolved_url,
format}`` plus ``full_text_available`` for Europe PMC; arXiv ids resolve to their latest
version, Europe PMC ids to ``PMC:{n}``; a DOI is resolved through doi.org and must land on
arXiv or Europe PMC (else ``unsupported_provider``); a format arXiv does not offer is
``invalid_request``.
"""

from __future__ import annotations

from contract.conftest import Mcp


def test_arxiv_ids_resolve_to_the_versioned_full_text_url(mcp: Mcp) -> None:
    pdf = mcp.call("research_resolve_identifier", {"identifier": "2401.00001", "format": "pdf"})
    assert pdf["result"]["provider"] == "arxiv"
    assert pdf["result"]["identifier"] == "2401.00001v2"
    assert pdf["result"]["resolved_url"].endswith("/pdf/2401.00001v2")
    assert pdf["result"]["format"] == "pdf"
    html = mcp.call("research_resolve_identifier", {"identifier": "2401.00001v2", "format": "html"})
    assert html["result"]["resolved_url"].endswith("/html/2401.00001v2")
    assert html["result"]["format"] == "html"


def test_europepmc_ids_resolve_with_full_text_availability(mcp: Mcp) -> None:
    out = mcp.call("research_resolve_identifier", {"identifier": "PMC7000001", "format": "xml"})
    assert out["result"] == {
        "provider": "europepmc",
        "identifier": "PMC:7000001",
        "resolved_url": out["result"]["resolved_url"],
        "format": "xml",
        "full_text_available": True,
    }
    assert out["result"]["resolved_url"].endswith("/PMC7000001/fullTextXML")
    mcp.fails(  # no PMCID: no full text
        "research_resolve_identifier",
        {"identifier": "MED:30000002", "format": "xml"},
        "format_unavailable",
    )


def test_dois_resolve_only_to_allowed_providers(mcp: Mcp) -> None:
    out = mcp.call(
        "research_resolve_identifier", {"identifier": "10.1000/koala.2020", "format": "xml"}
    )
    assert out["result"]["provider"] == "europepmc"
    assert out["result"]["identifier"] == "PMC:7000001"
    mcp.fails(
        "research_resolve_identifier",
        {"identifier": "10.1000/elsewhere", "format": "pdf"},
        "unsupported_provider",
    )


def test_bad_format_and_unknown_schemes(mcp: Mcp) -> None:
    mcp.fails(
        "research_resolve_identifier",
        {"identifier": "2401.00001v2", "format": "epub"},
        "invalid_request",
    )
    mcp.fails(
        "research_resolve_identifier",
        {"identifier": "not an identifier", "format": "pdf"},
        "unsupported_provider",
    )
