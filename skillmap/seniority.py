"""Seniority (junior, mid, senior, staff_principal) from the title, else the years asked."""
from __future__ import annotations

import re

LEVELS = ("junior", "mid", "senior", "staff_principal")
_TITLE_RULES = (
    ("staff_principal", re.compile(
        r"\b(?:staff|principal|distinguished|fellow|chief|director|head of|vp|vice president|"
        r"architect lead|sr\.? staff|senior staff)\b", re.I)),
    ("junior", re.compile(
        r"\b(?:intern(?:ship)?|co-?op|junior|jr\.?|entry[\s-]level|new (?:college )?grad(?:uate)?|"
        r"graduate|associate|apprentice|trainee|early career|university grad)\b", re.I)),
    ("senior", re.compile(r"\b(?:senior|sr\.?|lead|manager|iii|iv)\b", re.I)),
    ("mid", re.compile(r"\b(?:ii|mid[\s-]level|intermediate)\b", re.I)),
)


def from_years(years: int | None) -> str | None:
    if years is None:
        return None
    if years < 2:
        return "junior"
    if years < 5:
        return "mid"
    if years < 8:
        return "senior"
    return "staff_principal"


def seniority(title: str | None, years: int | None) -> str:
    """The title decides when it names a level; otherwise the minimum years; else mid."""
    for level, pattern in _TITLE_RULES:
        if title and pattern.search(title):
            return level
    return from_years(years) or "mid"
