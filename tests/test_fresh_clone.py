"""What a user's fresh clone meets before any Prioris code runs (issue 40): tests that need
the maintainers' ../shared skip saying so in plain words, the install waits for a busy
dpkg instead of failing, and the README warns about a folder that shadows the package.
(Packaging warnings: tests/packaging/test_wheel.py; wall-clock bounds:
tests/test_no_wall_clock.py.)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import conftest

REPO = Path(__file__).resolve().parents[1]
LOCK_WAIT = "-o DPkg::Lock::Timeout=300"


def test_a_test_without_the_shared_fixtures_skips_saying_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "SHARED", tmp_path / "nowhere" / "shared")
    monkeypatch.setattr(conftest, "REQUIRE_SHARED", False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        conftest.shared_path("fixtures", "pdfs", "good")
    reason = str(skipped.value)
    assert reason.startswith("needs the shared test fixtures (../shared/fixtures/pdfs/good)")
    assert "which a user's clone does not have" in reason
    assert str(tmp_path) not in reason and not re.search(r"(^|[\s(])/", reason), reason


def test_with_shared_fixtures_required_their_absence_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI sets PRIORIS_REQUIRE_SHARED: there a missing fixture is a failure naming the path."""
    monkeypatch.setattr(conftest, "SHARED", tmp_path / "shared")
    monkeypatch.setattr(conftest, "REQUIRE_SHARED", True)
    with pytest.raises(pytest.fail.Exception, match=re.escape(str(tmp_path / "shared"))):
        conftest.shared_path("fixtures", "api")


def test_make_system_deps_waits_for_the_dpkg_lock(tmp_path: Path) -> None:
    """The Makefile's apt-get calls, run for real with a stand-in apt-get (and a tesseract
    without English, so that the install branch runs), carry the lock timeout."""
    if shutil.which("make") is None:
        pytest.skip("no make on this machine")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "apt-get.calls"
    for name, body in (
        ("apt-get", f'echo "$*" >> "{calls}"'),
        ("tesseract", "exit 1"),  # no language data: `make` installs it
    ):
        script = bin_dir / name
        script.write_text(f"#!/bin/sh\n{body}\n")
        script.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), "system-deps", "SUDO="],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lines = calls.read_text().splitlines()
    assert [line.split()[2] for line in lines] == ["update", "install"]
    assert all(line.startswith(LOCK_WAIT) for line in lines), lines


def test_ci_waits_for_the_dpkg_lock() -> None:
    script = (REPO / ".ci" / "run").read_text()
    assert f"APT_WAIT=({LOCK_WAIT})" in script
    commands = [
        line.strip()
        for line in script.splitlines()
        if "apt-get" in line and not line.strip().startswith("#")
    ]
    assert commands and all('apt-get "${APT_WAIT[@]}" ' in line for line in commands), commands


def test_the_readme_warns_about_a_folder_named_prioris() -> None:
    """Python looks in the current folder first: a folder named ``prioris`` there (the
    clone itself, seen from its parent) stands in for the installed package."""
    setup = (REPO / "README.md").read_text().split("## Set-up")[1].split("\n## ")[0]
    assert re.search(r"Do not run Python .* folder\s+named `prioris`", setup, re.DOTALL)
