"""The architecture of docs/architecture.md holds: the import-linter contracts in
pyproject.toml pass, and the import graph has no circle and no upward import.

The contracts are the guard; the graph figures (tools/import_graph.py) say the same thing
another way, counting every import grimp sees (inside functions and TYPE_CHECKING too).
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _lint_imports() -> str:
    found = Path(sys.executable).parent / "lint-imports"
    return str(found) if found.exists() else (shutil.which("lint-imports") or "lint-imports")


def test_the_import_contracts_hold() -> None:
    done = subprocess.run(
        [_lint_imports(), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


def _graph_tool():
    spec = importlib.util.spec_from_file_location(
        "import_graph", ROOT / "tools" / "import_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_import_graph_has_no_circle_and_no_upward_import() -> None:
    figures = _graph_tool().figures()
    assert figures["package_circles"] == []
    assert figures["module_circles"] == []
    assert figures["upward_imports"] == []


@pytest.mark.parametrize("package", ["storage", "search", "sources", "ingest"])
def test_engine_neutral_packages_load_no_engine_by_name(package: str) -> None:
    """The contracts see import statements; this also catches an engine loaded by name
    (``importlib.import_module``, ``__import__``), which the contracts cannot see."""
    dynamic = re.compile(r"(import_module|__import__)\(")
    for path in (ROOT / "src" / "prioris" / package).rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert not dynamic.search(line), f"{path}:{number}: {line.strip()}"
