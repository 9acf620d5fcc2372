"""Split a posting into evidence units (lines and sentences) labelled by the section they stand in.

Postings say what is required and what is merely welcome through their headings ("Minimum
qualifications", "Nice to have") and sometimes inside a sentence ("CUDA is a plus").
"""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

REQUIRED, PREFERRED, OTHER = "required", "preferred", "other"

_BULLET = re.compile(r"^\s*(?:[-*•·▪◦‣–—>]+|\d{1,2}[.)]|[a-z][.)])\s+")
_PREFERRED_HEADING = re.compile(
    r"prefer|nice[\s-]*to[\s-]*have|bonus|\bplus(es)?\b|desir|good[\s-]*to[\s-]*have|ideal"
    r"|extra credit|stand out|set you apart|differentiat|additional (?:skills|qualif)"
    r"|would be (?:great|nice)|helpful|not required|optional", re.I)
_REQUIRED_HEADING = re.compile(
    r"minimum|required|requirements?\b|basic|must|qualifications|what you(?:'ll| will)? (?:need|bring)"
    r"|who you are|you (?:have|bring|are)|skills|experience|looking for|about you|essential"
    r"|what we need|what you need|competenc|background|profile|need to have|expect from you", re.I)
_NEUTRAL_HEADING = re.compile(
    r"responsibilit|what you(?:'ll| will) do|you will|about (?:the|us|our)|benefit|compensation|salary"
    r"|perks|the role|the team|overview|description|day[\s-]to[\s-]day|why (?:join|us)|mission"
    r"|location|equal opportunit|impact|duties|our (?:team|company|stack)|pay|how to apply", re.I)
# Sentence-level cues that make a mention optional whatever the section says.
PREFERRED_CUE = re.compile(
    r"\b(?:(?:is|are|would be|will be) (?:a )?(?:big |huge |strong )?(?:plus|bonus|advantage)"
    r"|a plus|nice[\s-]to[\s-]have|preferred|bonus|ideally|desirable|not required|optional)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    text: str
    section: str  # required | preferred | other


def heading_kind(line: str) -> str | None:
    """The section kind a heading line opens, or None when the line is not a heading."""
    stripped = line.strip().lstrip("#").strip().strip("*_").strip()
    if not stripped:
        return None
    label, colon, rest = stripped.partition(":")
    words = label.split()
    looks_like_heading = (
        line.lstrip().startswith("#")
        or (colon and len(words) <= 7 and not rest.strip())
        or (len(words) <= 6 and stripped.isupper() and any(c.isalpha() for c in stripped))
        or (len(words) <= 5 and not colon and not stripped.endswith((".", ",", ";")))
        or (colon and len(words) <= 4)  # inline "Preferred: CUDA, HIP"
    )
    if not looks_like_heading:
        return None
    if _PREFERRED_HEADING.search(label):
        return PREFERRED
    if _REQUIRED_HEADING.search(label):
        return REQUIRED
    if _NEUTRAL_HEADING.search(label) or line.lstrip().startswith("#") or stripped.isupper():
        return OTHER
    if colon and not rest.strip():
        return OTHER
    return None


def segments(text: str) -> list[Segment]:
    """Evidence units in document order, each with the section kind in force there."""
    out: list[Segment] = []
    section = OTHER
    pos = 0
    for line in text.splitlines(keepends=True):
        line_start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        if not body.strip():
            continue
        # A bulleted line is an item, never a heading ("- Slurm a plus" must not open a section).
        kind = None if _BULLET.match(body) and not body.lstrip().startswith("#") else heading_kind(body)
        if kind is not None:
            section = kind
        offset = line_start + (len(body) - len(body.lstrip()))
        content = body.strip()
        pieces = _SENTENCE_END.split(content) if len(content) > 160 else [content]
        cursor = offset
        for piece in pieces:
            at = text.find(piece, cursor)
            if at < 0:
                at = cursor
            out.append(Segment(at, at + len(piece), piece, section))
            cursor = at + len(piece)
    return out


class SegmentIndex:
    """Find the segment holding a character offset (binary search over segment starts)."""

    def __init__(self, segs: list[Segment]):
        self.segments = segs
        self._starts = [s.start for s in segs]

    def at(self, offset: int) -> Segment | None:
        i = bisect_right(self._starts, offset) - 1
        if i >= 0 and offset < self.segments[i].end:
            return self.segments[i]
        return None


_CLAUSE_BREAK = re.compile(r"[;!?]|\.(?:\s|$)")


def effective_section(segment: Segment, offset: int | None = None) -> str:
    """The segment's section, turned to preferred when the clause around `offset` says so.

    `offset` is relative to the segment; without it the whole segment is the clause.
    """
    text = segment.text
    if offset is not None:
        start = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, offset)), default=0)
        end = next((m.start() for m in _CLAUSE_BREAK.finditer(text, offset)), len(text))
        text = text[start:end]
    if PREFERRED_CUE.search(text):
        return PREFERRED
    return segment.section
