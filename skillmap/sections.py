"""Split a posting into evidence units (lines and sentences) labelled by the section they stand in,
and decide what a mention at a given place asks of the candidate.

Postings say what is required and what is merely welcome through their headings ("Minimum
qualifications", "Nice to have") and sometimes inside a sentence ("CUDA is a plus", "Bachelor's
required, Master's preferred"). The company introduction, the responsibilities and the benefits
name skills without asking for them.
"""
from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache

# Section kinds: a qualification heading, a "nice to have" heading, a heading that describes the
# company, the work or the offer, and no heading at all (or one that says nothing about need).
REQUIRED, PREFERRED, DESCRIPTIVE, OTHER = "required", "preferred", "descriptive", "other"
# What a mention asks of the candidate.
NEEDS = ("required", "preferred", "mentioned")
NEED_RANK = {"required": 2, "preferred": 1, "mentioned": 0}

_BULLET = re.compile(r"^\s*(?:[-*•·▪◦‣–—>]+|\d{1,2}[.)]|[a-z][.)])\s+")
_PREFERRED_HEADING = re.compile(
    r"prefer|nice[\s-]*to[\s-]*have|bonus|\bplus(es)?\b|desir|good[\s-]*to[\s-]*have|ideal(?:ly)?\b"
    r"|extra credit|stand out|set you apart|differentiat|additional (?:skills|qualif)"
    r"|would be (?:great|nice)|helpful|not required|optional|advantage", re.I)
# "The ideal candidate has" introduces requirements in practice, not wishes.
_IDEAL_CANDIDATE = re.compile(r"ideal candidate|ideal applicant", re.I)
_REQUIRED_HEADING = re.compile(
    r"minimum|required|requirements?\b|basic|must|qualifications|what you(?:'ll| will)? (?:need|bring)"
    r"|who you are|you (?:have|bring|are)|skills|experience|looking for|about you|essential"
    r"|what we need|what you need|competenc|background|profile|need to have|expect from you"
    r"|ideal candidate|your expertise|to succeed|you should have|education", re.I)
_DESCRIPTIVE_HEADING = re.compile(
    r"responsibilit|what you(?:'ll| will) (?:do|work on|own|build)|you will\b|you'll\b|about (?:us|our)"
    r"|about [A-Z]|who we are|benefit|compensation|salary|perks|\bwhy\b|mission|our story|culture"
    r"|equal opportunit|impact|duties|our (?:team|company|stack|culture|values)|\bpay\b|how to apply"
    r"|what we offer|we offer|day[\s-]to[\s-]day|key (?:tasks|activities)|in this role|your role"
    r"|the opportunity|location|life at|diversity|accommodation|total rewards", re.I)
_CONTEXT_HEADING = re.compile(r"the role|the team|overview|description|summary|position|job", re.I)
# Clause-level cues that override the section: the nearest cue after the mention decides, else the
# nearest before it ("Bachelor's required, Master's preferred"; "Preferred: CUDA").
_PREFERRED_CUE = (
    r"(?:is|are|would be|will be) (?:a )?(?:big |huge |strong |great |definite )?(?:plus|bonus|advantage)"
    r"|a plus|an advantage|advantageous|nice[\s-]to[\s-]have|good[\s-]to[\s-]have|preferred|preferably"
    r"|bonus|ideal|ideally|desirable|desired|not required|optional|helpful|a big plus|welcome")
_REQUIRED_CUE = r"required|requires?|mandatory|must(?: have)?|essential|minimum"
_CUE = re.compile(rf"\b(?:(?P<preferred>{_PREFERRED_CUE})|(?P<required>{_REQUIRED_CUE}))\b", re.I)
# In text under no qualification heading, a clause that speaks to the candidate asks for what it names.
_ASKS = re.compile(
    r"\b(?:you (?:have|bring|should|will need|need|possess|are (?:an? )?(?:expert|proficient|fluent|"
    r"comfortable|familiar|experienced))|you'(?:ve|ll need)|we(?:'re| are) (?:looking|seeking)|looking for"
    r"|seeking|candidates? (?:should|must|will|with)|applicants? (?:should|must|with)|ideal candidate"
    r"|experience (?:with|in|using|of|building|writing|designing)|experienced (?:in|with)|proficien"
    r"|expertise (?:in|with)|knowledge of|familiarity with|understanding of|background in|fluen(?:t|cy) in"
    r"|hands-on|track record|degree in|years of)", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z(\"'])")
_CLAUSE_BREAK = re.compile(r"[;!?]|\.(?:\s|$)")


@dataclass(frozen=True)
class Segment:
    start: int
    end: int
    text: str
    section: str  # required | preferred | descriptive | other
    bullet: bool = False


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
        or (len(words) <= 5 and not colon and not stripped.endswith((".", ",", ";")) and "," not in stripped)
        or (colon and len(words) <= 4)  # inline "Preferred: CUDA, HIP"
        or (len(words) <= 12 and stripped.endswith(":") and not rest.strip())  # "What you'll need to succeed in this role:"
    )
    if not looks_like_heading:
        return None
    if _PREFERRED_HEADING.search(label) and not _IDEAL_CANDIDATE.search(label):
        return PREFERRED
    if _REQUIRED_HEADING.search(label):
        return REQUIRED
    if _DESCRIPTIVE_HEADING.search(label):
        return DESCRIPTIVE
    if _CONTEXT_HEADING.search(label) or line.lstrip().startswith("#") or stripped.isupper():
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
        bullet = bool(_BULLET.match(body)) and not body.lstrip().startswith("#")
        # A bulleted line is an item, never a heading ("- Slurm a plus" must not open a section).
        kind = None if bullet else heading_kind(body)
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
            out.append(Segment(at, at + len(piece), piece, section, bullet))
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


@lru_cache(maxsize=64)
def _breaks(text: str) -> tuple[list[int], list[int]]:
    """Starts and ends of the clause breaks in a segment, found once per segment (a long
    line is asked about once per mention)."""
    found = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)]
    return [a for a, _ in found], [b for _, b in found]


def clause_bounds(text: str, offset: int) -> tuple[int, int]:
    """The clause of `text` around `offset`: between sentence or semicolon breaks."""
    starts, ends = _breaks(text)
    i = bisect_right(ends, offset)  # breaks that end at or before offset
    start = ends[i - 1] if i else 0
    j = bisect_left(starts, offset)  # first break starting at or after offset
    end = starts[j] if j < len(starts) else len(text)
    return start, end


@lru_cache(maxsize=64)
def _cues(text: str) -> tuple[list[int], list[int], list[str]]:
    """Starts, ends and kinds of the need cues in a segment, found once per segment."""
    found = [(m.start(), m.end(), "preferred" if m.group("preferred") else "required")
             for m in _CUE.finditer(text)]
    return [a for a, _, _ in found], [b for _, b, _ in found], [k for _, _, k in found]


@lru_cache(maxsize=64)
def _asks(text: str) -> list[int]:
    """Starts of the phrases that address the candidate, found once per segment."""
    return [m.start() for m in _ASKS.finditer(text)]


def clause_cue(text: str, offset: int, length: int = 0) -> str | None:
    """"required" or "preferred" when the clause says so about the words at `offset`: the first
    cue after them wins, else the last cue before them."""
    start, end = clause_bounds(text, offset)
    starts, ends, kinds = _cues(text)
    after = bisect_left(starts, offset + length)
    if after < len(starts) and starts[after] < end:
        return kinds[after]
    before = bisect_right(ends, offset) - 1
    if before >= 0 and starts[before] >= start:
        return kinds[before]
    return None


def need_at(segment: Segment, offset: int, length: int = 0, cue: str | None = None) -> str:
    """What a mention at `offset` (relative to the segment) asks: required, preferred or mentioned.
    `cue` is `clause_cue` for the mention when the caller has it already."""
    if cue is None:
        cue = clause_cue(segment.text, offset, length)
    if cue is not None:
        return cue
    if segment.section == REQUIRED:
        return "required"
    if segment.section == PREFERRED:
        return "preferred"
    if segment.section == OTHER:
        # Outside any heading: a list item, or a sentence addressed to the candidate, asks for it.
        start, end = clause_bounds(segment.text, offset)
        asks = _asks(segment.text)
        i = bisect_left(asks, start)
        if segment.bullet or (i < len(asks) and asks[i] < end):
            return "required"
    return "mentioned"


def effective_section(segment: Segment, offset: int = 0, length: int = 0, cue: str | None = None) -> str:
    """The section a mention at `offset` (relative to the segment) stands in, turned to PREFERRED
    or REQUIRED when its clause says so ("Bachelor's required, Master's preferred")."""
    if cue is None:
        cue = clause_cue(segment.text, offset, length)
    return {"preferred": PREFERRED, "required": REQUIRED}.get(cue, segment.section)
