"""The public surface does not change by accident: every CLI command's help and the
completion scripts, MCP ``tools/list``, the web routes and the Python API (``Library``'s
members with their signatures and docstrings, ``Settings``' fields) are compared with the
snapshot in ``tests/data/surface.json``.

A deliberate change renews it: ``.venv/bin/python tools/surface.py --write``, and the diff
of that file shows the change in review.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("surface", ROOT / "tools" / "surface.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_public_surface_is_the_snapshot() -> None:
    tool = _tool()
    kept = json.loads(tool.SNAPSHOT.read_text(encoding="utf-8"))
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if kept["python_version"] != here:
        pytest.skip(
            f"the surface snapshot was written with Python {kept['python']}, whose help "
            f"layout differs from this Python {here}'s"
        )
    diff = tool.differences(kept, tool.surface())
    assert not diff, (
        "the public surface changed; if that is meant, renew the snapshot with "
        "`.venv/bin/python tools/surface.py --write`:\n" + "\n".join(diff[:200])
    )


def test_the_comparison_sees_a_change() -> None:
    tool = _tool()
    kept = json.loads(tool.SNAPSHOT.read_text(encoding="utf-8"))
    changed = json.loads(json.dumps(kept))
    changed["python_version"] = kept["python_version"]
    changed["mcp"]["tools"][0]["description"] += " (changed)"
    assert any("(changed)" in line for line in tool.differences(kept, changed))
