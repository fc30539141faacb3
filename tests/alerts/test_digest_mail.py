"""The alerts digest: composed per alert (score, why, link; plain text and HTML), sent
through the real smtplib client to an SMTP server this test starts on 127.0.0.1 (plain,
STARTTLS with a login, implicit TLS), and read back with the email package."""

from __future__ import annotations

import email
import email.policy
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import prioris.embedding
from alerts.alert_fixtures import stock
from alerts.smtp_server import SmtpServer, self_signed
from prioris.alerts.digest import candidate_link, compose_digest
from prioris.alerts.mailer import SmtpMailer
from prioris.config import load_settings
from prioris.embedding.fake import FakeEmbedder
from prioris.errors import ConfigurationError, InvalidRequestError, ProviderUnavailableError
from prioris.interfaces.cli import main
from prioris.library import Library

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


NOW = "2026-12-06T07:00:00+00:00"


def _smtp_env(server: SmtpServer) -> dict[str, str]:
    return {
        "PRIORIS_MCP_SMTP_HOST": "127.0.0.1",
        "PRIORIS_MCP_SMTP_PORT": str(server.port),
        "PRIORIS_MCP_SMTP_SECURITY": "plain",
        "PRIORIS_MCP_SMTP_FROM": "Prioris <prioris@lab.example>",
        "PRIORIS_MCP_SMTP_TO": "ana@lab.example",
    }


def test_the_librarys_digest_of_the_days_runs(
    server: SmtpServer, data_dir: Path, tmp_path: Path
) -> None:
    settings = load_settings({**os.environ, **_smtp_env(server)})
    with Library(settings, embedder=FakeEmbedder(), now=lambda: NOW) as lib:
        stock(lib, tmp_path)
        lib.alerts_add("broken", collection="Folding", sources=f"jsonl:{tmp_path}/gone.jsonl")
        assert not lib.alerts_run("broken")[0]["ok"]
        report = lib.alerts_digest()
        assert report["sent"] and report["to"] == ["ana@lab.example"]
        assert report["alerts"] == ["broken", "folding"] and report["failed"] == ["broken"]
        assert report["candidates"] == 3
        (got,) = server.messages
        mail = parsed(got.data)
        assert mail["Subject"] == (
            "Prioris alerts 2026-12-06: 3 new papers (folding 3), 1 alert failed"
        )
        text = mail.get_body(("plain",)).get_content()
        assert text.index("Denoising diffusion") < text.index("Moraine sediments")
        assert "https://arxiv.org/abs/2401.01234" in text and "why: Near: Protein folding" in text
        assert f"The last run failed at jsonl:{tmp_path}/gone.jsonl: not_found" in text
        # later than every run, and nothing failed since: no mail, unless asked
        lib.alerts_remove("broken")
        quiet = lib.alerts_digest(since="2026-12-07")
        assert not quiet["sent"] and quiet["text"] == "" and len(server.messages) == 1
        forced = lib.alerts_digest(since="2026-12-07", always=True, to=["ben@lab.example"])
        assert forced["sent"] and server.messages[1].rcpt_to == ["ben@lab.example"]
        assert "nothing new" in forced["subject"]
        # a dismissed candidate leaves the results: not news any more
        lib.alerts_dismiss("folding", "doi:10.5555/moraine")
        assert lib.alerts_digest(dry_run=True)["candidates"] == 2
        assert len(server.messages) == 2


def test_a_dry_run_needs_no_server_and_sending_needs_one(data_dir: Path, tmp_path: Path) -> None:
    with Library(load_settings(), embedder=FakeEmbedder(), now=lambda: NOW) as lib:
        stock(lib, tmp_path)
        report = lib.alerts_digest(dry_run=True)
        assert not report["sent"] and report["to"] == []
        assert "1. Denoising diffusion for protein backbones" in report["text"]
        with pytest.raises(ConfigurationError, match="PRIORIS_MCP_SMTP_HOST"):
            lib.alerts_digest(to=["ana@lab.example"])
        with pytest.raises(ConfigurationError, match="PRIORIS_MCP_SMTP_TO"):
            lib.alerts_digest()
        with pytest.raises(InvalidRequestError, match="recipient"):
            lib.alerts_digest(to=["ana@lab.example\r\nBcc: x@y.z"], dry_run=True)


def test_the_cli(
    server: SmtpServer,
    data_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prioris.embedding, "build_embedder", lambda settings: FakeEmbedder())
    with Library(load_settings(), embedder=FakeEmbedder()) as lib:
        stock(lib, tmp_path)
    assert main(["alerts", "digest", "--dry-run"]) == 0
    out, _ = capsys.readouterr()
    assert "== folding (3 new) ==" in out and server.messages == []
    for name, value in _smtp_env(server).items():
        monkeypatch.setenv(name, value)
    assert main(["alerts", "digest", "--to", "ben@lab.example", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["sent"] and report["to"] == ["ben@lab.example"]
    assert server.messages[0].rcpt_to == ["ben@lab.example"]
    assert main(["alerts", "digest", "--since", "2999-01-01"]) == 0
    assert "no mail sent" in capsys.readouterr().err and len(server.messages) == 1
