"""Job operations: parse, store, change, list. Each public function owns its transaction."""
from __future__ import annotations

from datetime import timezone

from sqlalchemy import func, or_, select

from accounts.models import Role, User
from extensions import db
from refusals import Forbidden, NotFound
from skillmap.parse import PARSER_VERSION, parse_job

from .edits import effective, yearly_salary
from .models import Job, JobSkill


def _apply_parse(job: Job) -> None:
    job.parse = parse_job(job.text, title=job.title)
    apply_facts(job)


def apply_facts(job: Job) -> None:
    """Copy the job's facts (parse and corrections, jobdata/edits.py) to its filter columns."""
    facts = effective(job.parse, job.overrides)
    job.primary_track = facts["primary_track"]
    job.seniority = facts["seniority"]
    job.min_years = facts["min_years"]
    job.degree = facts["degree"]
    job.workplace = facts["workplace"]
    job.salary_low, job.salary_high, job.salary_currency = yearly_salary(facts["salary"])
    wanted = facts["skills"]
    kept = [row for row in job.skills if row.skill_id in wanted]
    for row in kept:  # update rows in place: a replaced row with the same key fails to flush
        row.need, row.required = wanted[row.skill_id], wanted[row.skill_id] == "required"
    have = {row.skill_id for row in kept}
    job.skills = kept + [JobSkill(skill_id=sid, need=need, required=need == "required")
                         for sid, need in wanted.items() if sid not in have]


def reparse_jobs(all_jobs: bool = False, batch: int = 200) -> tuple[int, int]:
    """Parse stored jobs again with the current parser: those parsed by an older version, or
    all of them. Returns (re-parsed, total)."""
    total = db.session.scalar(select(func.count()).select_from(Job))
    done, last_id = 0, 0
    while True:
        jobs = db.session.scalars(select(Job).where(Job.id > last_id).order_by(Job.id).limit(batch)).all()
        if not jobs:
            break
        for job in jobs:
            if all_jobs or (job.parse or {}).get("parser_version") != PARSER_VERSION:
                _apply_parse(job)
                done += 1
        last_id = jobs[-1].id
        db.session.commit()
    return done, total


def create_job(organisation_id: int, title: str, text: str, location: str | None = None,
               created_by: User | None = None, source: str | None = None,
               overrides: dict | None = None) -> Job:
    job = Job(organisation_id=organisation_id, title=title, text=text, location=location,
              created_by_id=created_by.id if created_by else None, source=source,
              overrides=overrides or None)
    _apply_parse(job)
    db.session.add(job)
    db.session.commit()
    return job


def get_job(job_id: int) -> Job:
    job = db.session.get(Job, job_id)
    if job is None:
        raise NotFound("no such job", field="job_id")
    return job


def can_change(user: User, job: Job) -> bool:
    """Only the owning organisation's recruiters (and site administrators) change a job."""
    if user.has_role(Role.ADMIN):
        return True
    return user.has_role(Role.RECRUITER) and user.organisation_id == job.organisation_id


def update_job(user: User, job_id: int, changes: dict) -> Job:
    job = get_job(job_id)
    if not can_change(user, job):
        raise Forbidden("this job belongs to another organisation")
    for key in ("title", "location", "text"):
        if key in changes:
            setattr(job, key, changes[key])
    if "overrides" in changes:
        job.overrides = changes["overrides"] or None
    if "text" in changes or "title" in changes:
        _apply_parse(job)
    elif "overrides" in changes:
        apply_facts(job)
    db.session.commit()
    return job


def delete_job(user: User, job_id: int) -> None:
    job = get_job(job_id)
    if not can_change(user, job):
        raise Forbidden("this job belongs to another organisation")
    db.session.delete(job)
    db.session.commit()


def list_jobs(track: str | None = None, skill=None, q: str | None = None,
              organisation_id: int | None = None, seniority: str | None = None,
              workplace: str | None = None, location: str | None = None,
              min_salary: float | None = None, max_salary: float | None = None,
              currency: str = "USD", page: int = 1, per_page: int = 20):
    """A page of jobs, newest first, and the total count matching the filters.

    A salary filter keeps jobs posting pay in `currency` (per year) that reaches `min_salary`
    and starts at or below `max_salary`; jobs without posted pay do not match it."""
    query = select(Job)
    if track:
        query = query.where(Job.primary_track == track)
    if seniority:
        query = query.where(Job.seniority == seniority)
    if workplace:
        query = query.where(Job.workplace == workplace)
    if location:
        query = query.where(func.lower(Job.location).like(f"%{_escape_like(location)}%",
                                                          escape="\\"))
    if min_salary is not None or max_salary is not None:
        query = query.where(Job.salary_currency == currency)
        if min_salary is not None:
            query = query.where(Job.salary_high >= min_salary)
        if max_salary is not None:
            query = query.where(Job.salary_low <= max_salary)
    # Several skills: a job must name every one of them.
    for skill_id in ([skill] if isinstance(skill, str) else list(skill or ())):
        query = query.where(Job.id.in_(select(JobSkill.job_id).where(JobSkill.skill_id == skill_id)))
    if organisation_id:
        query = query.where(Job.organisation_id == organisation_id)
    if q:
        pattern = f"%{_escape_like(q)}%"
        query = query.where(or_(*(func.lower(column).like(pattern, escape="\\")
                                  for column in (Job.title, Job.text, Job.location))))
    total = db.session.scalar(select(func.count()).select_from(query.subquery()))
    rows = db.session.scalars(
        query.order_by(Job.created_at.desc(), Job.id.desc())
        .offset((page - 1) * per_page).limit(per_page)).all()
    return rows, total


def _escape_like(text: str) -> str:
    """Lower-cased, with LIKE wildcards escaped: a search for "50%" means the text "50%"."""
    return text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def salary_postings() -> list[dict]:
    """Stored jobs that post a salary, as the salary module reads them."""
    rows = db.session.execute(select(Job.id, Job.title, Job.primary_track, Job.seniority, Job.parse,
                                     Job.overrides, Job.created_at)).all()
    out = []
    for job_id, title, track, seniority, parse, overrides, created_at in rows:
        salary = effective(parse or {}, overrides)["salary"]
        if salary:
            if created_at is not None and created_at.tzinfo is None:
                created_at = created_at.replace(tzinfo=timezone.utc)  # stored as UTC
            out.append({"id": job_id, "title": title, "track": track, "seniority": seniority,
                        "salary": salary, "created_at": created_at})
    return out
