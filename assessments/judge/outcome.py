"""A decided failure (`Outcome`), how a step raises it (`Decided`), and the scrubbing of the judge's own
paths from what candidates see (`Scrubber`). What a kind's child said or how it died becomes an
Outcome in the kind (the CuPy kind: kinds/cupy/faults.py)."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass

from .verdicts import Verdict


@dataclass
class Outcome:
    """A decided failure: verdict, one-line message, and optional longer text."""

    verdict: Verdict
    message: str
    details: str | None = None
    compile_log: str | None = None


class Decided(Exception):
    """Raised with the outcome that settles the run: the one way a step stops the judging of a
    test (or of the whole submission) once its verdict is known."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome)
        self.outcome = outcome

    def __str__(self) -> str:
        return self.outcome.message


class Scrubber:
    """Removes the judge's own paths from text shown to candidates."""

    def __init__(self, scratch: str | os.PathLike | None = None, repo_root: str | os.PathLike | None = None):
        pairs = []
        if scratch:
            pairs.append((str(scratch).rstrip("/") + "/", ""))
            pairs.append((str(scratch).rstrip("/"), "."))
        for p in sys.path:
            if p.endswith("site-packages"):
                pairs.append((p.rstrip("/") + "/", "<python>/"))
        if repo_root:
            pairs.append((str(repo_root).rstrip("/") + "/", "<judge>/"))
        pairs.append((sys.prefix.rstrip("/") + "/", "<python>/"))
        # Longest first so a path inside another is replaced whole.
        self._pairs = sorted(set(pairs), key=lambda kv: -len(kv[0]))

    def __call__(self, text: str | None) -> str | None:
        if not text:
            return text
        for old, new in self._pairs:
            text = text.replace(old, new)
        return text
