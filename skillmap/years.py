"""Years-of-experience mentions: `5+ years`, `3-5 yrs`, `three years`, `0-2 years`, `BS + 8 / MS + 5`."""
from __future__ import annotations

import re

from .sections import SegmentIndex, effective_section

_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "twenty": 20,
}
_NUM = r"(?:\d{1,2}(?:\.\d)?|" + "|".join(_WORDS) + r")"
# "5+ years", "3-5 yrs", "3 to 5 years", "three (3) years", "minimum of 7 years"
_YEARS = re.compile(
    rf"(?<![\w.$])(?P<low>{_NUM})(?:\s*\(\s*\d{{1,2}}\s*\))?\s*(?P<plus>\+|plus)?"
    rf"(?:\s*(?:-|–|—|to)\s*(?P<high>{_NUM})\s*\+?)?(?:\s*or (?:more|above|greater))?"
    r"\s*(?:\+\s*)?(?:full[\s-]time\s+|professional\s+|industry\s+|relevant\s+)?"
    r"(?P<unit>years?|yrs?\.?)(?![\w-])",
    re.I,
)
# A number followed by "years" that is not about the candidate's experience.
_NOT_EXPERIENCE_AFTER = re.compile(r"^\s*(?:ago|old|of age|in business|of (?:history|innovation|"
                                   r"growth|success|operation|leadership in))\b", re.I)
_NOT_EXPERIENCE_BEFORE = re.compile(r"(?:founded|for (?:over|more than|nearly|almost)|since|"
                                    r"the (?:past|last|next)|within|every|up to|after|first|over the|"
                                    r"multi-?|contract of|term of|duration of|period of)\s*$", re.I)
_DEG = (r"(?:BS(?:EE|CS|CE)?|B\.S\.?|B\.?Sc\.?|BE|B\.?Tech|B\.?Eng|MS(?:EE|CS|CE)?|M\.S\.?|M\.?Sc\.?"
        r"|M\.?Tech|M\.?Eng|PhD|Ph\.D\.?|bachelor'?s?|master'?s?|doctorate)")
# Degree alternatives whose later numbers drop the unit: "MS + 5", "6+ with an MS".
_ALTERNATIVE = re.compile(
    rf"\b{_DEG}\s*(?:\+|plus|and|with)\s*(?P<a>{_NUM})\b(?!\s*(?:%|k\b))"
    rf"|(?<![\w.$])(?P<b>{_NUM})\s*\+?\s*(?:years?|yrs?)?\s*(?:with|w/)\s*(?:an?\s+)?{_DEG}",
    re.I,
)


_UNIT = re.compile(r"(?i)\b(?:years?|yrs?)\b")


def _candidates(text: str):
    """_YEARS matches, searched only just before each "year"/"yrs": the number words make the
    full pattern costly to try at every position of a long posting."""
    last_end = 0
    for unit in _UNIT.finditer(text):
        m = _YEARS.search(text, max(last_end, unit.start() - 40), unit.end() + 1)
        if m is not None and m.end() >= unit.end():
            last_end = m.end()
            yield m


_HYPHEN_YEAR = re.compile(r"\s*-\s*year")
_ZERO_OK = re.compile(r"(?:minimum|at least|min\.?)(?: of)?\s*$", re.I)


def _value(token: str) -> float:
    token = token.lower()
    return float(_WORDS[token]) if token in _WORDS else float(token)


def year_mentions(index: SegmentIndex, text: str) -> list[tuple[int, str, int]]:
    """(years, section, offset) for each experience requirement found."""
    found = []
    with_years: dict[int, object] = {}
    for m in _candidates(text):
        seg = index.at(m.start())
        if seg is None:
            continue
        local = m.start() - seg.start
        after = seg.text[local + len(m.group(0)):local + len(m.group(0)) + 25]
        before = seg.text[max(0, local - 25):local]
        if _NOT_EXPERIENCE_AFTER.match(after) or _NOT_EXPERIENCE_BEFORE.search(before):
            continue
        if _HYPHEN_YEAR.match(seg.text, local + len(m.group("low"))):
            continue  # "4-year degree"
        years = _value(m.group("low"))
        if years > 30 or (years < 1 and not m.group("high") and not m.group("plus")
                          and not _ZERO_OK.search(before)):
            continue  # "0 years" alone is rarely a requirement; "0-2 years", "0+", "minimum of 0" are
        found.append((int(years), effective_section(seg, local), m.start()))
        with_years[seg.start] = seg
    for seg in with_years.values():
        for m in _ALTERNATIVE.finditer(seg.text):
            years = _value(m.group("a") or m.group("b"))
            if 0 <= years <= 30:
                found.append((int(years), effective_section(seg, m.start()), seg.start + m.start()))
    return found
