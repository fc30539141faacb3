"""What teaching an agent the CLI costs: tokens of ``prioris skill`` against the MCP tool list.

A shell-using agent reads the skill once (``SKILL.md``, shipped with the package); an MCP
client sends the server's whole ``tools/list`` (names, descriptions, input and output
schemas) with every request. Both are counted two ways: with the vendored WordPiece
tokenizer of the default model (``data/models``), and as characters / 4 (the usual rule of
thumb for the BPE tokenizers of the large language models agents run on). The MCP list is
read from the real server through the SDK's in-process client.

    .venv/bin/python bench/bench_skill_tokens.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common


def tools_list_json() -> str:
    import anyio
    from mcp import Client

    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.interfaces.mcp_server import build_server
    from prioris.library import Library

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings({"PRIORIS_MCP_DATA_DIR": tmp})
        library = Library(settings, embedder=FakeEmbedder())
        server = build_server(lambda: library)

        async def main() -> list[dict[str, Any]]:
            async with Client(server) as client:
                tools = (await client.list_tools()).tools
                return [t.model_dump(mode="json", exclude_none=True) for t in tools]

        try:
            tools = anyio.run(main)
        finally:
            server.prioris_state.close()
            library.close()
    return json.dumps({"tools": tools}, ensure_ascii=False)


def main() -> None:
    from tokenizers import Tokenizer

    from prioris.interfaces.cli.evidence_cmds import skill_text

    path = next((common.REPO / "data" / "models").rglob("tokenizer.json"))
    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.no_truncation()
    listing = tools_list_json()
    for name, text in (("prioris skill (SKILL.md)", skill_text()), ("MCP tools/list", listing)):
        pieces = len(tokenizer.encode(text, add_special_tokens=False).ids)
        quarter = len(text) // 4
        print(f"{name:26s} {len(text):7d} chars  {pieces:6d} WordPiece  ~{quarter:6d} chars/4")


if __name__ == "__main__":
    main()
