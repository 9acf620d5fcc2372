"""Roadmaps for learners: a target (a track at a level, or a stored job), what the person has
verified or claims, the plan from `skillmap.roadmap`, the salary band, and saved plans whose
steps can be ticked off."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from sqlalchemy import func, select

import gpu_tasks
from accounts.models import User
from extensions import db
from jobdata.models import Job, JobSkill
from jobdata.salary import LEVELS, SENIORITY_LEVEL, TRACKS, salary_band
from jobdata.service import salary_postings
from skillmap.errors import Invalid, NotFound
from skillmap.profile import parse_profile
from skillmap.roadmap import build_roadmap, load_resources
from skillmap.taxonomy import load_taxonomy
from skillmap.verified import verified_skills

from .models import SavedRoadmap
from .results import evidence_of

CATALOG = Path(__file__).resolve().parents[1] / "jobdata" / "data" / "resources.toml"
# A track's target: the skills its stored postings require often enough.
REQUIRED_SHARE, PREFERRED_SHARE, MAX_TARGET_SKILLS = 0.2, 0.1, 20


@lru_cache(maxsize=1)
def catalog():
    return load_resources(CATALOG)


def practice_tasks() -> dict[str, list[str]]:
    """Skill id -> task slugs that evidence it, easiest first."""
    order = {"easy": 0, "medium": 1, "hard": 2}
    out: dict[str, list[str]] = {}
    for slug, task in sorted(gpu_tasks.TASKS.items(), key=lambda kv: (order.get(kv[1].difficulty, 3), kv[0])):
        for skill in task.skills:
            out.setdefault(skill, []).append(slug)
    return out


def track_target(track: str, level: str) -> tuple[list[tuple[str, str]], int]:
    """(skills with their need, postings counted) from the stored postings of a track: those at the
    level when there are any, else all of the track's."""
    seniorities = [s for s, lv in SENIORITY_LEVEL.items() if lv == level]
    jobs = select(Job.id).where(Job.primary_track == track)
    at_level = jobs.where(Job.seniority.in_(seniorities))
    if db.session.scalar(select(func.count()).select_from(at_level.subquery())):
        jobs = at_level
    total = db.session.scalar(select(func.count()).select_from(jobs.subquery())) or 0
    if not total:
        return [], 0
    counts = db.session.execute(
        select(JobSkill.skill_id, func.count()).where(JobSkill.job_id.in_(jobs), JobSkill.need == "required")
        .group_by(JobSkill.skill_id)).all()
    ranked = sorted(((sid, n / total) for sid, n in counts), key=lambda kv: (-kv[1], kv[0]))
    target = [(sid, "required" if share >= REQUIRED_SHARE else "preferred")
              for sid, share in ranked if share >= PREFERRED_SHARE][:MAX_TARGET_SKILLS]
    return target, total


def plan(user: User | None, data: dict) -> dict:
    """The roadmap for a request: target, level, location, profile text, hours per week."""
    target, level = data["target"], data.get("level") or "mid"
    if level not in LEVELS:
        raise Invalid(f"unknown level {level!r}; one of {', '.join(LEVELS)}", field="level")
    if target in TRACKS:
        skills, counted = track_target(target, level)
        track, about = target, {"kind": "track", "track": target, "postings": counted}
        if not skills:
            raise Invalid(f"no stored postings for {target} yet", field="target")
    elif str(target).isdigit():
        job = db.session.get(Job, int(target))
        if job is None:
            raise NotFound("no such job", field="target")
        skills = [(s["id"], s.get("need") or ("required" if s.get("required") else "preferred"))
                  for s in job.facts.get("skills", [])]
        track = job.primary_track
        about = {"kind": "job", "job_id": job.id, "title": job.title, "track": track}
        level = SENIORITY_LEVEL.get(job.seniority or "", level)
    else:
        raise Invalid(f"target must be a track ({', '.join(TRACKS)}) or a job id", field="target")
    verified: dict[str, float] = {}
    if user is not None and data.get("use_verified", True):
        evidence = evidence_of([user.id]).get(user.id, ([], set()))[0]
        verified = {v["skill"]: v["level"] for v in verified_skills(evidence)}
    claimed: frozenset = frozenset()
    text = data.get("profile_text") or ""
    if text.strip():
        claimed = frozenset(s["id"] for s in parse_profile(text)["skills"])
    resources, milestones = catalog()
    roadmap = build_roadmap(skills, load_taxonomy(), verified=verified, claimed=claimed,
                            hours_per_week=data.get("hours_per_week", 10), resources=resources,
                            practice=practice_tasks(), milestones=milestones, track=track)
    salary = salary_band(track, level, data.get("location"), postings=salary_postings()) if track else None
    return dict(roadmap, target=about, level=level, salary=salary,
                used={"verified": sorted(verified), "claimed": sorted(claimed)})


def save(user: User, data: dict) -> SavedRoadmap:
    """Compute and keep a roadmap for the user (the profile text itself is not stored)."""
    result = plan(user, data)
    saved = SavedRoadmap(user_id=user.id, target=str(data["target"]), level=result["level"],
                         plan=result, done=[])
    db.session.add(saved)
    db.session.commit()
    return saved


def owned(user: User, roadmap_id: int) -> SavedRoadmap:
    saved = db.session.get(SavedRoadmap, roadmap_id)
    if saved is None or saved.user_id != user.id:
        raise NotFound("no such roadmap", field="roadmap_id")
    return saved


def tick(user: User, roadmap_id: int, skill: str, done: bool) -> SavedRoadmap:
    saved = owned(user, roadmap_id)
    if skill not in {s["skill"] for s in saved.plan.get("steps", [])}:
        raise NotFound(f"{skill!r} is not a step of this roadmap", field="skill")
    marked = [s for s in saved.done if s != skill] + ([skill] if done else [])
    saved.done = marked
    db.session.commit()
    return saved


def mine(user: User) -> list[SavedRoadmap]:
    return list(db.session.scalars(select(SavedRoadmap).where(SavedRoadmap.user_id == user.id)
                                   .order_by(SavedRoadmap.id.desc())))


def delete(user: User, roadmap_id: int) -> None:
    db.session.delete(owned(user, roadmap_id))
    db.session.commit()
