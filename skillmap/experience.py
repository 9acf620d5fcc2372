"""Experience paths: the degree and years a posting asks for, as the alternatives it states.

"BS and 8+ years, or MS and 6+, or PhD and 3+" is three paths; the posting's `degree` and
`min_years` are the path with the lowest degree, so that the two describe one requirement (a
bachelor's holder with the PhD path's years does not qualify). Without paired alternatives the
posting has one path: its lowest required degree and its overall minimum years, the largest of
the years it requires ("5+ years, including 2+ with CUDA" asks for 5, not 2).
"""
from __future__ import annotations

import re
from bisect import bisect_left

from .degree import RANK, degree_matches, is_student_context
from .sections import DESCRIPTIVE, PREFERRED, REQUIRED, SegmentIndex, effective_section
from .years import year_mentions

# Where one alternative ends and the next begins: "..., or MS", "; or 6+ years with", a line "OR ...".
# A bare comma or semicolon separates alternatives only after a stretch holding both a degree and years.
_SEPARATOR = re.compile(r"(?:(?:[,;]\s*|\s+)(?P<alt>\bor\b|/)|[,;])\s*(?=(?:\(?an?\s+)?(?:[A-Z]|\d|"
                        r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen)\b))", re.I)


def _dominated(path: dict, paths: list[dict]) -> bool:
    years = path["min_years"] or 0
    return any(other is not path
               and RANK[other["degree"]] <= RANK[path["degree"]]
               and (other["min_years"] or 0) <= years
               and (RANK[other["degree"]], other["min_years"] or 0) != (RANK[path["degree"]], years)
               for other in paths)


class _Positions:
    """Sorted offsets of mentions, for counting those inside a range in O(log n)."""

    def __init__(self, mentions: list[tuple]):
        ordered = sorted(mentions, key=lambda m: m[-1])
        self.at = [m[-1] for m in ordered]
        self.items = ordered

    def within(self, lo: int, hi: int) -> list[tuple]:
        return self.items[bisect_left(self.at, lo):bisect_left(self.at, hi)]

    def any_within(self, lo: int, hi: int) -> bool:
        return bisect_left(self.at, lo) < bisect_left(self.at, hi)


def _chunks(text: str, offset: int, years: _Positions, degrees: _Positions) -> list[tuple[int, int]]:
    """Split text (starting at `offset` in the posting) where an alternative begins after a
    stretch that already states years ("..., or MS"; "8+ years with a BS, 6+ with an MS")."""
    out, start = [], 0
    for m in _SEPARATOR.finditer(text):
        if m.start() <= start:
            continue
        lo, hi = offset + start, offset + m.start()
        if years.any_within(lo, hi) and (m.group("alt") or degrees.any_within(lo, hi)):
            out.append((lo, hi))
            start = m.end()
    out.append((offset + start, offset + len(text)))
    return out


def experience(index: SegmentIndex, text: str) -> dict:
    """{"paths": [{degree, min_years}], "degree": ..., "min_years": ...} for the posting."""
    years = [(y, s, at) for y, s, at in year_mentions(index, text) if s != PREFERRED]
    degrees = []
    for level, m in degree_matches(text):
        seg = index.at(m.start())
        if seg is None or is_student_context(seg.text):
            continue
        section = effective_section(seg, m.start() - seg.start)
        if section != PREFERRED:
            degrees.append((level, section, m.start()))
    # Descriptive sections (the company, the work, the offer) speak of degrees and years only when
    # nothing else does; qualification sections win over text under no heading.
    years = _strongest(years)
    degrees = _strongest(degrees)

    found: set[tuple] = set()
    year_positions, degree_positions = _Positions(years), _Positions(degrees)
    holding = sorted({index.at(at) for _, _, at in years + degrees} - {None}, key=lambda s: s.start)
    for seg in holding:
        chunks = _chunks(seg.text, seg.start, year_positions, degree_positions)
        for a, b in chunks:
            ds = [level for level, _, _ in degree_positions.within(a, b)]
            ys = [y for y, _, _ in year_positions.within(a, b)]
            # A degree alone is a path of its own when it is one of several alternatives ("..., or PhD").
            if ds and (ys or len(chunks) > 1):
                found.add((min(ds, key=RANK.get), max(ys, default=None)))
    paths = [{"degree": d, "min_years": y} for d, y in found]
    if not paths and (years or degrees):
        paths = [{"degree": min((d for d, _, _ in degrees), key=RANK.get, default=None),
                  "min_years": max((y for y, _, _ in years), default=None)}]
    unique: list[dict] = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    paths = sorted((p for p in unique if not _dominated(p, unique)),
                   key=lambda p: (RANK[p["degree"]], p["min_years"] or 0))
    lowest = paths[0] if paths else {"degree": None, "min_years": None}
    return {"paths": paths, "degree": lowest["degree"], "min_years": lowest["min_years"]}


def _strongest(mentions: list[tuple]) -> list[tuple]:
    for kinds in ((REQUIRED,), (REQUIRED, "other"), (DESCRIPTIVE,)):
        chosen = [m for m in mentions if m[1] in kinds]
        if chosen:
            return chosen
    return []
