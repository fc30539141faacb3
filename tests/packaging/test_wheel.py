"""The built wheel works on its own: package data inside (the top-level ``migrations/``
and ``data/`` mapped in by setup.py), and a non-editable install in a fresh virtual
environment runs ``prioris status`` (default and ``--db`` libraries), an ingest, a search
and ``prioris demo``.

The wheel is built from a copy of the sources (nothing is written into the checkout) with
this venv's setuptools (``--no-build-isolation``: no download). The fresh venv reuses this
venv's dependencies through a ``.pth`` line, so nothing is reinstalled; Prioris itself
comes only from the wheel, which the test checks before using it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from pdf_factory import make_text_pdf

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]


def _run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(kwargs.pop("env", {}))  # type: ignore[arg-type]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=600, env=env, check=False, **kwargs
    )  # type: ignore[call-overload]
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel, and what its build printed."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE", "NOTICE"):
        shutil.copy(REPO / name, source / name)
    for folder in ("src", "migrations", "data"):  # the top-level folders the build maps in
        shutil.copytree(
            REPO / folder,
            source / folder,
            ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"),
        )
    out = tmp_path_factory.mktemp("dist")
    done = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(source),
        ],
        cwd=source,
    )
    (built,) = out.glob("prioris-*.whl")
    return built, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(build: tuple[Path, str]) -> Path:
    return build[0]


def test_the_build_prints_no_packaging_warning(build: tuple[Path, str]) -> None:
    """setuptools warns ("Package would be ignored") about a folder of data files that
    Python could import but the configuration does not list, as the web app's templates
    and static files were: `make demo` and `make test` then printed it on a fresh clone."""
    warnings = [line for line in build[1].splitlines() if "warn" in line.lower()]
    assert warnings == [], build[1]


def test_the_wheel_ships_the_web_app_templates_and_static_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("templates", "static"):
        shipped = {n for n in names if n.startswith(f"prioris/interfaces/web/{folder}/")}
        files = {
            f"prioris/interfaces/web/{folder}/{p.name}"
            for p in (REPO / "src/prioris/interfaces/web" / folder).iterdir()
            if p.is_file()
        }
        assert files and shipped == files


def test_the_wheel_ships_migrations_tokenizer_and_typing(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "prioris/migrations/sqlite/0001_initial.sql" in names
    assert "prioris/migrations/postgres/0001_initial.sql" in names
    for tokenizer_file in ("tokenizer.json", "config.json", "LICENSE", "NOTICE"):
        assert f"prioris/data/models/all-MiniLM-L6-v2/{tokenizer_file}" in names
    assert "prioris/py.typed" in names
    assert "prioris/ingest/pdf/worker.py" in names
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "License-Expression: Apache-2.0" in text
    assert any(n.endswith("licenses/NOTICE") for n in names)  # AGPL terms of PyMuPDF


def test_a_fresh_install_of_the_wheel_ingests_and_searches(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    # this venv's dependencies, not its (editable) prioris: a .pth line is a plain path,
    # and .pth files inside it are not read
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            str(wheel),
        ]
    )

    work = tmp_path / "work"  # not the checkout: nothing of src/ on the path
    work.mkdir()
    located = _run([str(python), "-c", "import prioris; print(prioris.__file__)"], cwd=work)
    assert Path(located.stdout.strip()).is_relative_to(site)

    env = {"PRIORIS_MCP_DATA_DIR": str(tmp_path / "data"), "PRIORIS_MCP_OCR": "never"}
    prioris = str(env_dir / "bin" / "prioris")
    paper = make_text_pdf(
        work / "paper.pdf",
        "Coral reef bleaching under marine heatwaves",
        ["Marine heatwaves bleach coral reefs when symbiotic algae are expelled. " * 20],
    )
    ingested = json.loads(_run([prioris, "ingest", str(paper), "--json"], cwd=work, env=env).stdout)
    assert len(ingested["ingested"]) == 1 and ingested["ingested"][0]["chunks"] >= 1
    found = json.loads(
        _run([prioris, "search", "coral bleaching heatwaves", "--json"], cwd=work, env=env).stdout
    )
    assert found["hits"][0]["id"] == ingested["ingested"][0]["id"]
    status = json.loads(_run([prioris, "status", "--json"], cwd=work, env=env).stdout)
    assert status["works"] == 1 and status["dim"] == 384

    # a library named by --db, and the demo (OCR, the model, every search mode), both from
    # the installed wheel alone: migrations and tokenizer found inside it
    named = tmp_path / "elsewhere" / "named.sqlite"
    records = work / "records.jsonl"
    records.write_text('{"_id": "r1", "title": "Fjords", "text": "fjord sediment cores"}\n')
    _run([prioris, "--db", str(named), "import", str(records)], cwd=work)
    status = json.loads(_run([prioris, "--db", str(named), "status", "--json"], cwd=work).stdout)
    assert status["works"] == 1 and status["db"] == str(named) and named.is_file()
    demo = _run([prioris, "demo"], cwd=work, env={"PRIORIS_MCP_DATA_DIR": str(tmp_path / "d")})
    assert "hybrid" in demo.stdout + demo.stderr
