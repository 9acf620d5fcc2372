"""An input refused with the field it concerns, shared by the pure modules and their callers."""
from __future__ import annotations


class FieldError(ValueError):
    """Bad input: a message a person can act on, and the field (API or form) it concerns."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message, self.field = message, field
