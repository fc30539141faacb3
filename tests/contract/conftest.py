"""One ``prioris serve`` process over stdio for the whole contract suite, driven by the
official MCP client the way a PriorisMCP 0.1.1 client drives PriorisMCP.

The server runs with the real components (default embedder, SQLite, PDF parsing) and a
private data folder; its providers are the loopback world of :mod:`contract.providers`.
The client session lives in a background event loop (an anyio blocking portal), so each
test calls tools synchronously through :class:`Mcp`; one process serves every test, and
tests therefore make the state they rely on themselves (fetching is idempotent).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult

from contract.providers import ProviderWorld

# PriorisMCP's error categories (its ToolError text carries the name)
CATEGORIES = (
    "not_found",
    "format_unavailable",
    "unsupported_provider",
    "invalid_request",
    "file_too_large",
    "rate_limited",
    "provider_unavailable",
)
CALL_TIMEOUT = 120


class ToolFailed(AssertionError):
    """A call the test expected to succeed returned a tool error."""


class Mcp:
    """Synchronous calls into one MCP client session."""

    def __init__(self, portal: BlockingPortal, client: Client, world: ProviderWorld) -> None:
        self.portal = portal
        self.client = client
        self.world = world

    def _run(self, fn: Any, *args: Any) -> Any:
        async def bounded() -> Any:
            with anyio.fail_after(CALL_TIMEOUT):
                return await fn(*args)

        return self.portal.call(bounded)

    def raw(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        return self._run(self.client.call_tool, tool, arguments)

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The structured result of a call that must succeed."""
        result = self.raw(tool, arguments)
        if result.is_error:
            raise ToolFailed(f"{tool}{arguments}: {result.content[0].text}")
        assert isinstance(result.structured_content, dict), result
        return result.structured_content

    def fails(self, tool: str, arguments: dict[str, Any], category: str) -> str:
        """The error text of a call that must fail with PriorisMCP's ``category``."""
        result = self.raw(tool, arguments)
        assert result.is_error, f"{tool}{arguments} succeeded: {result.structured_content}"
        text = result.content[0].text
        assert category in text, f"expected {category}, got: {text}"
        assert "Traceback" not in text
        return text

    def read(self, uri: str) -> Any:
        return self._run(self.client.read_resource, uri)

    def read_json(self, uri: str) -> Any:
        return json.loads(self.read(uri).contents[0].text)

    def read_fails(self, uri: str, category: str) -> str:
        try:
            self.read(uri)
        except Exception as exc:  # the SDK raises MCPError for a failed read
            text = str(exc)
            assert category in text, f"expected {category}, got: {text}"
            return text
        raise AssertionError(f"reading {uri} succeeded")

    def tools(self) -> dict[str, Any]:
        listed = self._run(self.client.list_tools)
        return {tool.name: tool for tool in listed.tools}


def serve_env(world: ProviderWorld, data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update(world.env())
    env.update(
        {
            "PRIORIS_MCP_DATA_DIR": str(data_dir),
            "PRIORIS_MCP_OCR": "never",
            "PYTHONUNBUFFERED": "1",
            "OMP_THREAD_LIMIT": "1",
        }
    )
    return env


def open_session(world: ProviderWorld, data_dir: Path, stack: ExitStack) -> Mcp:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "prioris", "serve"],
        env=serve_env(world, data_dir),
        cwd=str(data_dir.parent),
    )
    portal = stack.enter_context(start_blocking_portal())
    client = stack.enter_context(
        portal.wrap_async_context_manager(Client(params, read_timeout_seconds=CALL_TIMEOUT))
    )
    return Mcp(portal, client, world)


@pytest.fixture(scope="package")
def mcp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    """The contract suite's server, over the inline provider world."""
    root = tmp_path_factory.mktemp("contract")
    world = ProviderWorld(root / "pdfs")
    with ExitStack() as stack:
        stack.callback(world.close)
        yield open_session(world, root / "data", stack)
