"""parse_job: a job description in, its GPU skill profile out.

spaCy is imported on the first parse, not with this module: the web app and the commands that
never parse start without it (the server builds the parser in a background thread).
"""
from __future__ import annotations

from .seniority import seniority
from .taxonomy import DEFAULT_PATH, TRACKS, load_taxonomy
from .tracks import TEXT_WEIGHT, blend, has_gpu_content, rounded_scores, taxonomy_scores
from .workplace import workplace

# Bump when the parse of the same text changes, so stored jobs can be parsed again.
PARSER_VERSION = 3


class ParseError(ValueError):
    """The text cannot be parsed as a posting."""


def guess_title(text: str) -> str | None:
    """The first line, when it is short enough to be a title."""
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip().strip("*_").strip()
        if line:
            return line if len(line.split()) <= 12 and not line.endswith(".") else None
    return None


_BLANK = " \t\r\n\f\v\ufeff\u200b\u200c\u200d\u00a0\u202f"


def is_blank(text: str) -> bool:
    """Whether the text holds nothing but white space, byte-order marks and zero-width characters."""
    return not text.strip(_BLANK)


def warm_up() -> None:
    """Build the pipeline and load the track model now rather than on the first parse."""
    parse_job("GPU engineer\nCUDA")


def _check(text) -> str:
    if not isinstance(text, str) or is_blank(text):
        raise ParseError("text is empty")
    return text


def parse_job(text: str, title: str | None = None) -> dict:
    """The posting's primary track, per-track scores, skills with evidence and need, experience
    paths, years, degree, salary and seniority."""
    from .extract import read

    return _result(read(_check(text)), text, title)


def parse_jobs(texts, titles=None, batch_size: int = 32):
    """parse_job over many texts through `nlp.pipe`, yielding results in order."""
    from .extract import read_many

    texts = [_check(t) for t in texts]
    titles = list(titles) if titles is not None else [None] * len(texts)
    for doc, text, title in zip(read_many(texts, batch_size=batch_size), texts, titles):
        yield _result(doc, text, title)


def _result(doc, text: str, title: str | None) -> dict:
    from .extract import skill_mentions
    from .shipped_model import default_model

    skills = skill_mentions(doc)
    heading = title or guess_title(doc.user_data["text"]) or ""
    # The title usually opens the text; only a separately given one needs its own tokens.
    features = doc if not title or text.lstrip("\ufeff \t\r\n").startswith(title) else title + "\n" + text
    text_proba = default_model().predict_proba([features])[0]
    scores = blend(text_proba, taxonomy_scores(skills, load_taxonomy(DEFAULT_PATH)), TEXT_WEIGHT)
    tracks = rounded_scores(scores)
    gpu = has_gpu_content(skills)
    years = doc.user_data["min_years"]
    return {
        "title": heading or None,
        # A text that names no GPU-engineering skill is not a posting of any track.
        "primary_track": max(tracks, key=tracks.get) if gpu else None,
        "track_confidence": round(float(max(scores)), 4) if gpu else 0.0,
        "tracks": tracks,
        "skills": skills,
        "experience_paths": doc.user_data["experience_paths"],
        "min_years": years,
        "degree": doc.user_data["degree"],
        "salary": doc.user_data["salary"],
        "seniority": seniority(heading or None, years),
        "workplace": workplace(text),
        "parser_version": PARSER_VERSION,
    }


__all__ = ["ParseError", "PARSER_VERSION", "TRACKS", "guess_title", "is_blank", "parse_job", "parse_jobs", "warm_up"]
