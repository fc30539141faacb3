"""The day's alerts digest by e-mail (issue 37): what ``prioris alerts digest`` sends after
the cron job's ``prioris alerts run``.

Stateless by design: the digest holds each alert whose last successful run falls in the
window (the last 24 hours, or since ``since``), with that run's candidates the library
does not hold yet (a run already leaves out what was dismissed), best first; and each
alert whose last run failed, with the failing source, so a broken alert is noticed. When
nothing is new and nothing failed no mail goes (unless ``always``), so a daily cron job
mails only when there is something to read. Composing is :mod:`prioris.alerts.digest`;
sending goes through a :class:`~prioris.alerts.mailer.Mailer` built from the SMTP
settings on first use (the seam tests replace, or point at a loopback server).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from prioris.alerts.when import check_since
from prioris.config.mail import check_address
from prioris.errors import ConfigurationError, InvalidRequestError

if TYPE_CHECKING:  # the e-mail modules load when a digest is composed, not with the CLI
    from prioris.alerts.mailer import Mailer

WINDOW = timedelta(days=1)
MAX_RECIPIENTS = 50


def _moment(text: str) -> datetime:
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class AlertsDigest:
    """Composes and sends the digest of the alerts a person sees."""

    def __init__(
        self,
        alerts: Callable[[], Any],
        mailer: Callable[[], Mailer],
        settings: Any,
        now: Callable[[], str],
    ) -> None:
        self.alerts = alerts
        self.mailer = mailer
        self.settings = settings
        self.now = now

    def _sections(self, since: datetime, account: str | None) -> list[dict[str, Any]]:
        service = self.alerts()
        sections = []
        for alert in service.alerts_list(account=account):
            error = alert.get("last_error")
            ran = alert.get("last_run")
            fresh = ran is not None and _moment(ran) >= since
            if not fresh and not error:
                continue
            shown = service.alerts_show(alert["name"], account=account) if fresh else alert
            results = shown.get("results", []) if fresh else []
            candidates = [{**r, "link": r.get("url") or ""} for r in results]
            sections.append({"alert": alert["name"], "candidates": candidates, "error": error})
        return sections

    def _recipients(self, to: Sequence[str] | None) -> list[str]:
        wanted = list(to) if to else list(self.settings.smtp_to)
        if not wanted:
            raise ConfigurationError("no recipient: give --to ADDRESS or set PRIORIS_MCP_SMTP_TO")
        if len(wanted) > MAX_RECIPIENTS:
            raise InvalidRequestError(f"at most {MAX_RECIPIENTS} recipients")
        try:
            return [check_address(a, "the recipient") for a in wanted]
        except ConfigurationError as exc:
            raise InvalidRequestError(exc.message) from None

    def alerts_digest(
        self,
        *,
        to: Sequence[str] | None = None,
        since: str | None = None,
        dry_run: bool = False,
        always: bool = False,
        account: str | None = None,
    ) -> dict[str, Any]:
        """Mail the digest of the alerts ``account`` sees (every alert for the local user)
        to ``to`` (default: PRIORIS_MCP_SMTP_TO) through PRIORIS_MCP_SMTP_HOST: the alerts
        run since ``since`` (a day or ISO moment; default: the last 24 hours) with their
        candidates not in the library, and the alerts whose last run failed. Nothing new:
        no mail, unless ``always``. ``dry_run`` composes without sending (and needs no
        server). Returns ``{"sent", "to", "subject", "alerts", "candidates", "failed",
        "text"}`` (``text``: the plain-text part; "" when there is no message)."""
        from prioris.alerts.digest import compose_digest, has_news

        now = _moment(self.now())
        checked = check_since(since)
        start = _moment(checked) if checked else now - WINDOW
        sections = self._sections(start, account)
        wanted = not dry_run or to or self.settings.smtp_to
        recipients = self._recipients(to) if wanted else []
        sender = self.settings.smtp_from or ""
        if not dry_run:
            if not self.settings.smtp_host:
                raise ConfigurationError(
                    "no SMTP server: set PRIORIS_MCP_SMTP_HOST (and PRIORIS_MCP_SMTP_FROM) "
                    "to send the digest (docs/usage.md, Alerts)"
                )
            if not sender:
                raise ConfigurationError("no sender: set PRIORIS_MCP_SMTP_FROM")
        message = compose_digest(
            sections,
            sender=sender or "prioris@localhost",
            recipients=recipients or ["(no recipient)"],
            day=now.date().isoformat(),
            always=always,
        )
        report = {
            "sent": False,
            "to": recipients,
            "subject": message["Subject"] if message is not None else "",
            "alerts": [s["alert"] for s in sections if s["candidates"] or s["error"]],
            "candidates": sum(
                1 for s in sections for c in s["candidates"] if not c.get("in_library")
            ),
            "failed": [s["alert"] for s in sections if s["error"]],
            "news": has_news(sections),
            "text": message.get_body(("plain",)).get_content() if message is not None else "",
        }
        if message is not None and not dry_run:
            self.mailer().send(message)
            report["sent"] = True
        return report


def smtp_mailer(settings: Any) -> Mailer:
    """The SMTP server of the settings (PRIORIS_MCP_SMTP_*)."""
    from prioris.alerts.mailer import SmtpMailer

    return SmtpMailer(
        settings.smtp_host,
        settings.smtp_port_used,
        security=settings.smtp_security,
        user=settings.smtp_user,
        password=settings.smtp_password,
        timeout=settings.smtp_timeout_seconds,
    )
