"""A posting's track: the text classifier's probabilities blended with the track weights of the
skills it names. A text that names no GPU-engineering skill gets no track."""
from __future__ import annotations

import math

import numpy as np

from .taxonomy import TRACKS

# Share of the text classifier in the blend; the rest comes from the taxonomy. Chosen by
# cross-validation on the corpus (python -m skillmap.evaluate).
TEXT_WEIGHT = 0.6
# What a mention adds to the taxonomy's vote: the responsibilities say as much about the track
# as the qualifications do; a wish says less.
NEED_WEIGHT = {"required": 1.0, "preferred": 0.5, "mentioned": 0.75}
# Categories that every kind of engineering job names: alone they say nothing about the track.
GENERAL_CATEGORIES = frozenset({"language", "fundamentals"})


def taxonomy_scores(skills: list[dict], taxonomy) -> np.ndarray:
    """Track distribution implied by the skills found."""
    if not skills:
        return np.full(len(TRACKS), 1 / len(TRACKS))
    weights = np.array([NEED_WEIGHT[entry.get("need") or ("required" if entry["required"] else "preferred")]
                        * (1 + math.log(entry.get("mentions", 1))) for entry in skills])
    vectors = np.array([taxonomy.get(entry["id"]).weight_tuple for entry in skills])
    total = weights @ vectors
    s = total.sum()
    return total / s if s > 0 else np.full(len(TRACKS), 1 / len(TRACKS))


def blend(text_proba: np.ndarray, skill_proba: np.ndarray, text_weight: float) -> np.ndarray:
    mixed = text_weight * text_proba + (1 - text_weight) * skill_proba
    return mixed / mixed.sum()


def has_gpu_content(skills: list[dict]) -> bool:
    """Whether the text names any skill beyond general languages and fundamentals."""
    return any(s["category"] not in GENERAL_CATEGORIES for s in skills)


def rounded_scores(scores: np.ndarray) -> dict[str, float]:
    """Track -> score rounded to 4 places, still summing to 1 (the remainder goes to the largest)."""
    tracks = {t: round(float(s), 4) for t, s in zip(TRACKS, scores)}
    top = max(tracks, key=tracks.get)
    tracks[top] = round(tracks[top] + 1.0 - sum(tracks.values()), 4)
    return tracks
