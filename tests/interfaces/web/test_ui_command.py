"""``prioris ui`` as a user runs it: a real process on loopback, the browser opened (through
``$BROWSER``) unless ``--no-browser``, Ctrl-C to stop, a clear error for a port in use."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from prioris.interfaces.cli.app import main


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update({"PRIORIS_MCP_DATA_DIR": str(data_dir), **extra})
    return env


def _wait_for(port: int, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(proc.communicate(timeout=5)[1].decode()) from None
            time.sleep(0.1)


@pytest.fixture
def ui(data_dir: Path, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Path]]:
    """``prioris ui`` with a stand-in browser that writes the URL it was asked to open."""
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n')
    browser.chmod(0o755)
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", "ui", "--port", str(port)],
        env=_env(data_dir, BROWSER=f"{browser} %s"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(port, proc)
        yield f"http://127.0.0.1:{port}", proc, opened
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)


def test_ui_serves_opens_the_browser_and_stops_on_ctrl_c(ui) -> None:  # type: ignore[no-untyped-def]
    url, proc, opened = ui
    page = httpx.get(f"{url}/", timeout=10)
    assert page.status_code == 200 and "Search" in page.text
    rebound = httpx.get(f"{url}/", headers={"Host": "attacker.example"}, timeout=10)
    assert rebound.status_code == 421
    deadline = time.monotonic() + 20
    while not opened.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert opened.read_text().strip() == f"{url}/"
    proc.send_signal(signal.SIGINT)
    assert proc.wait(20) == 0
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    assert f"the web app is at {url}/" in stderr and "Traceback" not in stderr


def test_no_browser_only_serves(data_dir: Path, tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", "ui", "--no-browser", "--port", str(port)],
        env=_env(data_dir, BROWSER=f"touch {opened} %s"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(port, proc)
        assert httpx.get(f"http://127.0.0.1:{port}/status", timeout=10).status_code == 200
        time.sleep(0.5)
        assert not opened.exists()
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0


def test_a_port_in_use_is_a_clear_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        code = main(["ui", "--no-browser", "--port", str(port)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error [configuration_error]: cannot listen on 127.0.0.1:")
    assert "--port" in err


def test_ui_port_setting_is_validated(monkeypatch: pytest.MonkeyPatch) -> None:
    from prioris.config import load_settings
    from prioris.errors import ConfigurationError

    assert load_settings({}).ui_port == 8765
    assert load_settings({"PRIORIS_MCP_UI_PORT": "9001"}).ui_port == 9001
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_UI_PORT"):
        load_settings({"PRIORIS_MCP_UI_PORT": "web"})


def test_ui_on_postgresql_names_the_database_without_its_password(
    data_dir: Path, pg_url: str
) -> None:
    """The banner names the library being served: on PostgreSQL its URL (the password
    masked), not the SQLite file the data directory would hold."""
    port = _free_port()
    secret_url = pg_url.replace("postgresql://postgres:@", "postgresql://postgres:s3cret-pw@", 1)
    assert secret_url != pg_url  # the server trusts its socket: the password is not checked
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", "ui", "--no-browser", "--port", str(port)],
        env=_env(data_dir, PRIORIS_MCP_DB=secret_url),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for(port, proc)
        assert httpx.get(f"http://127.0.0.1:{port}/status", timeout=30).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(20) == 0
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    banner = next(line for line in stderr.splitlines() if "the web app is at" in line)
    assert "postgresql://" in banner and "library.sqlite" not in banner
    assert "s3cret-pw" not in stderr and "Traceback" not in stderr
