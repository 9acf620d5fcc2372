"""Listing text both sides agree on: the cap with its note, the counts the text report shows.

Pure functions of strings. The child caps what it sends (listing.py); the parent caps it again
whatever arrived (kernels.py) and counts lines and instructions for the text report (report.py).
"""
from __future__ import annotations

import re

CAP = 200 * 1024                 # bytes of one listing kept in the report
NOTE_CAP = 512
BUDGET_S = 30.0                  # all nvdisasm runs of one child
_INSTRUCTION = re.compile(r"^\s*/\*[0-9a-f]{4,}\*/[^;\n]*;", re.M)


def cap_text(text: str, limit: int = CAP, total: int | None = None) -> str:
    """`text` cut to `limit` bytes of UTF-8 on a line end, with a note saying how much was cut;
    `total` is the full size in bytes when `text` is already only the head of it."""
    data = text.encode("utf-8", errors="replace")
    total = max(total or 0, len(data))
    if total <= limit:
        return text
    kept = data[:limit].decode("utf-8", errors="ignore")
    kept = kept[:kept.rfind("\n") + 1] or kept
    cut = total - len(kept.encode("utf-8"))
    return f"{kept}... (listing cut: {cut} more bytes; {limit // 1024} KiB kept)\n"


def ptx_lines(text: str | None) -> int:
    """Lines of a PTX listing."""
    return len(text.splitlines()) if text else 0


def sass_instructions(text: str | None) -> int:
    """Instructions in an nvdisasm listing (`/*0040*/ IMAD R9, R9, UR4, R0 ;` lines)."""
    return len(_INSTRUCTION.findall(text)) if text else 0
