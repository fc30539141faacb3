"""The alerts digest: composed per alert (score, why, link; plain text and HTML), sent
through the real smtplib client to an SMTP server this test starts on 127.0.0.1 (plain,
STARTTLS with a login, implicit TLS), and read back with the email package."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from alerts.smtp_server import SmtpServer, self_signed
from prioris.alerts.digest import candidate_link, compose_digest
from prioris.alerts.mailer import SmtpMailer
from prioris.config import load_settings
from prioris.errors import ConfigurationError, ProviderUnavailableError

WHY = {
    "nearest": [{"id": "W1", "title": "Graph networks for molecules"}],
    "terms": [{"term": "message passing", "weight": 0.4}],
}
SECTIONS: list[dict[str, Any]] = [
    {
        "alert": "graphs",
        "candidates": [
            {
                "id": "arxiv:2401.01234",
                "title": "Equivariant <b>graphs</b>",
                "score": 0.91,
                "why": WHY,
                "in_library": False,
            },
            {
                "id": "doi:10.1/held",
                "title": "Already held",
                "score": 0.8,
                "why": {},
                "in_library": True,
            },
            {
                "id": "urn:x",
                "title": "Linked",
                "score": 0.5,
                "why": {},
                "in_library": False,
                "link": "https://journal.example.org/a?x=1&y=2",
            },
        ],
    },
    {"alert": "quiet", "candidates": []},
]


def parsed(raw: bytes) -> Any:
    return email.message_from_bytes(raw, policy=email.policy.default)


@pytest.fixture
def server() -> Iterator[SmtpServer]:
    found = SmtpServer()
    yield found
    found.close()


def test_the_digest_arrives_with_both_parts_and_its_links(server: SmtpServer) -> None:
    message = compose_digest(
        SECTIONS,
        sender="Prioris <prioris@lab.example>",
        recipients=["ana@lab.example"],
        day="2026-12-06",
    )
    assert message is not None
    SmtpMailer("127.0.0.1", server.port, security="plain").send(message)
    (got,) = server.messages
    assert got.rcpt_to == ["ana@lab.example"] and got.mail_from == "prioris@lab.example"
    mail = parsed(got.data)
    assert mail["Subject"] == "Prioris alerts 2026-12-06: 2 new papers (graphs 2)"
    assert mail.get_content_type() == "multipart/alternative"
    text = mail.get_body(("plain",)).get_content()
    page = mail.get_body(("html",)).get_content()
    assert "1. Equivariant <b>graphs</b>" in text and "score 0.910" in text
    assert "why: Near: Graph networks for molecules | Terms: message passing" in text
    assert "https://arxiv.org/abs/2401.01234" in text
    assert "Already held" not in text and "quiet" not in text  # nothing new: left out
    assert "Equivariant &lt;b&gt;graphs&lt;/b&gt;" in page and "<b>graphs" not in page
    assert '<a href="https://arxiv.org/abs/2401.01234">' in page
    assert 'href="https://journal.example.org/a?x=1&amp;y=2"' in page


def test_nothing_new_is_no_mail_unless_asked() -> None:
    quiet = [{"alert": "graphs", "candidates": [SECTIONS[0]["candidates"][1]]}]
    assert compose_digest(quiet, sender="a@b.c", recipients=["d@e.f"], day="2026-12-06") is None
    asked = compose_digest(
        quiet, sender="a@b.c", recipients=["d@e.f"], day="2026-12-06", always=True
    )
    assert asked is not None and asked["Subject"] == "Prioris alerts 2026-12-06: nothing new"
    assert "No alert found anything new" in asked.get_body(("plain",)).get_content()


def test_links_come_only_from_web_addresses() -> None:
    assert candidate_link({"id": "doi:10.1000/a b"}) == "https://doi.org/10.1000/a%20b"
    assert candidate_link({"id": "W1", "link": "javascript:alert(1)"}) == ""
    assert candidate_link({"id": "https://openalex.org/W2"}) == "https://openalex.org/W2"


def test_starttls_then_login_never_in_clear(tmp_path: Path) -> None:
    server_ctx, client_ctx = self_signed(tmp_path)
    server = SmtpServer(starttls=server_ctx, users={"ana": "s3cret pass"})
    try:
        message = compose_digest(
            SECTIONS, sender="p@lab.example", recipients=["a@lab.example"], day="2026-12-06"
        )
        assert message is not None
        mailer = SmtpMailer(
            "127.0.0.1",
            server.port,
            security="starttls",
            user="ana",
            password="s3cret pass",
            context=client_ctx,
        )
        mailer.send(message)
        assert server.logins == [("ana", True)]
        (got,) = server.messages
        assert got.encrypted and got.user == "ana"
        wrong = SmtpMailer(
            "127.0.0.1", server.port, user="ana", password="guess", context=client_ctx
        )
        with pytest.raises(ProviderUnavailableError, match="refused the login of 'ana'") as exc:
            wrong.send(message)
        assert "guess" not in exc.value.message
        assert len(server.messages) == 1
    finally:
        server.close()


def test_starttls_is_required_when_asked(server: SmtpServer) -> None:
    message = compose_digest(
        SECTIONS, sender="p@lab.example", recipients=["a@lab.example"], day="2026-12-06"
    )
    assert message is not None
    with pytest.raises(ProviderUnavailableError, match="does not offer STARTTLS"):
        SmtpMailer("127.0.0.1", server.port, security="starttls").send(message)
    assert server.messages == []


def test_implicit_tls(tmp_path: Path) -> None:
    server_ctx, client_ctx = self_signed(tmp_path)
    server = SmtpServer(implicit_tls=server_ctx)
    try:
        message = compose_digest(
            SECTIONS, sender="p@lab.example", recipients=["a@lab.example"], day="2026-12-06"
        )
        assert message is not None
        SmtpMailer("127.0.0.1", server.port, security="ssl", context=client_ctx).send(message)
        assert server.messages[0].encrypted
        # the system's roots do not trust a self-signed certificate: refused, not sent
        with pytest.raises(ProviderUnavailableError, match="cannot send mail"):
            SmtpMailer("127.0.0.1", server.port, security="ssl").send(message)
        assert len(server.messages) == 1
    finally:
        server.close()


def test_a_refused_recipient_and_an_absent_server_are_named() -> None:
    server = SmtpServer(refuse={"gone@lab.example"})
    message = compose_digest(
        SECTIONS, sender="p@lab.example", recipients=["gone@lab.example"], day="2026-12-06"
    )
    assert message is not None
    try:
        with pytest.raises(ProviderUnavailableError, match="refused every recipient"):
            SmtpMailer("127.0.0.1", server.port, security="plain").send(message)
    finally:
        server.close()
    with pytest.raises(ProviderUnavailableError, match=f"127.0.0.1:{server.port}"):
        SmtpMailer("127.0.0.1", server.port, security="plain", timeout=5).send(message)


def test_settings_are_checked(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    settings = load_settings(
        {
            **env,
            "PRIORIS_MCP_SMTP_HOST": "mail.lab.example",
            "PRIORIS_MCP_SMTP_SECURITY": "SSL",
            "PRIORIS_MCP_SMTP_TO": "a@lab.example, Ben <b@lab.example>",
        }
    )
    assert settings.smtp_port_used == 465 and settings.smtp_security == "ssl"
    assert settings.smtp_to == ("a@lab.example", "Ben <b@lab.example>")
    assert load_settings(env).smtp_port_used == 587
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_SMTP_FROM"):
        load_settings({**env, "PRIORIS_MCP_SMTP_FROM": "not an address"})
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_SMTP_TO"):
        load_settings({**env, "PRIORIS_MCP_SMTP_TO": "a@b.c\r\nBcc: x@y.z"})
    with pytest.raises(ConfigurationError, match="PRIORIS_MCP_SMTP_SECURITY"):
        load_settings({**env, "PRIORIS_MCP_SMTP_SECURITY": "tls"})
