"""parse_job: a job description in, its GPU skill profile out."""
from __future__ import annotations

from .classify import TEXT_WEIGHT, blend, default_classifier, taxonomy_scores
from .extract import read, skill_mentions
from .seniority import seniority
from .taxonomy import DEFAULT_PATH, TRACKS, load_taxonomy


class ParseError(ValueError):
    """The text cannot be parsed as a posting."""


def guess_title(text: str) -> str | None:
    """The first line, when it is short enough to be a title."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line.split()) <= 12 and not line.endswith(".") else None
    return None


def parse_job(text: str, title: str | None = None) -> dict:
    """The posting's primary track, per-track scores, skills with evidence, years, degree, salary, seniority."""
    if not isinstance(text, str) or not text.strip():
        raise ParseError("text is empty")
    doc = read(text)
    skills = skill_mentions(doc)
    tax = load_taxonomy(DEFAULT_PATH)
    classifier = default_classifier()
    heading = title or guess_title(text) or ""
    # The title usually opens the text; only a separately given one needs its own tokens.
    features = doc if not title or text.lstrip().startswith(title) else title + "\n" + text
    text_proba = classifier.predict_proba([features])[0]
    scores = blend(text_proba, taxonomy_scores(skills, tax), TEXT_WEIGHT)
    tracks = {t: round(float(s), 4) for t, s in zip(TRACKS, scores)}
    # Rounding must not break "scores sum to 1": give the remainder to the largest.
    top = max(tracks, key=tracks.get)
    tracks[top] = round(tracks[top] + 1.0 - sum(tracks.values()), 4)
    years = doc.user_data["min_years"]
    return {
        "title": heading or None,
        "primary_track": top,
        "tracks": tracks,
        "skills": skills,
        "min_years": years,
        "degree": doc.user_data["degree"],
        "salary": doc.user_data["salary"],
        "seniority": seniority(heading, years),
    }
