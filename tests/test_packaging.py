"""Packaging conventions: no unused dependency, a py.typed marker, a version."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import packages_distributions
from importlib.resources import files
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _imported_modules(folder: Path) -> set[str]:
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for match in re.finditer(r"^\s*(?:from|import)\s+([\w]+)", path.read_text(), re.M):
            found.add(match.group(1))
    return found


def test_every_runtime_dependency_is_imported_by_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    modules_of: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            modules_of.setdefault(_norm(dist), set()).add(module)
    used = _imported_modules(ROOT / "src" / "prioris")
    unused = []
    for requirement in project["dependencies"]:
        name = _norm(re.split(r"[=<>;\[ ]", requirement, maxsplit=1)[0])
        if not modules_of.get(name, set()) & used:
            unused.append(name)
    assert not unused, f"pinned but never imported by src/prioris: {unused}"


def test_dev_tools_are_used_where_they_belong() -> None:
    assert "psutil" in _imported_modules(ROOT / "bench")


def test_package_is_marked_typed() -> None:
    assert files("prioris").joinpath("py.typed").is_file()
