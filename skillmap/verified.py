"""Verified skills from graded work: each accepted solution is evidence for the skills it shows.

A solution shows some of its task's skills (assessments.shown decides which). Its strength is
its score (0-100, correctness 60 plus up to 40 for measured GPU performance) times its task's
difficulty weight. A skill's level combines its evidence as independent proofs, 1 - prod(1 - s),
then is held below what the evidence can prove (`CAPS`): easy tasks alone stay foundational,
proficient needs a medium or hard task, and advanced needs a hard task plus a GPU timing or a
second hard task. A track's strength is drawn the same way from the tasks (not from the count
of skills they touch, which would count one solution many times).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from .taxonomy import TRACKS

DIFFICULTY_WEIGHT = {"easy": 0.5, "medium": 0.75, "hard": 1.0}
LEVELS = ((0.75, "advanced"), (0.45, "proficient"), (0.0, "foundational"))
# The most a level can be on the evidence behind it: just under the next level's floor.
BELOW_PROFICIENT, BELOW_ADVANCED = 0.44, 0.74
RULE = ("Levels: each accepted solution counts once per task (the best), weighted by the task's "
        "difficulty (easy 0.5, medium 0.75, hard 1) and its score (60 for correct, up to 100 with "
        "GPU performance); solutions add up as independent proofs. Easy tasks alone stay "
        "foundational; proficient needs a medium or hard task; advanced needs a hard task and "
        "either a GPU timing or a second hard task.")


@dataclass(frozen=True)
class Evidence:
    """One accepted solution: which task, its score, when, and the skills the task evidences."""

    submission_id: int
    task: str
    difficulty: str
    score: float
    skills: tuple[str, ...]             # the skills this solution shows (assessments.shown)
    at: datetime
    assessment_id: int | None = None
    timed: bool = False                 # graded with a GPU timing (performance points possible)

    @property
    def strength(self) -> float:
        return max(0.0, min(1.0, self.score / 100.0)) * DIFFICULTY_WEIGHT.get(self.difficulty, 0.5)


def level_name(value: float) -> str:
    return next(name for floor, name in LEVELS if value >= floor)


def _best_per_task(evidence: list[Evidence]) -> list[Evidence]:
    best: dict[str, Evidence] = {}
    for ev in evidence:
        kept = best.get(ev.task)
        if kept is None or (ev.score, -ev.submission_id) > (kept.score, -kept.submission_id):
            best[ev.task] = ev
    return list(best.values())


def cap(items: list[Evidence]) -> float:
    """The highest level this evidence can prove (see the module's rule)."""
    hard = {ev.task for ev in items if ev.difficulty == "hard"}
    if hard and (len(hard) >= 2 or any(ev.timed and ev.score > 60 for ev in items)):
        return 1.0
    if hard or any(ev.difficulty == "medium" for ev in items):
        return BELOW_ADVANCED
    return BELOW_PROFICIENT


def _combined(strengths, limit: float) -> float:
    remaining = 1.0
    for value in strengths:
        remaining *= 1.0 - max(0.0, min(1.0, value))
    return round(min(1.0 - remaining, limit), 3)


def verified_skills(evidence: list[Evidence]) -> list[dict]:
    """One entry per skill shown: level (0-1 and its name), the submissions behind it, the
    latest date.

    Only the best solution per task counts, so resubmitting one task cannot inflate a level.
    """
    by_skill: dict[str, list[Evidence]] = {}
    for ev in _best_per_task(evidence):
        for skill in ev.skills:
            by_skill.setdefault(skill, []).append(ev)
    out = []
    for skill, items in by_skill.items():
        level = _combined((ev.strength for ev in items), cap(items))
        out.append({
            "skill": skill,
            "level": level,
            "level_name": level_name(level),
            "verified_at": max(ev.at for ev in items),
            "evidence": [{"submission_id": ev.submission_id, "task": ev.task, "score": ev.score,
                          "assessment_id": ev.assessment_id, "at": ev.at}
                         for ev in sorted(items, key=lambda e: e.submission_id)],
        })
    return sorted(out, key=lambda s: (-s["level"], s["skill"]))


def verified_tracks(evidence: list[Evidence], weights) -> dict[str, float]:
    """Per track, how strongly graded work points at it (0-1): each task's best solution counts
    once, its strength times the mean weight its shown skills give the track (`weights(skill)`:
    the taxonomy's weight per track, in `tracks` order, or None for an unknown skill), combined
    as independent proofs and capped like a skill's level."""
    per_track: dict[str, list[tuple[float, Evidence]]] = {t: [] for t in TRACKS}
    for ev in _best_per_task(evidence):
        known = [w for w in (weights(s) for s in ev.skills) if w]
        if not known:
            continue
        for i, track in enumerate(TRACKS):
            share = sum(w[i] for w in known) / len(known)
            if share > 0:
                per_track[track].append((ev.strength * share, ev))
    return {track: _combined((v for v, _ in items), cap([ev for _, ev in items])) if items else 0.0
            for track, items in per_track.items()}
