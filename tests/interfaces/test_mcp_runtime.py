"""What every MCP tool shares, exercised directly: argument aliases, error shapes, the
lazily opened library, worker threads and the server's argument checks.

The end-to-end MCP tests call the tools through a client; these pin the exact messages and
edges (an alias given as a falsy value, two unknown arguments, a tool that raises
something else) that callers rely on.
"""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from prioris.errors import InvalidRequestError, NotFoundError
from prioris.interfaces.mcp.runtime import (
    PriorisMCPServer,
    ServerState,
    blocking,
    error_result,
    error_text,
    one_of,
    prioris_tool,
    resource_error,
)
from prioris.interfaces.mcp.uris import fulltext_mime


def test_one_of_takes_either_name_and_refuses_two_different_values() -> None:
    assert one_of("cursor_mark", "a", "cursor", None) == "a"
    assert one_of("cursor_mark", None, "cursor", "b") == "b"
    assert one_of("cursor_mark", "same", "cursor", "same") == "same"
    assert one_of("limit", 0, "k", None) == 0  # a falsy value is still given
    assert one_of("limit", None, "k", 0) == 0
    with pytest.raises(InvalidRequestError) as both:
        one_of("cursor_mark", "a", "cursor", "b")
    assert both.value.message == "give cursor_mark or its alias cursor, not both"
    with pytest.raises(InvalidRequestError) as neither:
        one_of("cursor_mark", None, "cursor", None)
    assert neither.value.message == "cursor_mark is required (Prioris also accepts cursor)"


def test_errors_read_code_then_message() -> None:
    assert error_text(NotFoundError("no work x")) == "not_found: no work x"
    result = error_result("invalid_request", "bad k")
    assert result.is_error is True
    assert [c.text for c in result.content] == ["invalid_request: bad k"]
    meta = result.model_dump(by_alias=True)["_meta"]
    assert meta == {"prioris/error": {"code": "invalid_request", "message": "bad k"}}


def test_resource_errors_keep_the_code_and_not_found_is_its_own_kind() -> None:
    missing = resource_error(NotFoundError("no work x"))
    assert isinstance(missing, ResourceNotFoundError)
    assert str(missing) == "not_found: no work x"
    other = resource_error(InvalidRequestError("bad uri"))
    assert type(other) is ResourceError
    assert str(other) == "invalid_request: bad uri"


def test_a_tool_s_expected_failure_becomes_an_error_result_and_others_propagate() -> None:
    @prioris_tool
    async def refuses(x: int) -> str:
        raise InvalidRequestError(f"bad {x}")

    @prioris_tool
    async def answers(x: int) -> str:
        return f"ok {x}"

    @prioris_tool
    async def breaks() -> str:
        raise RuntimeError("a bug")

    refused = anyio.run(refuses, 3)
    assert [c.text for c in refused.content] == ["invalid_request: bad 3"]  # type: ignore[attr-defined]
    assert anyio.run(answers, 4) == "ok 4"
    assert answers.__name__ == "answers"  # wraps keeps the name the tool is listed under
    with pytest.raises(RuntimeError, match="a bug"):
        anyio.run(breaks)


def test_blocking_calls_run_in_a_worker_thread_with_their_arguments() -> None:
    def where(a: int, *, b: int) -> tuple[str, int]:
        return threading.current_thread().name, a + b

    async def main() -> tuple[str, int]:
        return await blocking(where, 1, b=2)

    name, total = anyio.run(main)
    assert total == 3
    assert name != threading.current_thread().name


class _Library:
    def __init__(self, folder: Path) -> None:
        self.settings = SimpleNamespace(db_path=folder / "prioris.db", max_file_bytes=1234)
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_the_library_is_opened_once_and_closed_with_the_uploads(tmp_path: Path) -> None:
    opened: list[_Library] = []

    def factory() -> Any:
        opened.append(_Library(tmp_path))
        return opened[-1]

    state = ServerState(factory)
    assert opened == []  # nothing opened before the first use
    assert state.library() is state.library()
    assert len(opened) == 1
    uploads = state.uploads()
    assert uploads is state.uploads()
    assert uploads.max_total_bytes == 1234
    assert uploads.directory.parent == tmp_path
    state.close()
    assert opened[0].closed == 1
    state.close()  # a second close does not close the library again
    assert opened[0].closed == 1
    assert state.library() is not opened[0]  # reopened on a later use


def _server() -> PriorisMCPServer:
    server = PriorisMCPServer("test")

    @server.tool()
    def add(a: int, b: int = 0) -> int:
        return a + b

    @server.tool()
    def total(items: list[int]) -> int:
        return sum(items)

    return server


def test_unknown_arguments_are_named_with_the_accepted_ones() -> None:
    server = _server()
    assert server.unknown_arguments("add", {"a": 1}) is None
    assert server.unknown_arguments("add", {}) is None
    assert server.unknown_arguments("add", None) is None
    assert server.unknown_arguments("nope", {"x": 1}) is None  # an unknown tool: said later
    assert server.unknown_arguments("add", {"a": 1, "c": 2}) == (
        "unknown argument 'c' for add; accepted: a, b"
    )
    assert server.unknown_arguments("add", {"z": 1, "c": 2}) == (
        "unknown arguments 'c', 'z' for add; accepted: a, b"
    )


def test_calls_with_wrong_arguments_or_tools_are_invalid_requests() -> None:
    server = _server()

    async def call(name: str, arguments: dict[str, Any]) -> Any:
        return await server.call_tool(name, arguments)

    result = anyio.run(call, "add", {"a": 1, "c": 2})
    assert result.content[0].text.startswith("invalid_request: unknown argument 'c' for add")
    wrong_type = anyio.run(call, "add", {"a": "one"})
    assert wrong_type.is_error
    assert wrong_type.content[0].text.startswith("invalid_request: a: ")
    nested = anyio.run(call, "total", {"items": [1, "two"]})  # where: the path into it
    assert nested.content[0].text.startswith("invalid_request: items.1: ")
    missing = anyio.run(call, "nope", {})
    assert missing.content[0].text == "invalid_request: unknown tool 'nope'"


def test_a_wrong_argument_is_explained_with_pydantic_s_own_words() -> None:
    """The message names the argument and says what pydantic said about it (not a
    generic "invalid")."""
    from pydantic import TypeAdapter, ValidationError

    server = _server()
    with pytest.raises(ValidationError) as expected:
        TypeAdapter(int).validate_python("one")
    said = expected.value.errors()[0]["msg"]

    async def call() -> Any:
        return await server.call_tool("add", {"a": "one"})

    result = anyio.run(call)
    assert result.content[0].text == f"invalid_request: a: {said}"
    assert said != "invalid"


def _account_context(account: Any) -> Any:
    """A tool call's context as the MCP SDK passes it over HTTP: the request's ASGI scope
    holds the account :class:`HttpGuard` found for the bearer token."""
    from prioris.interfaces.http_guard import ACCOUNT_SCOPE_KEY

    request = SimpleNamespace(scope={"type": "http", ACCOUNT_SCOPE_KEY: account})
    return SimpleNamespace(request_context=SimpleNamespace(request=request))


def test_accounts_mode_needs_an_account_whose_role_allows_the_tool() -> None:
    from prioris.interfaces.mcp.runtime import account_of

    server = _server()
    server.prioris_accounts = True
    reader = SimpleNamespace(name="ana", role="reader")
    admin = SimpleNamespace(name="bo", role="admin")
    assert account_of(_account_context(reader)) is reader
    assert account_of(SimpleNamespace(request_context=SimpleNamespace(request=None))) is None
    assert account_of(None) is None

    async def call(context: Any) -> Any:
        return await server.call_tool("total", {"items": [1, 2]}, context)

    anonymous = anyio.run(call, None)
    assert anonymous.is_error
    assert anonymous.model_dump(by_alias=True)["_meta"]["prioris/error"] == {
        "code": "unauthorized",
        "message": "this server needs an account's bearer token",
    }
    refused = anyio.run(call, _account_context(reader))  # a tool no table knows: admin
    assert refused.model_dump(by_alias=True)["_meta"]["prioris/error"]["code"] == "forbidden"
    assert refused.content[0].text == (
        "forbidden: account 'ana' (reader) may not call total: it needs the admin role"
    )
    audits: list[tuple[Any, ...]] = []
    library = SimpleNamespace(record_audit=lambda *args: audits.append(args))
    server.prioris_state = SimpleNamespace(library=lambda: library)  # type: ignore[attr-defined]
    allowed = anyio.run(call, _account_context(admin))
    assert not allowed.is_error
    assert allowed.structured_content == {"result": 3}
    assert audits == [("bo", "total", "items=[1, 2]", "mcp")]  # a change, so audited

    async def failing(context: Any) -> Any:
        return await server.call_tool("total", {"items": ["two"]}, context)

    assert anyio.run(failing, _account_context(admin)).is_error
    assert len(audits) == 1  # a call that failed changed nothing: not audited


def test_upload_sessions_given_to_the_state_are_the_ones_it_uses(tmp_path: Path) -> None:
    from prioris.ingest.uploads import UploadSessions

    given = UploadSessions(tmp_path / "uploads", max_total_bytes=10)
    state = ServerState(lambda: _Library(tmp_path), given)  # type: ignore[arg-type,return-value]
    assert state.uploads() is given
    state.close()


def test_a_reader_may_call_a_reader_tool() -> None:
    server = PriorisMCPServer("test")
    server.prioris_accounts = True

    @server.tool()
    def research_arxiv_search(query: str) -> str:
        return query.upper()

    async def call() -> Any:
        reader = SimpleNamespace(name="ana", role="reader")
        return await server.call_tool(
            "research_arxiv_search", {"query": "reefs"}, _account_context(reader)
        )

    result = anyio.run(call)
    assert not result.is_error
    assert result.structured_content == {"result": "REEFS"}


def test_a_fulltext_resource_is_read_with_the_mime_type_of_its_format() -> None:
    server = PriorisMCPServer("test")

    @server.resource("prioris://works/{work}/{format}/fulltext")
    def fulltext(work: str, format: str) -> str:
        return f"{work} as {format}"

    async def read(uri: str) -> Any:
        return await server.read_resource(uri)

    [item] = anyio.run(read, "prioris://works/w1/html/fulltext")
    assert item.content == "w1 as html"
    assert item.mime_type == fulltext_mime("prioris://works/w1/html/fulltext")
    assert item.mime_type == "text/html"
