"""Claimed skills: what a candidate's own profile or résumé text says they know.

The same extractor as for postings reads it; nothing here is verified, and callers must keep
these claims apart from skills proven by graded work.
"""
from __future__ import annotations



def parse_profile(text: str) -> dict:
    """Skills named in the text (each with the sentence that names it), years and degree."""
    from .extract import read, skill_mentions  # spaCy on first use

    doc = read(text)
    skills = [{"id": s["id"], "name": s["name"], "category": s["category"],
               "evidence": s["evidence"][0]["text"] if s["evidence"] else None}
              for s in skill_mentions(doc)]
    return {"skills": skills, "years": doc.user_data["min_years"],
            "degree": highest_degree(doc.user_data["text"])}


def highest_degree(text: str) -> str | None:
    """The highest degree a profile names (a résumé lists what one holds, unlike a posting)."""
    from .degree import RANK, degree_matches

    levels = [level for level, _ in degree_matches(text)]
    return max(levels, key=RANK.get) if levels else None
