"""A small SMTP server on 127.0.0.1 for the digest tests (the standard library has none
since Python 3.12): EHLO/HELO, STARTTLS, implicit TLS, AUTH PLAIN and LOGIN, MAIL, RCPT,
DATA (dot-unstuffed), RSET, NOOP, QUIT. It keeps what it received, with whether the
session was encrypted when the login and the message came, so a test can say a password
never travelled in clear."""

from __future__ import annotations

import base64
import shutil
import socketserver
import ssl
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass
class Received:
    mail_from: str
    rcpt_to: list[str]
    data: bytes
    encrypted: bool
    user: str | None


@dataclass
class SmtpServer:
    """Serves in a thread until :meth:`close`; ``messages`` and ``logins`` are appended."""

    starttls: ssl.SSLContext | None = None
    implicit_tls: ssl.SSLContext | None = None
    users: dict[str, str] | None = None
    refuse: set[str] = field(default_factory=set)
    messages: list[Received] = field(default_factory=list)
    logins: list[tuple[str, bool]] = field(default_factory=list)

    def __post_init__(self) -> None:
        owner = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                owner._session(self)

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- one connection ------------------------------------------------------------------
    def _session(self, handler: Any) -> None:
        sock = handler.connection
        encrypted = False
        if self.implicit_tls is not None:
            sock = self.implicit_tls.wrap_socket(sock, server_side=True)
            encrypted = True
        reader, writer = sock.makefile("rb"), sock.makefile("wb")

        def say(line: str) -> None:
            writer.write(line.encode() + b"\r\n")
            writer.flush()

        say("220 127.0.0.1 test SMTP ready")
        user: str | None = None
        mail_from, rcpts = "", []
        while True:
            raw = reader.readline(65536)
            if not raw:
                return
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            verb, _, rest = line.partition(" ")
            verb = verb.upper()
            if verb == "EHLO":
                caps = ["250-127.0.0.1 hello"]
                if self.starttls is not None and not encrypted:
                    caps.append("250-STARTTLS")
                if self.users is not None:
                    caps.append("250-AUTH PLAIN LOGIN")
                caps.append("250 8BITMIME")
                for cap in caps:
                    say(cap)
            elif verb == "HELO":
                say("250 127.0.0.1")
            elif verb == "STARTTLS" and self.starttls is not None and not encrypted:
                say("220 ready to start TLS")
                sock = self.starttls.wrap_socket(sock, server_side=True)
                reader, writer = sock.makefile("rb"), sock.makefile("wb")
                encrypted, user, mail_from, rcpts = True, None, "", []
            elif verb == "AUTH" and self.users is not None:
                user = self._auth(rest, reader, say, encrypted)
            elif verb == "MAIL":
                if self.users is not None and user is None:
                    say("530 authentication required")
                    continue
                mail_from, rcpts = rest.partition(":")[2].strip().strip("<>"), []
                say("250 sender ok")
            elif verb == "RCPT":
                address = rest.partition(":")[2].strip().strip("<>")
                if address in self.refuse:
                    say("550 no such user")
                    continue
                rcpts.append(address)
                say("250 recipient ok")
            elif verb == "DATA":
                say("354 end with <CRLF>.<CRLF>")
                lines = []
                while True:
                    got = reader.readline(1 << 20)
                    if not got or got in (b".\r\n", b".\n"):
                        break
                    lines.append(got[1:] if got.startswith(b"..") else got)
                self.messages.append(Received(mail_from, rcpts, b"".join(lines), encrypted, user))
                say("250 queued")
            elif verb in ("RSET", "NOOP"):
                say("250 ok")
            elif verb == "QUIT":
                say("221 bye")
                return
            else:
                say("502 not implemented")

    def _auth(self, rest: str, reader: Any, say: Any, encrypted: bool) -> str | None:
        mechanism, _, initial = rest.partition(" ")
        if mechanism.upper() == "PLAIN":
            if not initial:
                say("334 ")
                initial = reader.readline().decode().strip()
            _, name, secret = base64.b64decode(initial).decode().split("\0")
        elif mechanism.upper() == "LOGIN":
            if initial:
                name = base64.b64decode(initial).decode()
            else:
                say("334 " + base64.b64encode(b"Username:").decode())
                name = base64.b64decode(reader.readline().strip()).decode()
            say("334 " + base64.b64encode(b"Password:").decode())
            secret = base64.b64decode(reader.readline().strip()).decode()
        else:
            say("504 unknown mechanism")
            return None
        assert self.users is not None
        if self.users.get(name) != secret:
            say("535 authentication failed")
            return None
        self.logins.append((name, encrypted))
        say("235 authenticated")
        return name


def self_signed(folder: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """(server context, client context trusting it) for 127.0.0.1, made with openssl."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed here: no certificate for the TLS SMTP tests")
    key, cert = folder / "key.pem", folder / "cert.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(cert, key)
    client = ssl.create_default_context(cafile=str(cert))
    return server, client
