"""The starter set of jobs `make run` loads, so a new user sees something at once."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from accounts.models import Organisation
from extensions import db
from skillmap.corpus import load_corpus

from .models import Job
from .service import create_job

EXAMPLES_ORGANISATION = "KernelPath examples"
# Where a checkout keeps the shared seed postings: beside the project, when there is one.
SEEDS_DIR = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _examples_organisation() -> Organisation:
    key = Organisation.key_for(EXAMPLES_ORGANISATION)
    org = db.session.scalar(select(Organisation).where(Organisation.name_key == key))
    if org is None:
        org = Organisation(name=EXAMPLES_ORGANISATION, name_key=key)
        db.session.add(org)
        db.session.commit()
    return org


def _seed_posting(seeds_dir: Path) -> tuple[str, str] | None:
    """The real GPU infrastructure posting among the seeds, when the seeds are beside the project."""
    for path in sorted(seeds_dir.glob("004_*.txt")):
        return "GPU Infrastructure Engineer", path.read_text(encoding="utf-8")
    return None


def load_starter(seeds_dir: str | Path | None = None) -> int:
    """Add the seed posting and the labelled corpus as jobs; returns how many were new."""
    seeds = Path(seeds_dir) if seeds_dir else SEEDS_DIR
    org = _examples_organisation()
    known = set(db.session.scalars(select(Job.source).where(Job.source.is_not(None))))
    added = 0
    seed = _seed_posting(seeds) if seeds.is_dir() else None
    if seed and "seed:004" not in known:
        create_job(org.id, seed[0], seed[1], location="United States", source="seed:004")
        added += 1
    for posting in load_corpus():
        source = f"corpus:{posting.id}"
        if source not in known:
            create_job(org.id, posting.title, posting.text, location=posting.location or None,
                       source=source)
            added += 1
    return added
