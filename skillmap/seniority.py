"""Seniority (junior, mid, senior, staff_principal) from the title, else the years asked; null
when neither says."""
from __future__ import annotations

import re

LEVELS = ("junior", "mid", "senior", "staff_principal")
_ROLE = r"(?:engineer|developer|architect|scientist|designer|analyst|specialist|technician|programmer|lead)"
_TITLE_RULES = (
    ("staff_principal", re.compile(
        r"\b(?:staff|principal|distinguished|fellow|chief|director|head of|vp|vice president|"
        r"sr\.? staff|senior staff)\b", re.I)),
    ("junior", re.compile(
        r"\b(?:intern(?:ship)?|co-?op|junior|jr\.?|entry[\s-]level|new (?:college )?grad(?:uate)?|"
        r"graduate|associate|apprentice|trainee|early career|university grad|student)\b", re.I)),
    ("senior", re.compile(r"\b(?:senior|sr\.?|lead|manager)\b", re.I)),
    # "Engineer II", "Engineer 2", "Level 3", "L4": numbered ladders.
    ("ladder", re.compile(rf"\b{_ROLE}\s*,?\s*(?P<roman>I{{1,3}}|IV|V)\b|\b{_ROLE}\s*,?\s*(?P<digit>[1-5])\b"
                          r"|\blevel\s*(?P<level>[1-5])\b|\(\s*L(?P<short>[1-7])\s*\)", re.I)),
    ("mid", re.compile(r"\b(?:mid[\s-]level|intermediate)\b", re.I)),
)
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5}
# Numbered ladders: 1 entry, 2 mid, 3 senior, 4 and above staff.
_LADDER = {1: "junior", 2: "mid", 3: "senior", 4: "staff_principal", 5: "staff_principal"}


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


def from_title(title: str | None) -> str | None:
    """The level a title names, or None."""
    if not title:
        return None
    for level, pattern in _TITLE_RULES:
        m = pattern.search(title)
        if m is None:
            continue
        if level != "ladder":
            return level
        if m.group("roman"):
            # A lone "I" in a title is the pronoun more often than a ladder step.
            number = _ROMAN[m.group("roman").lower()]
            if m.group("roman") == "I" and number == 1:
                continue
            return _LADDER[number]
        if m.group("short"):
            return _LADDER[min(5, max(1, int(m.group("short")) - 2))]  # Google-style L3 = entry
        return _LADDER[int(m.group("digit") or m.group("level"))]
    return None


def seniority(title: str | None, years: int | None) -> str | None:
    """The title decides when it names a level; otherwise the minimum years; else None."""
    return from_title(title) or from_years(years)
