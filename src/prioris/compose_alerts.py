"""How :class:`~prioris.services.alerts.Alerts` is built from a library's composition: kept
beside :mod:`prioris.compose` (which calls it from its ``alerts`` part) so the composition
root stays short. The sources' clients come from the library's remote providers, each
alert's OpenAlex requests from its owner's share of the daily budget (the library's for
the local user), the ranking is ``AlertsRanking.rank_alerts`` and an accept is the
library's own fetch. In a shared library (an active account, or an alert an account
made) a feed URL must lead to a public address unless PRIORIS_MCP_ALLOW_PRIVATE_FEEDS
says otherwise (:class:`~prioris.sources.public_address.PublicAddresses`)."""

from __future__ import annotations

from typing import Any

from prioris.services.alerts import Alerts


def build_alerts(parts: Any) -> Alerts:
    """The alerts service of ``parts`` (a :class:`~prioris.compose.Composition`)."""
    from prioris.alerts.spec import AlertClients

    def clients(owner: str | None) -> AlertClients:
        access = parts.openalex_access
        return AlertClients.from_remote(
            parts.remote,
            graph=lambda: access.openalex_graph(owner),
            budget=access.request_budget(owner),
            **public_only(owner),
        )

    def public_only(owner: str | None) -> dict[str, Any]:
        if parts.settings.allow_private_feeds:
            return {}
        if owner is None and parts.accounts_service.active_count() == 0:
            return {}  # the machine's own user, who can reach these addresses anyway
        from prioris.sources.public_address import PublicAddresses

        guard = PublicAddresses()
        return {"feed_guard": guard.check, "feed_peer_check": guard.check_peer}

    return Alerts(
        parts.conn,
        parts.lock,
        parts.now,
        rank=lambda *args, **kwargs: parts.alerts_ranking.rank_alerts(*args, **kwargs),
        clients=clients,
        fetch_one=lambda identifier: parts.fetcher.fetch_one(identifier),
        allowed_roots=parts.settings.allowed_import_dirs,
    )


def build_digests(parts: Any) -> Any:
    """The day's alerts by e-mail through the user's SMTP server (the mailer built when a
    digest is sent, so a library that never mails imports no smtplib)."""
    from prioris.services.alerts_digest import AlertsDigest, smtp_mailer

    settings = parts.settings
    return AlertsDigest(lambda: parts.alerts, lambda: smtp_mailer(settings), settings, parts.now)
