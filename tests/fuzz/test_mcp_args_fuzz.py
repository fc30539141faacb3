"""Fuzzing the MCP tools' arguments: whatever a client sends, a result or one coded error.

Every tool is called in-process (``PriorisMCPServer.call_tool``: the same argument checks
and error mapping as over stdio, without the transport) with argument dicts drawn from its
published input schema: known names with well-typed, ill-typed, empty, huge or hostile
values, PriorisMCP-style identifiers, and names the tool does not have. The invariant:
the call returns a result, or a tool error whose text starts with one PriorisError code
(carried in ``_meta`` too); never an unhandled exception. The library stays intact
(``PRAGMA integrity_check``).

Short by default (CI); ``PRIORIS_FUZZ_PROFILE=long`` runs many more examples.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ERROR_CODES
from prioris.interfaces.mcp_server import build_server
from prioris.library import Library

from conftest import FAKE_PROVIDER_ENV, FakeOcr

settings.register_profile(
    "mcp-args-ci",
    max_examples=25,
    deadline=None,
    derandomize=True,  # the same inputs on every CI run; the long profile explores
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "mcp-args-long",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
PROFILE = f"mcp-args-{os.environ.get('PRIORIS_FUZZ_PROFILE', 'ci')}"

EMPTY_FEED = (
    '<feed xmlns="http://www.w3.org/2005/Atom" '
    'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
    "<opensearch:totalResults>0</opensearch:totalResults></feed>"
)
IDS = [
    "2401.00001",
    "2401.00001v2",
    "hep-th/9901001",
    "PMC:7000001",
    "PMC7000001",
    "MED:30000001",
    "10.1000/x",
    "W123",
    "file:0123456789abcdef",
    "",
    " ",
    "../../etc/passwd",
    "x" * 600,
    "\x00",
    '"unbalanced',
    "quokk*",
    "a NOT b",
    "NEAR(",
]
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=40),
    st.sampled_from(IDS),
)
ANY_JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=8,
)


def _providers(request: httpx.Request) -> httpx.Response:
    """Plausible, empty provider answers: nothing is ever found remotely."""
    host = request.url.host
    if host == "api.arxiv.test":
        return httpx.Response(200, text=EMPTY_FEED)
    if host == "epmc.test":
        return httpx.Response(200, json={"hitCount": 0, "resultList": {"result": []}})
    return httpx.Response(404, text="not here")


def _value_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values shaped by a property's schema (often valid), mixed with anything at all."""
    options: list[st.SearchStrategy[Any]] = [ANY_JSON]
    variants = schema.get("anyOf", [schema])
    for variant in variants:
        kind = variant.get("type")
        if "enum" in variant:
            options.append(st.sampled_from(variant["enum"]))
        elif kind == "integer":
            options.append(st.integers(min_value=-5, max_value=3000))
        elif kind == "string":
            options.append(st.one_of(st.sampled_from(IDS), st.text(max_size=60)))
        elif kind == "array":
            items = variant.get("items", {})
            if "$ref" in items or items.get("type") == "object":
                entry = st.fixed_dictionaries(
                    {
                        "provider": st.sampled_from(["arxiv", "europepmc", "localfile", "x"]),
                        "identifier": st.sampled_from(IDS),
                        "format": st.sampled_from(["pdf", "html", "xml", "metadata", ""]),
                        "artefact": st.sampled_from(["document", "markdown", "all", "pages"]),
                    }
                )
                options.append(st.lists(entry, max_size=3))
            else:
                options.append(st.lists(st.sampled_from(IDS), max_size=4))
        elif kind == "boolean":
            options.append(st.booleans())
    return st.one_of(options)


def _arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties = schema.get("properties", {})
    known = st.fixed_dictionaries(
        {}, optional={name: _value_for(prop) for name, prop in properties.items()}
    )
    unknown = st.dictionaries(st.text(min_size=1, max_size=12), ANY_JSON, max_size=2)
    return st.one_of(known, st.builds(lambda a, b: {**b, **a}, known, unknown))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for name, value in FAKE_PROVIDER_ENV.items():
        monkeypatch.setenv(name, value)
    library = Library(
        load_settings(),
        embedder=FakeEmbedder(),
        ocr=FakeOcr(),
        http_transport=httpx.MockTransport(_providers),
    )
    mcp = build_server(lambda: library)
    yield mcp
    mcp.prioris_state.close()  # type: ignore[attr-defined]


def _tools(mcp: Any) -> dict[str, dict[str, Any]]:
    listed = anyio.run(mcp.list_tools)
    return {tool.name: tool.input_schema for tool in listed}


TOOL_NAMES = sorted(_tools(build_server(lambda: None)))  # listing never opens the library


@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_any_arguments_give_a_result_or_one_coded_error(server: Any, tool: str) -> None:
    schema = _tools(server)[tool]

    @settings(settings.get_profile(PROFILE))
    @given(arguments=_arguments(schema))
    def check(arguments: dict[str, Any]) -> None:
        result = anyio.run(server.call_tool, tool, arguments)
        if not result.is_error:
            assert result.structured_content is not None
            return
        text = result.content[0].text
        code = text.split(":", 1)[0]
        assert code in ERROR_CODES, text
        assert "Traceback" not in text
        assert (result.meta or {}).get("prioris/error", {}).get("code") == code

    check()
    library = server.prioris_state.library()
    with library.lock:
        assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
