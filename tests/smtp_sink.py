"""A real SMTP server on 127.0.0.1 (aiosmtpd, in its own thread) that keeps every message it
is sent: the vendor boundary of ``api.mail`` (not a test module)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


@dataclass
class SmtpSink:
    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if m["To"] == address]


class _Handler:
    def __init__(self, sink: SmtpSink) -> None:
        self.sink = sink

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        message = message_from_bytes(envelope.content, policy=policy.default)
        assert isinstance(message, EmailMessage)
        self.sink.messages.append(message)
        self.sink.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 OK"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def smtp_sink(login: tuple[str, str] | None = None) -> Iterator[SmtpSink]:
    """The sink on a free port; with ``login``, it takes AUTH (without TLS, on loopback) and
    accepts only that user name and password."""
    sink = SmtpSink("127.0.0.1", _free_port())

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> Any:
        if isinstance(data, LoginPassword):
            given = (data.login.decode(), data.password.decode())
            sink.logins.append(given)
            return AuthResult(success=given == login)
        return AuthResult(success=False)

    extra: dict[str, Any] = {}
    if login is not None:
        extra = {"authenticator": authenticate, "auth_require_tls": False, "auth_required": True}
    controller = Controller(_Handler(sink), hostname=sink.host, port=sink.port, **extra)
    controller.start()
    try:
        yield sink
    finally:
        controller.stop()
