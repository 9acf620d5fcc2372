"""Verdicts a judged submission can end with."""
from __future__ import annotations

from enum import Enum


class Verdict(str, Enum):
    """One final verdict; stored as its string value."""

    ACCEPTED = "accepted"
    WRONG_ANSWER = "wrong_answer"
    COMPILE_ERROR = "compile_error"
    NOT_SYNTHESIZABLE = "not_synthesizable"   # hardware designs: a latch, a loop, `initial`, delays
    RUNTIME_ERROR = "runtime_error"
    TIME_LIMIT_EXCEEDED = "time_limit_exceeded"
    MEMORY_LIMIT_EXCEEDED = "memory_limit_exceeded"
    MEMORY_ERROR = "memory_error"
    RACE_DETECTED = "race_detected"
    SECURITY_VIOLATION = "security_violation"
    INTERNAL_ERROR = "internal_error"

    def __str__(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        """Human label, e.g. 'Wrong answer'."""
        return self.value.replace("_", " ").capitalize()


# Kernel-log incidents that may come from the candidate's code: anything else is refused so a
# forged incident cannot pick a verdict outside this set.
INCIDENT_VERDICTS = frozenset({
    Verdict.COMPILE_ERROR, Verdict.RUNTIME_ERROR, Verdict.TIME_LIMIT_EXCEEDED,
    Verdict.MEMORY_LIMIT_EXCEEDED, Verdict.MEMORY_ERROR, Verdict.RACE_DETECTED,
})


def parse(value: str | Verdict) -> Verdict:
    """Verdict from its string value (ValueError if unknown)."""
    return value if isinstance(value, Verdict) else Verdict(str(value))
