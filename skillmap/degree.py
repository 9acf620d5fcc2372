"""The lowest degree a posting requires: bachelor, master or phd."""
from __future__ import annotations

import re

from .sections import PREFERRED, SegmentIndex, effective_section

LEVELS = ("bachelor", "master", "phd")
# Abbreviations are case-sensitive ("MS" is a degree, "ms" a unit); words are not.
_PATTERNS = {
    "bachelor": re.compile(
        r"\b(?:[Bb]achelor'?s?|[Bb]accalaureate|undergraduate degree|BSc|BS|B\.S\.?|BA|B\.A\.|BEng|BE|B\.E\.|"
        r"B\.?Tech|BSEE|BSCS|BSCE|4-year degree|four-year degree)(?![\w])"),
    "master": re.compile(
        r"\b(?:[Mm]aster'?s?(?! of (?:ceremon|none))|MSc|MS|M\.S\.?|MEng|M\.Eng|M\.?Tech|MSEE|MSCS|"
        r"graduate degree)(?![\w])"),
    "phd": re.compile(r"(?:\bPh\.?\s?D\.?|\bPHD\b|\b[Dd]octorate\b|\b[Dd]octoral\b)"),
}
# "Master" alone can mean a skill ("master Kubernetes"): require degree context near it.
_DEGREE_CONTEXT = re.compile(r"degree|\bin\b|/|\bor\b|equivalent|\bBS\b|\bMS\b|Ph\.?D|field|"
                             r"engineering|science|required|preferred|with", re.I)


_ANY = re.compile("|".join(f"(?P<{level}>{p.pattern})" for level, p in _PATTERNS.items()))


def degree_mentions(index: SegmentIndex, text: str) -> list[tuple[str, str]]:
    """(level, section) for each degree mention."""
    found = []
    for m in _ANY.finditer(text):
        level = m.lastgroup
        seg = index.at(m.start())
        if seg is None:
            continue
        word = m.group(0)
        if word.lower().startswith("master") and not _DEGREE_CONTEXT.search(
                text, m.end(), min(seg.end, m.end() + 40)):
            continue
        if word == "BA" and "degree" not in seg.text.lower():
            continue
        found.append((level, effective_section(seg, m.start() - seg.start)))
    return found


def min_degree(index: SegmentIndex, text: str) -> str | None:
    """The lowest degree stated as a requirement; a degree only preferred is no requirement."""
    required = {level for level, section in degree_mentions(index, text) if section != PREFERRED}
    for level in LEVELS:
        if level in required:
            return level
    return None
