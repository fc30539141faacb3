"""Browser fixtures: Debian's Chromium driven by Playwright (pytest-playwright's ``browser``),
skipped with a clear reason where /usr/bin/chromium is not installed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("PRIORIS_TEST_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-default-apps",
]


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    """Launch the system Chromium (Playwright's own browser download is not reachable)."""
    if not CHROMIUM.exists():
        pytest.skip(
            f"browser tests need Chromium at {CHROMIUM} (apt-get install -y chromium); "
            "set PRIORIS_TEST_CHROMIUM to use another binary"
        )
    return {
        **browser_type_launch_args,
        "executable_path": str(CHROMIUM),
        "headless": True,
        "args": CHROMIUM_ARGS,
    }
