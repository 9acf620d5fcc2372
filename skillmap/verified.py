"""Verified skills from graded work: each accepted solution is evidence for its task's skills.

A solution's strength is its score (0-100, correctness 60 plus up to 40 for measured GPU
performance) times its task's difficulty weight. A skill's level combines its evidence as
independent proofs, 1 - prod(1 - s): two solid solutions say more than one, and no pile of easy
ones reaches "advanced" without hard or timed work. A CPU-graded solution proves correctness
only (score 60), so "advanced" needs a timed GPU result or several hard tasks.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

DIFFICULTY_WEIGHT = {"easy": 0.5, "medium": 0.75, "hard": 1.0}
LEVELS = ((0.75, "advanced"), (0.45, "proficient"), (0.0, "foundational"))


@dataclass(frozen=True)
class Evidence:
    """One accepted solution: which task, its score, when, and the skills the task evidences."""

    submission_id: int
    task: str
    difficulty: str
    score: float
    skills: tuple[str, ...]
    at: datetime
    assessment_id: int | None = None

    @property
    def strength(self) -> float:
        return max(0.0, min(1.0, self.score / 100.0)) * DIFFICULTY_WEIGHT.get(self.difficulty, 0.5)


def level_name(value: float) -> str:
    return next(name for floor, name in LEVELS if value >= floor)


def verified_skills(evidence: list[Evidence]) -> list[dict]:
    """One entry per skill: level (0-1 and its name), the submissions behind it, the latest date.

    Only the best solution per task counts, so resubmitting one task cannot inflate a level.
    """
    best: dict[str, Evidence] = {}
    for ev in evidence:
        kept = best.get(ev.task)
        if kept is None or (ev.score, -ev.submission_id) > (kept.score, -kept.submission_id):
            best[ev.task] = ev
    by_skill: dict[str, list[Evidence]] = {}
    for ev in best.values():
        for skill in ev.skills:
            by_skill.setdefault(skill, []).append(ev)
    out = []
    for skill, items in by_skill.items():
        remaining = 1.0
        for ev in items:
            remaining *= 1.0 - ev.strength
        level = round(1.0 - remaining, 3)
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
