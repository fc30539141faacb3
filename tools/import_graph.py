"""Figures of ``src/prioris``'s import graph: circles, upward imports, largest modules.

Run from a checkout with the package installed (``make setup``)::

    .venv/bin/python tools/import_graph.py            # the figures
    .venv/bin/python tools/import_graph.py --json     # the same as JSON
    .venv/bin/python tools/import_graph.py --src OTHER/src   # another checkout's code

A *circle* is a strongly connected component of the package graph (modules collapsed
into their package, ``prioris.engines.sqlite`` counting as ``prioris.engines``; the
top-level modules each their own node), so two packages that import each other through
any files count once. An *upward import* is one from a lower layer of
docs/architecture.md to a higher one. Imports under ``TYPE_CHECKING`` count too: they are
part of what a reader must hold in mind, and grimp sees them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "prioris"
LONG_MODULE = 500
"""A module past this many lines fails the architecture test (aim for ~400: split by job)."""

# highest first: a module may import only from its own layer's package or below
# (docs/architecture.md; the same layers as the import-linter contracts in pyproject.toml)
LAYERS: list[tuple[str, ...]] = [
    ("interfaces", "__main__"),
    ("library",),
    ("compose", "compose_alerts", "compose_copy", "compose_parts"),
    ("services",),
    ("engines",),
    (
        "ingest",
        "search",
        "sources",
        "discovery",
        "alerts",
        "enrichment",
        "export",
        "rendering",
        "refman",
    ),
    ("storage", "embedding"),
    ("provenance",),
    (
        "models",
        "errors",
        "identifiers",
        "config",
        "config_file",
        "strings",
        "text_clean",
        "resources",
        "abstracts",
        "regular_files",
    ),
]


def node_of(module: str) -> str:
    """The graph node a module counts for: its first-level package or top-level module."""
    parts = module.split(".")
    return ".".join(parts[:2])


def layer_of(module: str) -> int | None:
    name = module.split(".")[1] if "." in module else ""
    for rank, members in enumerate(LAYERS):
        if name in members:
            return rank
    return None


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components with more than one node (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def module_circles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Circles between modules (files; a package's ``__init__`` is a module too)."""
    edges = {
        m: {t for t in graph.find_modules_directly_imported_by(m) if t in modules} for m in modules
    }
    return strongly_connected(edges)


def figures(src: Path = ROOT / "src") -> dict[str, object]:
    """The figures of the ``prioris`` package importable from ``src`` (put first on
    ``sys.path`` by :func:`main`; grimp reads the package it finds there)."""
    graph = grimp.build_graph(PACKAGE, include_external_packages=False)
    modules = {m for m in graph.modules if m.startswith(PACKAGE + ".")}
    package_edges: dict[str, set[str]] = {}
    upward: list[str] = []
    for importer in sorted(modules):
        for imported in graph.find_modules_directly_imported_by(importer):
            if not imported.startswith(PACKAGE + "."):
                continue
            a, b = node_of(importer), node_of(imported)
            if a != b:
                package_edges.setdefault(a, set()).add(b)
            la, lb = layer_of(importer), layer_of(imported)
            if la is not None and lb is not None and lb < la:
                upward.append(f"{importer} -> {imported}")
    sizes = []
    for module in modules:
        path = src / Path(*module.split("."))
        file = path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"
        if file.exists():
            sizes.append((sum(1 for _ in file.open(encoding="utf-8")), module))
    sizes.sort(reverse=True)
    return {
        "modules": len(modules),
        "package_circles": strongly_connected(package_edges),
        "module_circles": module_circles(graph, modules),
        "upward_imports": upward,
        "largest_modules": [{"module": m, "lines": n} for n, m in sizes[:10]],
        "modules_over_400_lines": [{"module": m, "lines": n} for n, m in sizes if n > 400],
        "modules_over_500_lines": long_modules(src),
    }


def long_modules(src: Path = ROOT / "src", limit: int = LONG_MODULE) -> list[dict[str, object]]:
    """Every file of the package over ``limit`` lines, longest first (read from disk, so a
    module nothing imports yet counts too)."""
    found = []
    for file in (src / PACKAGE).rglob("*.py"):
        lines = sum(1 for _ in file.open(encoding="utf-8"))
        if lines > limit:
            module = ".".join(file.relative_to(src).with_suffix("").parts)
            found.append({"module": module.removesuffix(".__init__"), "lines": lines})
    return sorted(found, key=lambda row: -int(row["lines"]))  # type: ignore[call-overload]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--src",
        type=Path,
        default=ROOT / "src",
        help="the folder holding the prioris package (default: this checkout's src; another "
        "checkout's, to measure an older commit)",
    )
    args = parser.parse_args(argv)
    sys.path.insert(0, str(args.src))
    found = figures(args.src)
    if args.json:
        print(json.dumps(found, indent=2))
        return 0
    print(f"modules: {found['modules']}")
    for key in ("package_circles", "module_circles"):
        circles = found[key]
        assert isinstance(circles, list)
        print(f"{key.replace('_', ' ')}: {len(circles)}")
        for circle in circles:
            print("  " + " <-> ".join(circle))
    upward = found["upward_imports"]
    assert isinstance(upward, list)
    print(f"upward imports: {len(upward)}")
    for line in upward:
        print("  " + line)
    print("largest modules:")
    for row in found["largest_modules"]:  # type: ignore[attr-defined]
        print(f"  {row['lines']:5d}  {row['module']}")
    print(f"modules over 400 lines: {len(found['modules_over_400_lines'])}")  # type: ignore[arg-type]
    print(f"modules over {LONG_MODULE} lines: {len(found['modules_over_500_lines'])}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
