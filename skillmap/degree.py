"""Degree mentions (bachelor, master, phd) and the lowest degree a posting requires."""
from __future__ import annotations

import re
from functools import lru_cache


LEVELS = ("bachelor", "master", "phd")
RANK = {None: -1, "bachelor": 0, "master": 1, "phd": 2}
# Abbreviations are case-sensitive ("MS" is a degree, "ms" a unit); words are not.
_PATTERNS = {
    "bachelor": re.compile(
        r"\b(?:[Bb]achelor'?s?|[Bb]accalaureate|[Uu]ndergraduate degree|B\.?Sc\.?|BS|B\.S\.?|BA|B\.A\.|"
        r"B\.?Eng\.?|BE|B\.E\.|B\.?Tech\.?|BSEE|BSCS|BSCE|BSc[A-Z]{1,3}|BASc|"
        r"4-year degree|four-year degree)(?![\w])"),
    "master": re.compile(
        r"\b(?:[Mm]aster'?s?(?! of (?:ceremon|none))|M\.?Sc\.?|MS|M\.S\.?|M\.?Eng\.?|M\.?Tech\.?|MSEE|MSCS|"
        r"MSCE|MASc|[Gg]raduate degree)(?![\w])"),
    "phd": re.compile(r"(?:\bPh\.?\s?D\b\.?|\bPHD\b|\b[Dd]octorate\b|\b[Dd]octoral\b|\bD\.Phil\b)"),
}
# "Master" alone can mean a skill ("master Kubernetes"): require degree context near it.
_DEGREE_CONTEXT = re.compile(r"degree|\bin\b|/|\bor\b|equivalent|\bBS\b|\bMS\b|Ph\.?D|field|"
                             r"engineering|science|required|preferred|with|\+", re.I)
# Internships and co-ops for students: the degree is being pursued, not required.
STUDENT = re.compile(r"pursuing|currently enrolled|enrolled in|candidate for|working towards"
                      r"|expected (?:graduation|to graduate)|graduating|rising (?:senior|junior)"
                      r"|current(?:ly)? (?:an? )?(?:undergraduate|graduate|bachelor|master|phd|student)"
                      r"|\bstudents?\b|\binternships?\b|\bco-?op\b", re.I)


@lru_cache(maxsize=64)
def is_student_context(segment_text: str) -> bool:
    """Whether a line speaks of students (an internship's "pursuing a BS"), once per line."""
    return STUDENT.search(segment_text) is not None


_ANY = re.compile("|".join(f"(?P<{level}>{p.pattern})" for level, p in _PATTERNS.items()))


def degree_matches(text: str, start: int = 0, end: int | None = None):
    """(level, match) for each degree named in text[start:end]."""
    end = len(text) if end is None else end
    for m in _ANY.finditer(text, start, end):
        word = m.group(0)
        if word.lower() in ("master", "masters") and not _DEGREE_CONTEXT.search(
                text, m.end(), min(len(text), m.end() + 40)):
            continue
        if word in ("BA", "BE") and "degree" not in text[max(0, m.start() - 80):m.end() + 80].lower():
            continue
        yield m.lastgroup, m
