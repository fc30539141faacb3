"""``research_resolve_identifier`` offline: the library's part of the answer (``in_library``,
``work_id``) does not need the network, so a stored work is reported even when every
provider is unreachable (each base URL points at a closed loopback port); an identifier the
library does not hold still fails with the provider's error."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from mcp import Client

from interfaces.mcp_helpers import data, error, make_library, with_client

PROVIDER_URLS = (
    "ARXIV_API_URL",
    "ARXIV_SITE_URL",
    "EUROPEPMC_BASE_URL",
    "OPENALEX_BASE_URL",
    "DOI_RESOLVER_URL",
)
STORED = [
    {"_id": "doi:10.1000/koala", "title": "Koala sleep", "text": "koalas sleep all day"},
    {"_id": "arxiv:2401.00001v2", "title": "Quokka counts", "text": "quokkas on an island"},
    {"_id": "europepmc:PMC7000001", "title": "Mangrove soils", "text": "mangroves bury carbon"},
]


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> str:
    """Every provider at a loopback port nothing listens on (connection refused)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    for name in PROVIDER_URLS:
        monkeypatch.setenv(f"PRIORIS_MCP_{name}", f"{url}/api")
    return url


@pytest.mark.parametrize(
    ("identifier", "work_id"),
    [
        ("10.1000/koala", "doi:10.1000/koala"),
        ("https://doi.org/10.1000/KOALA", "doi:10.1000/koala"),
        ("2401.00001", "arxiv:2401.00001v2"),  # an unversioned id: arXiv is asked its version
        ("PMC7000001", "europepmc:PMC7000001"),
    ],
)
def test_a_stored_work_is_in_library_when_providers_are_unreachable(
    offline: str, identifier: str, work_id: str
) -> None:
    library = make_library()
    assert library.import_records(STORED).ingested_count == 3

    async def body(client: Client) -> Any:
        return await client.call_tool("research_resolve_identifier", {"identifier": identifier})

    out = data(with_client(library, body))
    assert out["in_library"] is True and out["work_id"] == work_id
    assert out["result"] is None
    assert out["provider_error"].startswith("provider_unavailable: ")
    assert offline in out["provider_error"]


def test_an_identifier_not_stored_still_fails_with_the_provider_error(offline: str) -> None:
    library = make_library()
    library.import_records(STORED)

    async def body(client: Client) -> Any:
        return await client.call_tool(
            "research_resolve_identifier", {"identifier": "10.1000/wombat"}
        )

    assert error(with_client(library, body)).startswith("provider_unavailable:")


def test_a_reachable_provider_leaves_no_provider_error(offline: str) -> None:
    """A stored arXiv id with its version needs no request: the answer is complete."""
    library = make_library()
    library.import_records(STORED)

    async def body(client: Client) -> Any:
        return await client.call_tool(
            "research_resolve_identifier", {"identifier": "2401.00001v2", "format": "pdf"}
        )

    out = data(with_client(library, body))
    assert out["in_library"] is True and out["provider_error"] is None
    assert out["result"]["identifier"] == "2401.00001v2"
