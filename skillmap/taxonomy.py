"""Load and look up the GPU skill taxonomy (skillmap/data/taxonomy.toml)."""
from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

TRACKS = ("infrastructure", "hardware_design", "architecture_modeling", "software_optimization")
DEFAULT_PATH = Path(__file__).parent / "data" / "taxonomy.toml"


class TaxonomyError(ValueError):
    """The taxonomy file is inconsistent."""


@dataclass(frozen=True)
class Skill:
    id: str
    name: str
    category: str
    description: str
    aliases: tuple[str, ...]
    exact: tuple[str, ...]
    weights: dict = field(hash=False)
    requires: tuple[str, ...] = ()

    @property
    def weight_tuple(self) -> tuple[float, ...]:
        """The track weights in TRACKS order."""
        return tuple(float(self.weights.get(t, 0.0)) for t in TRACKS)

    def weight_vector(self) -> np.ndarray:
        return np.array(self.weight_tuple)

    @property
    def primary_track(self) -> str:
        return TRACKS[int(np.argmax(self.weight_vector()))]


@dataclass(frozen=True)
class Taxonomy:
    tracks: dict
    categories: dict
    skills: dict  # id -> Skill, in file order

    def __len__(self) -> int:
        return len(self.skills)

    def __contains__(self, skill_id: str) -> bool:
        return skill_id in self.skills

    def get(self, skill_id: str) -> Skill:
        return self.skills[skill_id]

    def prerequisites(self, skill_id: str) -> list[str]:
        """All transitive prerequisites of a skill, most basic first."""
        order: list[str] = []

        def visit(sid: str) -> None:
            for req in self.skills[sid].requires:
                if req not in order:
                    visit(req)
                    order.append(req)

        visit(skill_id)
        return order

    def weight_matrix(self) -> np.ndarray:
        """Skills x tracks weights, rows in `skills` order."""
        return np.vstack([s.weight_vector() for s in self.skills.values()])


def _check(tax: Taxonomy) -> None:
    for skill in tax.skills.values():
        if skill.category not in tax.categories:
            raise TaxonomyError(f"{skill.id}: unknown category {skill.category!r}")
        missing = [r for r in skill.requires if r not in tax.skills]
        if missing:
            raise TaxonomyError(f"{skill.id}: unknown prerequisites {missing}")
        if not (skill.aliases or skill.exact):
            raise TaxonomyError(f"{skill.id}: no surface form to match")
    state: dict[str, int] = {}

    def visit(sid: str, path: tuple) -> None:
        if state.get(sid) == 2:
            return
        if state.get(sid) == 1:
            raise TaxonomyError("prerequisite cycle: " + " -> ".join(path + (sid,)))
        state[sid] = 1
        for req in tax.skills[sid].requires:
            visit(req, path + (sid,))
        state[sid] = 2

    for sid in tax.skills:
        visit(sid, ())


@lru_cache(maxsize=4)
def load_taxonomy(path: str | Path = DEFAULT_PATH) -> Taxonomy:
    """Parse and validate the taxonomy file (cached per path)."""
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    skills: dict[str, Skill] = {}
    for entry in raw.get("skill", []):
        sid = entry["id"]
        if sid in skills:
            raise TaxonomyError(f"duplicate skill id {sid!r}")
        skills[sid] = Skill(
            id=sid,
            name=entry["name"],
            category=entry["category"],
            description=entry.get("description", ""),
            aliases=tuple(entry.get("aliases", ())),
            exact=tuple(entry.get("exact", ())),
            weights={t: float(entry.get("weights", {}).get(t, 0.0)) for t in TRACKS},
            requires=tuple(entry.get("requires", ())),
        )
    tax = Taxonomy(tracks=dict(raw.get("tracks", {})), categories=dict(raw.get("categories", {})),
                   skills=skills)
    _check(tax)
    return tax


def search_skills(taxonomy: Taxonomy, query: str | None, limit: int = 20) -> list[Skill]:
    """Skills whose name, id or an alias contains the query (case-insensitive): names starting
    with it first, then other name matches, then alias matches; in file order within each."""
    if not query or not query.strip():
        return list(taxonomy.skills.values())[:limit]
    needle = query.strip().lower()
    ranked = []
    for position, skill in enumerate(taxonomy.skills.values()):
        name = skill.name.lower()
        forms = [f.lower() for f in skill.aliases + skill.exact] + [skill.id.replace("_", " ")]
        if name.startswith(needle):
            rank = 0
        elif needle in name:
            rank = 1
        elif any(f.startswith(needle) for f in forms):
            rank = 2
        elif any(needle in f for f in forms):
            rank = 3
        else:
            continue
        ranked.append((rank, position, skill))
    return [skill for _, _, skill in sorted(ranked, key=lambda r: r[:2])][:limit]


def find_skill(taxonomy: Taxonomy, text: str) -> Skill | None:
    """The skill `text` names exactly: its id, its name or one of its aliases, any case."""
    wanted = " ".join(text.split()).lower()
    if not wanted:
        return None
    if wanted in taxonomy.skills:
        return taxonomy.skills[wanted]
    for skill in taxonomy.skills.values():
        if wanted in (skill.name.lower(), skill.id.replace("_", " ")) \
                or wanted in (f.lower() for f in skill.aliases + skill.exact):
            return skill
    return None
