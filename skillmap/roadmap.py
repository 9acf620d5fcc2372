"""A learning roadmap: the skills a target asks for that a person has not verified, with their
prerequisites, in an order that never puts a skill before what it builds on, grouped into the
four phases of seed 000 (foundations, GPU fundamentals, specialisation, portfolio), with time
estimates, resources, practice tasks and milestones.

Pure: the caller passes the target's skills, what the person has verified or claims, the
resource catalog and the task bank's skills.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from refusals import Invalid
from .taxonomy import Taxonomy

PHASES = ("foundations", "gpu_fundamentals", "specialisation", "portfolio")
PHASE_NAMES = {"foundations": "Foundations", "gpu_fundamentals": "GPU fundamentals",
               "specialisation": "Specialisation", "portfolio": "Portfolio"}
# A skill verified at this level or above is known: the plan never recommends it.
KNOWN_LEVEL = 0.45
# Hours to learn a skill to a working level, by category (a claimed skill needs practice only).
HOURS = {"fundamentals": 30, "language": 30, "gpu_programming": 25, "libraries": 12, "profiling": 12,
         "interconnect": 15, "cluster_orchestration": 15, "observability": 10, "storage": 10,
         "hardware_design": 30, "verification": 25, "architecture_modeling": 30, "ml_systems": 20}
CLAIMED_HOURS = 4
RESOURCES_PER_STEP = 3
TASKS_PER_STEP = 2
# Categories that are foundations whatever their track weights say.
_FOUNDATION_CATEGORIES = frozenset({"fundamentals", "language"})


class RoadmapError(Invalid):
    """A roadmap request the plan cannot be made from."""


@dataclass(frozen=True)
class Resource:
    id: str
    title: str
    kind: str
    url: str
    cost: str
    skills: tuple
    why: str


def _phase_of(skill, depth: int) -> str:
    if skill.category in _FOUNDATION_CATEGORIES:
        return "foundations"
    # Skills others build on (shallow in the prerequisite graph) are the GPU fundamentals.
    return "gpu_fundamentals" if depth <= 2 and skill.category in (
        "gpu_programming", "profiling", "libraries") else "specialisation"


def _ordered(skill_ids: set[str], taxonomy: Taxonomy) -> list[str]:
    """Depth-first topological order: every skill after its prerequisites (ties by file order)."""
    order: list[str] = []
    seen: set[str] = set()
    position = {sid: i for i, sid in enumerate(taxonomy.skills)}

    def visit(sid: str) -> None:
        if sid in seen:
            return
        seen.add(sid)
        for req in sorted(taxonomy.get(sid).requires, key=position.get):
            if req in skill_ids:
                visit(req)
        order.append(sid)

    for sid in sorted(skill_ids, key=position.get):
        visit(sid)
    return order


def _depths(taxonomy: Taxonomy) -> dict[str, int]:
    depth: dict[str, int] = {}

    def walk(sid: str) -> int:
        if sid not in depth:
            depth[sid] = 0  # the taxonomy has no cycles (checked on load); guards recursion anyway
            depth[sid] = 1 + max((walk(r) for r in taxonomy.get(sid).requires), default=-1)
        return depth[sid]

    for sid in taxonomy.skills:
        walk(sid)
    return depth


def build_roadmap(target: list[tuple[str, str]], taxonomy: Taxonomy, *, verified: dict | None = None,
                  claimed=frozenset(), hours_per_week: float = 10, resources: list[Resource] = (),
                  practice: dict | None = None, milestones: list[dict] = (), track: str | None = None) -> dict:
    """The plan for `target` ((skill id, need) pairs, as a job's or a track's skills).

    `verified` maps skill id -> level (0-1) from graded work; `claimed` are skill ids from a
    profile (they stay in the plan as practice, since nothing has proven them); `practice` maps a
    skill id to task slugs that evidence it.
    """
    if not (isinstance(hours_per_week, (int, float)) and 1 <= hours_per_week <= 80):
        raise RoadmapError("hours_per_week must be between 1 and 80", "hours_per_week")
    verified = {k: float(v) for k, v in (verified or {}).items()}
    practice = practice or {}
    known = {sid for sid, level in verified.items() if level >= KNOWN_LEVEL}
    wanted = {sid: need for sid, need in target if sid in taxonomy}
    missing = {sid for sid in wanted if sid not in known}
    # Prerequisites come first, except what the person has verified and what their verified or
    # claimed skills build on (someone who claims C++ is not sent back to learn C).
    assumed = set(known)
    for sid in set(known) | set(claimed):
        if sid in taxonomy:
            assumed |= set(taxonomy.prerequisites(sid))
    needed = set(missing)
    for sid in missing:
        needed |= {req for req in taxonomy.prerequisites(sid) if req not in assumed}
    order = _ordered(needed, taxonomy)
    depth = _depths(taxonomy)

    phase: dict[str, int] = {}
    for sid in order:  # a skill's phase is never earlier than its prerequisites'
        own = PHASES.index(_phase_of(taxonomy.get(sid), depth[sid]))
        phase[sid] = max([own] + [phase[r] for r in taxonomy.get(sid).requires if r in phase])
    by_skill_resources: dict[str, list[Resource]] = {}
    for res in resources:
        for sid in res.skills:
            by_skill_resources.setdefault(sid, []).append(res)

    steps = []
    for sid in sorted(order, key=lambda s: (phase[s], order.index(s))):
        skill = taxonomy.get(sid)
        is_claimed = sid in claimed
        hours = CLAIMED_HOURS if is_claimed else HOURS.get(skill.category, 20)
        partial = verified.get(sid, 0.0)
        if partial and not is_claimed:
            hours = max(CLAIMED_HOURS, math.ceil(hours * (1 - partial)))
        dependents = [taxonomy.get(d).name for d in order
                      if sid in taxonomy.get(d).requires and d in needed][:3]
        if sid in wanted:
            why = f"{wanted[sid]} by the target"
        else:
            why = "a prerequisite of " + ", ".join(dependents) if dependents else "a prerequisite"
        if is_claimed:
            why += "; you claim it: verify it with a task" if practice.get(sid) else "; you claim it"
        steps.append({
            "skill": sid, "name": skill.name, "category": skill.category,
            "phase": PHASES[phase[sid]], "need": wanted.get(sid, "prerequisite"), "why": why,
            "claimed": is_claimed, "verified_level": round(partial, 3) if partial else None,
            "hours": hours,
            "requires": [r for r in skill.requires if r in needed],
            "resources": [{"title": r.title, "kind": r.kind, "url": r.url, "cost": r.cost, "why": r.why}
                          for r in by_skill_resources.get(sid, [])[:RESOURCES_PER_STEP]],
            "practice": [{"task": t, "url": f"/tasks/{t}"} for t in practice.get(sid, [])[:TASKS_PER_STEP]],
        })

    phases = []
    start_week = 0.0
    for name in PHASES:
        in_phase = [s for s in steps if s["phase"] == name]
        chosen = [m for m in milestones if m.get("phase") == name
                  and (m.get("track") is None or m.get("track") == track)]
        if not in_phase and not (chosen and steps):
            continue
        hours = sum(s["hours"] for s in in_phase)
        weeks = math.ceil(hours / hours_per_week) if hours else 0
        phases.append({"phase": name, "name": PHASE_NAMES[name], "hours": hours,
                       "start_week": int(start_week), "weeks": weeks,
                       "steps": [s["skill"] for s in in_phase],
                       "milestones": [{k: m[k] for k in ("kind", "title", "why") if k in m} for m in chosen]})
        start_week += weeks
    total_hours = sum(s["hours"] for s in steps)
    return {
        "gap": {
            "missing_required": [sid for sid in order if wanted.get(sid) == "required"],
            "missing_preferred": [sid for sid in order if wanted.get(sid) == "preferred"],
            "prerequisites": [sid for sid in order if sid not in wanted],
            "already_verified": sorted(sid for sid in wanted if sid in known),
        },
        "no_gap": not steps,
        "message": ("You have verified every skill this target asks for: nothing to learn here; "
                    "apply, or pick a more senior target." if not steps else None),
        "hours_per_week": hours_per_week,
        "total_hours": total_hours,
        "total_weeks": math.ceil(total_hours / hours_per_week) if total_hours else 0,
        "phases": phases,
        "steps": steps,
    }


def load_resources(path) -> tuple[list[Resource], list[dict]]:
    """The resource catalog and the milestones from a TOML file."""
    import tomllib

    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    resources = [Resource(id=r["id"], title=r["title"], kind=r["kind"], url=r["url"], cost=r["cost"],
                          skills=tuple(r["skills"]), why=r["why"]) for r in raw.get("resource", [])]
    return resources, list(raw.get("milestone", []))
