"""A posting's text cut into pieces around the skill mentions its parse found, so a page can mark
every mention (the template escapes each piece; nothing here builds HTML)."""
from __future__ import annotations


def mention_spans(skills: list[dict]) -> list[tuple[int, int, dict]]:
    """(start, end, skill) for every mention; parses stored before offsets existed give their evidence."""
    spans = []
    for skill in skills or []:
        offsets = skill.get("offsets") or [[e["start"], e["end"]] for e in skill.get("evidence", [])]
        spans.extend((int(a), int(b), skill) for a, b in offsets)
    return sorted(spans, key=lambda s: (s[0], -s[1]))


def highlighted(text: str, skills: list[dict]) -> list[dict]:
    """[{"text", "skill"}] pieces in order; "skill" is None between mentions. Overlapping or
    out-of-range offsets (a text edited after its parse) are skipped, never mis-cut."""
    pieces, pos = [], 0
    for start, end, skill in mention_spans(skills):
        if start < pos or end > len(text) or start >= end:
            continue
        if start > pos:
            pieces.append({"text": text[pos:start], "skill": None})
        pieces.append({"text": text[start:end], "skill": skill})
        pos = end
    if pos < len(text):
        pieces.append({"text": text[pos:], "skill": None})
    return pieces


_ORDER = {"required": 0, "preferred": 1, "mentioned": 2}


def by_need(skills: list[dict]) -> list[dict]:
    """Skills with their need (parses stored before `need` existed have `required` only),
    required first, then preferred, then mentioned, each in reading order."""
    filled = [dict(s, need=s.get("need") or ("required" if s.get("required") else "preferred"))
              for s in skills or []]
    return sorted(filled, key=lambda s: _ORDER.get(s["need"], 3))


def init_app(app) -> None:
    app.jinja_env.filters["highlighted"] = highlighted
    app.jinja_env.filters["by_need"] = by_need
