"""Roadmaps for learners: a target (a track at a level, or a stored job), what the person has
verified or claims, the plan from `skillmap.roadmap`, the salary band, and saved plans whose
steps can be ticked off."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sqlalchemy import func, select

from gpu_tasks import bank
from accounts.models import User
from extensions import db
from jobdata.models import Job, JobSkill
from jobdata.salary import LEVELS, SENIORITY_LEVEL, TRACKS, salary_band
from jobdata.service import salary_postings
from refusals import Invalid, NotFound
from skillmap.profile import parse_profile
from skillmap.roadmap import build_roadmap, load_resources
from skillmap.taxonomy import load_taxonomy
from skillmap.verified import verified_skills

from assessments.results import evidence_of

from .models import SavedRoadmap

CATALOG = Path(__file__).resolve().parents[1] / "jobdata" / "data" / "resources.toml"
# A track's target: the skills its stored postings require often enough. A level needs
# MIN_POSTINGS postings to speak for itself (else its neighbouring levels join, then the whole
# track), and a skill needs MIN_SUPPORT of them to be in the target at all: one posting's words
# are never a requirement.
REQUIRED_SHARE, PREFERRED_SHARE, MAX_TARGET_SKILLS = 0.2, 0.1, 20
MIN_POSTINGS, MIN_SUPPORT = 15, 3


@lru_cache(maxsize=1)
def catalog():
    return load_resources(CATALOG)


def practice_tasks(track: str | None = None) -> dict[str, list[str]]:
    """Skill id -> task slugs that evidence it: those written for `track` first (Python for an
    RTL learner is practised on a testbench before a cache simulator), then easiest first."""
    out: dict[str, list[str]] = {}
    for slug, task in sorted(bank.tasks().items(), key=lambda kv: (
            track is not None and bank.track_of(kv[1]) != track,
            bank.DIFFICULTY_ORDER.get(kv[1].difficulty, 3), kv[0])):
        for skill in task.skills:
            out.setdefault(skill, []).append(slug)
    return out


@dataclass
class TrackTarget:
    """What a track's stored postings ask for at a level, and how many postings say so."""

    skills: list[tuple[str, str]]      # (skill id, required | preferred)
    postings: int                      # the postings counted
    levels: list[str]                  # the levels they were taken from
    widened: str | None                # None, "neighbouring levels" or "the whole track"
    support: dict[str, int]            # skill id -> postings that require it


def track_target(track: str, level: str) -> TrackTarget:
    """The target of a track at a level, from its stored postings: those at the level when there
    are MIN_POSTINGS of them, else with the neighbouring levels, else all of the track's."""
    i = LEVELS.index(level) if level in LEVELS else 1
    tries = [([level], None), (list(LEVELS[max(0, i - 1):i + 2]), "neighbouring levels"),
             (None, "the whole track")]
    for levels, widened in tries:
        jobs = select(Job.id).where(Job.primary_track == track)
        if levels is not None:
            seniorities = [s for s, lv in SENIORITY_LEVEL.items() if lv in levels]
            jobs = jobs.where(Job.seniority.in_(seniorities))
        total = db.session.scalar(select(func.count()).select_from(jobs.subquery())) or 0
        if total >= MIN_POSTINGS or levels is None:
            break
    if not total:
        return TrackTarget([], 0, [], None, {})
    counts = dict(db.session.execute(
        select(JobSkill.skill_id, func.count()).where(JobSkill.job_id.in_(jobs), JobSkill.need == "required")
        .group_by(JobSkill.skill_id)).all())
    ranked = sorted(((sid, n / total) for sid, n in counts.items() if n >= MIN_SUPPORT),
                    key=lambda kv: (-kv[1], kv[0]))
    skills = [(sid, "required" if share >= REQUIRED_SHARE else "preferred")
              for sid, share in ranked if share >= PREFERRED_SHARE][:MAX_TARGET_SKILLS]
    return TrackTarget(skills, total, levels or list(LEVELS), widened,
                       {sid: counts[sid] for sid, _ in skills})


def plan(user: User | None, data: dict) -> dict:
    """The roadmap for a request: target, level, location, profile text, hours per week."""
    target, level = data["target"], data.get("level") or "mid"
    if level not in LEVELS:
        raise Invalid(f"unknown level {level!r}; one of {', '.join(LEVELS)}", field="level")
    support: dict[str, int] = {}
    if target in TRACKS:
        found = track_target(target, level)
        skills, support = found.skills, found.support
        track, about = target, {"kind": "track", "track": target, "postings": found.postings,
                                "levels": found.levels, "widened": found.widened}
        if not skills:
            raise Invalid(f"too few stored postings for {target} to say what it asks for yet "
                          f"({found.postings}; a skill needs {MIN_SUPPORT} postings asking for it)",
                          field="target")
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
                            practice=practice_tasks(track), milestones=milestones, track=track)
    salary = salary_band(track, level, data.get("location"), postings=salary_postings()) if track else None
    for step in roadmap["steps"]:
        step["postings"] = support.get(step["skill"])
        if step["postings"] and about.get("postings"):
            step["why"] = step["why"].replace(
                "by the target", f"by {step['postings']} of the {about['postings']} postings", 1)
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
