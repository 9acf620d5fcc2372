"""Refusals a person can act on, in the domain's words: what kind of refusal, a message, and the
field (API or form) it concerns. The pure modules and the services raise them; web/errors.py
alone turns a kind into an HTTP status. A module of its own, importing nothing of the project,
below every layer: accounts, jobs, assessments and the web layer say "not found" without
importing the language of skills."""
from __future__ import annotations


class Refusal(Exception):
    """An operation refused, with a message and the field at fault (None: the whole request)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


class Invalid(Refusal, ValueError):
    """The input breaks a rule."""


class TooLarge(Refusal):
    """The input is over a size limit."""


class Unauthenticated(Refusal):
    """The credentials are wrong."""


class Forbidden(Refusal):
    """The caller may not do this."""


class NotFound(Refusal, LookupError):
    """No such thing, or none the caller may know about."""


class Conflict(Refusal):
    """The thing's current state does not allow it (taken, used, exists already)."""


class Gone(Refusal):
    """It existed but has expired."""
