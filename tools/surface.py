"""Prioris's public surface as one JSON document, to compare two versions of the code.

An architecture step changes where code lives, not what it offers: this prints what a user
and a caller see — every CLI command's ``--help`` and the completion scripts, MCP
``tools/list`` and ``resources/templates/list``, the web app's route table, and the Python
API (``prioris.__all__``, ``Library``'s public members with their signatures and
docstrings, ``Settings``' fields) — so two checkouts can be diffed::

    .venv/bin/python tools/surface.py > /tmp/after.json
    PYTHONPATH=<old checkout>/src .venv/bin/python tools/surface.py > /tmp/before.json
    .venv/bin/python tools/surface.py --compare /tmp/before.json

``tests/test_surface.py`` runs the same comparison against the snapshot kept in
``tests/data/surface.json``; ``--write`` renews that snapshot after a deliberate change.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import dataclasses
import difflib
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "surface.json"


def cli_surface() -> dict[str, Any]:
    """Each command's help text (at a fixed width) and the three completion scripts."""
    os.environ["COLUMNS"] = "100"
    from prioris.interfaces.cli import app
    from prioris.interfaces.cli.completion import iter_parsers

    parser = app.build_parser()
    helps = {path or "prioris": sub.format_help() for path, sub in iter_parsers(parser)}
    return {
        "help": helps,
        "completion": {
            "bash": app.bash_script(),
            "zsh": app.zsh_script(),
            "fish": app.fish_script(),
        },
    }


def mcp_surface() -> dict[str, Any]:
    """MCP ``tools/list`` (name, title, description, input and output schema, annotations)
    and the resource templates, as a client sees them."""
    from prioris.interfaces.mcp_server import build_server

    server = build_server(lambda: None)  # type: ignore[arg-type,return-value]

    async def listed() -> dict[str, Any]:
        tools = await server.list_tools()
        templates = await server.list_resource_templates()
        resources = await server.list_resources()
        return {
            "tools": [tool.model_dump(mode="json", exclude_none=True) for tool in tools],
            "resource_templates": [t.model_dump(mode="json", exclude_none=True) for t in templates],
            "resources": [r.model_dump(mode="json", exclude_none=True) for r in resources],
        }

    # in a thread of its own: the caller may already run an event loop (a test's)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, listed()).result()


def web_surface() -> list[list[Any]]:
    """The web app's routes: path, methods and name, in order, without and with accounts."""
    from prioris.interfaces.web.app import build_app

    table = []
    for accounts in (False, True):
        app = build_app(None, accounts=accounts)  # type: ignore[arg-type]
        for route in app.routes:
            methods = sorted(getattr(route, "methods", None) or [])
            table.append([accounts, route.path, methods, getattr(route, "name", None)])
    return table


def _member(value: Any) -> dict[str, Any]:
    target = value.fget if isinstance(value, property) else value
    if isinstance(target, staticmethod | classmethod):
        target = target.__func__
    kind = type(value).__name__
    try:
        signature = str(inspect.signature(target)) if callable(target) else None
    except (TypeError, ValueError):
        signature = None
    return {"kind": kind, "signature": signature, "doc": inspect.getdoc(target)}


def python_surface() -> dict[str, Any]:
    """``prioris.__all__``, Library's public members and Settings' fields."""
    import prioris
    from prioris import Library, Settings

    members = {}
    for name in sorted(dir(Library)):
        if name.startswith("_"):
            continue
        members[name] = _member(inspect.getattr_static(Library, name))
    fields = [
        [f.name, str(f.type), repr(f.default) if f.default is not dataclasses.MISSING else None]
        for f in dataclasses.fields(Settings)
    ]
    import prioris.library as library_module

    return {
        "all": sorted(prioris.__all__),
        "library": members,
        "library_doc": inspect.getdoc(Library),
        "library_module_all": sorted(library_module.__all__),
        "settings_fields": sorted(fields),
    }


def surface() -> dict[str, Any]:
    return {
        # argparse's help layout changes between Python versions: a snapshot is compared
        # only on the version that wrote it
        "python_version": f"{sys.version_info.major}.{sys.version_info.minor}",
        "cli": cli_surface(),
        "mcp": mcp_surface(),
        "web": web_surface(),
        "python": python_surface(),
    }


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """A unified diff of the two surfaces' JSON, empty when they agree."""
    a = json.dumps(before, indent=1, sort_keys=True).splitlines()
    b = json.dumps(after, indent=1, sort_keys=True).splitlines()
    return list(difflib.unified_diff(a, b, "before", "after", lineterm="", n=2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--compare", type=Path, help="a surface JSON to compare with")
    parser.add_argument("--write", action="store_true", help=f"renew {SNAPSHOT.name}")
    args = parser.parse_args(argv)
    found = surface()
    if args.write:
        SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
        SNAPSHOT.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n", "utf-8")
        return 0
    if args.compare:
        diff = differences(json.loads(args.compare.read_text("utf-8")), found)
        print("\n".join(diff) if diff else "the same surface")
        return 1 if diff else 0
    json.dump(found, sys.stdout, indent=1, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
