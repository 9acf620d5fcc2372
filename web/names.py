"""Human names for the ids pages would otherwise show: tracks, levels, degrees, workplaces,
skills, skill categories. Jinja filters: `track_name`, `seniority_name`, `degree_name`,
`workplace_name`, `skill_name`, `category_name`."""
from __future__ import annotations

from functools import lru_cache

from flask import Flask

SENIORITY_NAMES = {"junior": "Junior", "mid": "Mid-level", "senior": "Senior",
                   "staff_principal": "Staff / principal"}
DEGREE_NAMES = {"bachelor": "Bachelor's", "master": "Master's", "phd": "PhD"}
WORKPLACE_NAMES = {"remote": "Remote", "hybrid": "Hybrid", "onsite": "On site"}


@lru_cache(maxsize=1)
def _taxonomy():
    from skillmap.taxonomy import load_taxonomy

    return load_taxonomy()


def track_names() -> dict[str, str]:
    return {track: entry.get("name", track) for track, entry in _taxonomy().tracks.items()}


def track_name(track: str | None) -> str:
    return track_names().get(track, "—") if track else "—"


def skill_name(skill_id: str) -> str:
    skill = _taxonomy().skills.get(skill_id)
    return skill.name if skill is not None else skill_id


def category_name(category: str | None) -> str:
    return _taxonomy().categories.get(category, category or "")


def init_app(app: Flask) -> None:
    app.add_template_filter(category_name, "category_name")
    app.add_template_filter(track_name, "track_name")
    app.add_template_filter(skill_name, "skill_name")
    app.add_template_filter(lambda v: SENIORITY_NAMES.get(v, "—") if v else "—", "seniority_name")
    app.add_template_filter(lambda v: DEGREE_NAMES.get(v, "—") if v else "—", "degree_name")
    app.add_template_filter(lambda v: WORKPLACE_NAMES.get(v, "—") if v else "—", "workplace_name")
    app.add_template_global(track_names, "track_names")
