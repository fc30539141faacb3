"""The e-mail digest of alerts: the user's own SMTP server, who sends and who receives.

Separate because these are the only settings that make Prioris send anything to a third
party on its own (``prioris alerts digest``, run by the user's cron job): an address, a
password and a server, read and checked in one place. Nothing is sent while
``PRIORIS_MCP_SMTP_HOST`` is unset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from prioris.config.parsing import _choice, _integer, _number
from prioris.errors import ConfigurationError

SMTP_SECURITIES = ("starttls", "ssl", "plain")
DEFAULT_SMTP_PORTS = {"starttls": 587, "ssl": 465, "plain": 25}
# ``ana@lab.org`` or ``Ana <ana@lab.org>``: read with a pattern, not the email package,
# which every command would otherwise import at start to read its settings
_ADDRESS = re.compile(r"[^\s<>@,;\"]+@[^\s<>@,;\"]+")
_NAMED = re.compile(r"[^<>\r\n\x00]*<([^<>]+)>")


@dataclass(frozen=True)
class MailSettings:
    """The SMTP server the digest goes through (docs/usage.md, "Alerts: reading them")."""

    smtp_host: str | None = None
    # 0: the security's usual port (587 STARTTLS, 465 SSL, 25 plain)
    smtp_port: int = 0
    smtp_security: str = "starttls"
    smtp_user: str | None = None
    smtp_password: str | None = None
    smtp_from: str | None = None
    smtp_to: tuple[str, ...] = ()
    smtp_timeout_seconds: float = 30.0

    @property
    def smtp_port_used(self) -> int:
        """The port connected to: the one set, else the security's usual one."""
        return self.smtp_port or DEFAULT_SMTP_PORTS[self.smtp_security]


def check_address(value: str, name: str) -> str:
    """One mail address (``ana@lab.org`` or ``Ana <ana@lab.org>``), else a
    ConfigurationError naming ``name``: a line break would let a value add headers."""
    text = value.strip()
    named = _NAMED.fullmatch(text)
    address = named.group(1).strip() if named else text
    if any(c in text for c in "\r\n\x00") or not _ADDRESS.fullmatch(address):
        raise ConfigurationError(f"{name}={text[:80]!r} is invalid; accepted: a mail address")
    return text


def _text(env: Mapping[str, str], name: str) -> str | None:
    value = (env.get(name) or "").strip()
    if any(c in value for c in "\r\n\x00"):
        raise ConfigurationError(f"{name} holds a line break or a NUL byte")
    return value or None


def mail_settings(env: Mapping[str, str]) -> MailSettings:
    """The SMTP settings from ``env`` (``PRIORIS_MCP_SMTP_*``)."""
    sender = _text(env, "PRIORIS_MCP_SMTP_FROM")
    recipients = tuple(
        check_address(part, "PRIORIS_MCP_SMTP_TO")
        for part in (env.get("PRIORIS_MCP_SMTP_TO") or "").split(",")
        if part.strip()
    )
    return MailSettings(
        smtp_host=_text(env, "PRIORIS_MCP_SMTP_HOST"),
        smtp_port=_integer(env, "PRIORIS_MCP_SMTP_PORT", 0),
        smtp_security=_choice(env, "PRIORIS_MCP_SMTP_SECURITY", SMTP_SECURITIES, "starttls"),
        smtp_user=_text(env, "PRIORIS_MCP_SMTP_USER"),
        smtp_password=(env.get("PRIORIS_MCP_SMTP_PASSWORD") or None),
        smtp_from=check_address(sender, "PRIORIS_MCP_SMTP_FROM") if sender else None,
        smtp_to=recipients,
        smtp_timeout_seconds=_number(env, "PRIORIS_MCP_SMTP_TIMEOUT_SECONDS", 30.0),
    )
