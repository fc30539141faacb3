"""Light commands start light: ``import prioris`` and ``prioris --version`` load none of
the library, its services or the heavy stacks, and ``status``, ``list``, ``show`` and an fts
``search`` load neither the model's runtime, the PDF reader, the HTTP clients nor the web
and MCP stacks (issue 35; CPU figures in docs/benchmarks.md, "Start-up").

Each command runs in a new interpreter with ``-X importtime``, which names every module the
process imported; the test reads that list, not a clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# what the facade composes, and the third-party stacks only some commands need
FACADE = ("prioris.library", "prioris.compose", "prioris.services", "prioris.ingest.pipeline")
MODEL = ("onnxruntime", "fastembed", "tokenizers")
PDF = ("fitz", "pymupdf", "pytesseract", "PIL")
WEB_AND_MCP = ("starlette", "uvicorn", "jinja2", "mcp", "prioris.interfaces.web")
PROVIDERS = ("httpx", "prioris.sources.http", "pydantic")
CLUSTER = ("dask", "distributed", "prioris.ingest.dask_runner")  # only with --cluster


def _imported(*args: str, cwd: Path | None = None) -> set[str]:
    """The modules a ``python -X importtime`` run of ``args`` imported."""
    env = dict(os.environ, PRIORIS_MCP_ENRICH="off", COLUMNS="100")
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert names, done.stderr[-2000:]
    return names


def _loaded(names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def test_import_prioris_loads_nothing_heavy() -> None:
    names = _imported("-c", "import prioris")
    assert "prioris" in names
    heavy = FACADE + MODEL + PDF + WEB_AND_MCP + PROVIDERS + CLUSTER + ("numpy",)
    assert _loaded(names, heavy) == []


def test_the_public_names_still_come_from_prioris() -> None:
    import prioris
    from prioris.config import Settings
    from prioris.library import Library

    assert prioris.Library is Library and prioris.Settings is Settings
    assert set(prioris.__all__) <= set(dir(prioris)) | {"__version__"}
    with pytest.raises(AttributeError):
        prioris.no_such_name  # noqa: B018


def test_version_and_help_load_no_library() -> None:
    for argv in (["--version"], ["--help"]):
        names = _imported("-m", "prioris", *argv)
        assert _loaded(names, FACADE + MODEL + PDF + WEB_AND_MCP + PROVIDERS + CLUSTER) == [], argv


@pytest.fixture(scope="module")
def small_library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library with one record, written with a fake model of the real one's name and
    size (opening it with the real model checks only those two)."""
    from prioris import Library
    from prioris.embedding.fake import FakeEmbedder
    from prioris.embedding.offline import DEFAULT_DIM, DEFAULT_MODEL_ID

    data_dir = tmp_path_factory.mktemp("startup")
    embedder = FakeEmbedder(dim=DEFAULT_DIM, model_id=DEFAULT_MODEL_ID)
    with Library.open(data_dir=str(data_dir), enrich="off", embedder=embedder) as library:
        library.import_records(
            [{"_id": "w1", "title": "Protein folding", "text": "Proteins fold quickly. " * 20}]
        )
    return data_dir


@pytest.mark.parametrize(
    "command",
    [["status"], ["list"], ["show", "w1", "--limit", "50"], ["search", "--mode", "fts", "fold"]],
    ids=["status", "list", "show", "search-fts"],
)
def test_light_commands_load_no_model_pdf_web_or_providers(
    small_library: Path, command: list[str]
) -> None:
    names = _imported("-m", "prioris", "--data-dir", str(small_library), *command)
    assert "prioris.library" in names  # it did open the library
    assert _loaded(names, MODEL + PDF + WEB_AND_MCP + PROVIDERS + CLUSTER) == [], command
