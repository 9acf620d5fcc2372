"""Outgoing e-mail through SMTP (the standard library), when an SMTP server is configured.

Settings: MAIL_SERVER (unset: no mail is sent), MAIL_PORT (25), MAIL_USE_TLS (STARTTLS),
MAIL_USERNAME / MAIL_PASSWORD, MAIL_FROM. A failed send is logged and reported to the
caller, never raised: whatever asked for the mail (an invitation) stands without it.
"""
from __future__ import annotations

import logging
import smtplib
from email.message import EmailMessage

from flask import current_app

log = logging.getLogger(__name__)


def configured() -> bool:
    return bool(current_app.config.get("MAIL_SERVER"))


def send(to: str, subject: str, body: str) -> bool:
    """Send a plain-text message; True when the server took it."""
    cfg = current_app.config
    if not configured():
        return False
    message = EmailMessage()
    message["From"] = cfg.get("MAIL_FROM") or "KernelPath <no-reply@kernelpath.invalid>"
    message["To"] = to
    message["Subject"] = subject
    message.set_content(body)
    try:
        with smtplib.SMTP(cfg["MAIL_SERVER"], int(cfg.get("MAIL_PORT") or 25), timeout=10) as smtp:
            if cfg.get("MAIL_USE_TLS"):
                smtp.starttls()
            if cfg.get("MAIL_USERNAME"):
                smtp.login(cfg["MAIL_USERNAME"], cfg.get("MAIL_PASSWORD") or "")
            smtp.send_message(message)
        return True
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("could not send mail to %s: %s", to, exc)
        return False
