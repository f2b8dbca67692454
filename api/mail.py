"""E-mail to people (an asker whose handoff was answered) over SMTP, from ``DOCENT_SMTP_*``.

One connection per message: replies are rare and a pooled connection would outlive the
server's idle timeout. A failure is a value (the status stored on the handoff), never an
exception for the request that closed the handoff: the reply is saved either way and shows
in the asker's History.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Protocol

from docent.settings import Settings

log = logging.getLogger("docent.api.mail")
SMTP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Mail:
    to: str
    subject: str
    body: str


class Mailer(Protocol):
    def send(self, mail: Mail) -> str:
        """Send one message; the outcome in words (``sent``, ``failed: ...``)."""
        ...


def address_of(username: str, domain: str | None) -> str | None:
    """Where a user is mailed: a name that is an address as it is, else at ``domain``."""
    if "@" in username:
        return username
    return f"{username}@{domain.lstrip('@')}" if domain else None


class SmtpMailer:
    """Sends through the server ``DOCENT_SMTP_HOST`` names (STARTTLS and login as set)."""

    def __init__(self, settings: Settings) -> None:
        if not settings.smtp_host or not settings.smtp_from:
            raise ValueError("SmtpMailer needs DOCENT_SMTP_HOST and DOCENT_SMTP_FROM")
        self.host = settings.smtp_host
        self.port = settings.smtp_port
        self.sender = settings.smtp_from
        self.user = settings.smtp_user
        self.password = settings.smtp_password
        self.starttls = settings.smtp_starttls

    def message(self, mail: Mail) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self.sender
        message["To"] = mail.to
        message["Subject"] = mail.subject
        message.set_content(mail.body)
        return message

    def send(self, mail: Mail) -> str:
        try:
            with smtplib.SMTP(self.host, self.port, timeout=SMTP_TIMEOUT_S) as smtp:
                if self.starttls:
                    smtp.starttls(context=ssl.create_default_context())
                if self.user and self.password:
                    smtp.login(self.user, self.password.get_secret_value())
                smtp.send_message(self.message(mail))
        except (OSError, smtplib.SMTPException) as exc:
            log.warning("handoff reply e-mail failed", extra={"error_type": type(exc).__name__})
            return f"failed: {type(exc).__name__}"
        return "sent"


def mailer_for(settings: Settings) -> Mailer | None:
    """The configured mailer, or ``None`` when no SMTP server is set."""
    return SmtpMailer(settings) if settings.smtp_host else None
