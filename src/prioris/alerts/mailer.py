"""Sending the alerts digest: a small :class:`Mailer` protocol, and :class:`SmtpMailer`, the
user's own SMTP server through the standard library's ``smtplib``.

The digest is the one thing Prioris sends on its own, so the sending is a seam like HTTP
and the clock: the service composing the digest takes a ``Mailer``, tests give it one that
talks to an SMTP server they start on loopback. ``SmtpMailer`` speaks STARTTLS (a plain
connection upgraded to TLS, refused when the server does not offer it: a password never
goes in clear by accident), implicit TLS (``ssl``, port 465) or plain SMTP (a relay on
loopback or a trusted network), and logs in only when a user is set. A failure to reach
or be accepted by the server is ``provider_unavailable`` naming the server, never the
password.
"""

from __future__ import annotations

import smtplib
import socket
import ssl
from email.message import EmailMessage
from typing import Protocol, runtime_checkable

from prioris.errors import ConfigurationError, ProviderUnavailableError

SECURITIES = ("starttls", "ssl", "plain")


@runtime_checkable
class Mailer(Protocol):
    """Sends one message to the recipients its headers name."""

    def send(self, message: EmailMessage) -> None: ...


class SmtpMailer:
    """An SMTP server (module docstring); one connection per message."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        security: str = "starttls",
        user: str | None = None,
        password: str | None = None,
        timeout: float = 30.0,
        context: ssl.SSLContext | None = None,
    ) -> None:
        if security not in SECURITIES:
            raise ConfigurationError(
                f"SMTP security must be one of {', '.join(SECURITIES)}, not {security!r}"
            )
        if user and password is None:
            raise ConfigurationError("PRIORIS_MCP_SMTP_USER is set without a password")
        self.host = host
        self.port = port
        self.security = security
        self.user = user
        self.password = password
        self.timeout = timeout
        # the system's trusted roots and host-name check by default; a test hands its own
        self.context = context or ssl.create_default_context()

    @property
    def where(self) -> str:
        return f"{self.host}:{self.port} ({self.security})"

    def send(self, message: EmailMessage) -> None:
        """Deliver ``message``; provider_unavailable naming the server when it fails."""
        try:
            with self._connect() as smtp:
                if self.security == "starttls":
                    smtp.ehlo()
                    if not smtp.has_extn("starttls"):
                        raise ProviderUnavailableError(
                            f"the SMTP server {self.where} does not offer STARTTLS; set "
                            "PRIORIS_MCP_SMTP_SECURITY=ssl or, on a trusted network only, plain"
                        )
                    smtp.starttls(context=self.context)
                    smtp.ehlo()
                if self.user:
                    smtp.login(self.user, self.password or "")
                refused = smtp.send_message(message)
        except smtplib.SMTPAuthenticationError as exc:
            raise ProviderUnavailableError(
                f"the SMTP server {self.where} refused the login of {self.user!r} ({exc.smtp_code})"
            ) from None
        except smtplib.SMTPRecipientsRefused as exc:
            who = ", ".join(sorted(exc.recipients))
            raise ProviderUnavailableError(
                f"the SMTP server {self.where} refused every recipient: {who}"
            ) from None
        except (smtplib.SMTPException, OSError, ssl.SSLError) as exc:
            reason = _reason(exc)
            raise ProviderUnavailableError(
                f"cannot send mail through {self.where}: {reason}"
            ) from None
        if refused:
            who = ", ".join(sorted(refused))
            raise ProviderUnavailableError(f"the SMTP server {self.where} refused {who}")

    def _connect(self) -> smtplib.SMTP:
        if self.security == "ssl":
            return smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout, context=self.context
            )
        return smtplib.SMTP(self.host, self.port, timeout=self.timeout)


def _reason(exc: BaseException) -> str:
    """What went wrong, in a few words (the message of an SMTP answer, or the OS's)."""
    if isinstance(exc, smtplib.SMTPResponseException):
        text = (
            exc.smtp_error.decode("utf-8", "replace")
            if isinstance(exc.smtp_error, bytes)
            else str(exc.smtp_error)
        )
        return f"{exc.smtp_code} {text}"[:300]
    if isinstance(exc, socket.timeout | TimeoutError):
        return "timed out"
    return (str(exc) or type(exc).__name__)[:300]
