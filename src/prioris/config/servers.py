"""The servers: the MCP transport and its HTTP address, CORS, remote access and token, the
web UI's port, and the per-account limits of accounts mode.

Separate because these settings decide who can reach a running Prioris (docs/security.md):
reading them in one place keeps every exposure choice visible together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from prioris.config.parsing import _choice, _flag, _integer, _token
from prioris.errors import ConfigurationError

TRANSPORTS = ("stdio", "http")


@dataclass(frozen=True)
class ServerSettings:
    """How ``prioris serve`` and ``prioris ui`` listen, and what an account may use."""

    transport: str = "stdio"
    host: str = "127.0.0.1"
    port: int = 8000
    cors_origins: tuple[str, ...] = ()
    http_allow_remote: bool = False
    http_token: str | None = None
    ui_port: int = 8765
    # per account in accounts mode (docs/security.md, "Accounts and roles")
    account_requests_per_minute: int = 600
    account_upload_bytes_per_hour: int = 2**31
    # the server's folders a request may name in accounts mode (web app: a folder of PDFs,
    # a .bib/.ris file, a Zotero data directory); none by default: only uploads
    allowed_import_dirs: tuple[Path, ...] = ()
    # in accounts mode an alert's feed:URL may reach loopback, private and link-local
    # addresses only when an admin allows it (docs/security.md, "Alerts and feed tokens")
    allow_private_feeds: bool = False


def server_settings(env: Mapping[str, str]) -> ServerSettings:
    """The servers' settings from ``env``."""
    cors = tuple(o.strip() for o in env.get("PRIORIS_MCP_CORS_ORIGINS", "").split(",") if o.strip())
    return ServerSettings(
        transport=_choice(env, "PRIORIS_MCP_TRANSPORT", TRANSPORTS, "stdio"),
        host=(env.get("PRIORIS_MCP_HOST") or "127.0.0.1").strip(),
        port=_integer(env, "PRIORIS_MCP_PORT", 8000),
        cors_origins=cors,
        http_allow_remote=_flag(env, "PRIORIS_MCP_HTTP_ALLOW_REMOTE"),
        http_token=_token(env, "PRIORIS_MCP_HTTP_TOKEN"),
        ui_port=_integer(env, "PRIORIS_MCP_UI_PORT", 8765),
        account_requests_per_minute=_integer(env, "PRIORIS_MCP_ACCOUNT_REQUESTS_PER_MINUTE", 600),
        account_upload_bytes_per_hour=_integer(
            env, "PRIORIS_MCP_ACCOUNT_UPLOAD_BYTES_PER_HOUR", 2**31
        ),
        allowed_import_dirs=_folders(env, "PRIORIS_MCP_ALLOWED_IMPORT_DIRS"),
        allow_private_feeds=_flag(env, "PRIORIS_MCP_ALLOW_PRIVATE_FEEDS"),
    )


def _folders(env: Mapping[str, str], name: str) -> tuple[Path, ...]:
    """Absolute folders separated by commas (a TOML list of strings reads the same); ``~``
    expanded. A relative one is refused: the server's working folder is no one's choice."""
    found = []
    for part in (env.get(name) or "").split(","):
        text = part.strip()
        if not text:
            continue
        folder = Path(text).expanduser()
        if not folder.is_absolute():
            raise ConfigurationError(
                f"{name}={text!r} is not an absolute folder; list absolute folders, "
                "separated by commas"
            )
        found.append(folder)
    return tuple(found)
