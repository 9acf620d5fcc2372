"""Who fits a job, and which jobs fit a candidate: applications, ranking with reasons.

An organisation's recruiters see only the candidates who applied to one of its jobs or accepted
one of its assessment invitations. Scores and reasons come from `skillmap.match`; this module
gathers what it reads (verified skills from graded work, claims from the profile text) from the
database.
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from gpu_tasks import bank
from accounts.models import Role, User
from extensions import db
from jobdata.models import Job, JobApplication
from refusals import Conflict, Forbidden, NotFound
from skillmap.match import Candidate, CandidatePool, Job as MatchJob, match, rank
from skillmap.taxonomy import load_taxonomy
from skillmap.verified import DIFFICULTY_WEIGHT, verified_skills

from assessments.models import Assessment, AssessmentInvitation
from assessments.results import evidence_of

from .models import CandidateProfile

MAX_TOP = 100


def apply(user: User, job_id: int) -> tuple[JobApplication, bool]:
    """The candidate's application to a job, and whether it is new (applying twice is one)."""
    if not user.has_role(Role.CANDIDATE):
        raise Forbidden("only candidates apply to jobs")
    job = db.session.get(Job, job_id)
    if job is None:
        raise NotFound("no such job", field="job_id")
    if job.is_example:
        raise Conflict("this is an example job that ships with KernelPath, not an opening: "
                       "nobody receives applications to it", field="job_id")
    existing = _application(job_id, user.id)
    if existing is not None:
        return existing, False
    application = JobApplication(job_id=job_id, candidate_id=user.id)
    db.session.add(application)
    try:
        db.session.commit()
    except IntegrityError:  # the same candidate applying twice at once
        db.session.rollback()
        return _application(job_id, user.id), False
    return application, True


def _application(job_id: int, candidate_id: int) -> JobApplication | None:
    return db.session.scalar(select(JobApplication).where(
        JobApplication.job_id == job_id, JobApplication.candidate_id == candidate_id))


def organisation_candidates(organisation_id: int) -> list[int]:
    """Candidates who applied to the organisation's jobs or were invited (and accepted) by it."""
    applied = select(JobApplication.candidate_id).join(Job).where(Job.organisation_id == organisation_id)
    invited = select(AssessmentInvitation.candidate_id).join(Assessment).where(
        Assessment.organisation_id == organisation_id, AssessmentInvitation.candidate_id.is_not(None))
    return sorted(set(db.session.scalars(applied)) | set(db.session.scalars(invited)))


def candidates_of(candidate_ids: list[int], evidence: dict | None = None) -> list[Candidate]:
    """What matching reads about each candidate: verified levels, claims, years, degree
    (`evidence`: results.evidence_of for these candidates, when the caller has it)."""
    evidence = evidence if evidence is not None else evidence_of(candidate_ids)
    profiles = {p.user_id: p for p in db.session.scalars(
        select(CandidateProfile).where(CandidateProfile.user_id.in_(candidate_ids)))}
    out = []
    for cid in candidate_ids:
        verified = {v["skill"]: v["level"] for v in verified_skills(evidence.get(cid, ([], set()))[0])}
        claims = (profiles[cid].claimed or {}) if cid in profiles else {}
        out.append(Candidate(cid, verified=verified,
                             claimed=frozenset(s["id"] for s in claims.get("skills", [])),
                             years=claims.get("years"), degree=claims.get("degree")))
    return out


def practice_map() -> dict[str, list[tuple[str, float]]]:
    """Skill id -> the tasks that evidence it, with what a full-score solution proves."""
    out: dict[str, list[tuple[str, float]]] = {}
    for slug, task in bank.tasks().items():
        for skill in task.skills:
            out.setdefault(skill, []).append((slug, DIFFICULTY_WEIGHT.get(task.difficulty, 0.5)))
    return out


def _identities(ids) -> dict[int, dict]:
    """Name, e-mail and display name of each candidate: for the recruiters of an organisation
    the candidates applied to or were invited by (organisation_candidates) only."""
    return {u.id: u.identity() for u in db.session.scalars(select(User).where(User.id.in_(list(ids))))}


def ranked_candidates(reader: User, job_id: int, top: int = 10) -> dict:
    """The job's organisation's candidates, best first, each with the reasons for the score."""
    job = db.session.get(Job, job_id)
    allowed = job is not None and (reader.has_role(Role.ADMIN) or (
        reader.has_role(Role.RECRUITER) and reader.organisation_id == job.organisation_id))
    if not allowed:
        raise NotFound("no such job", field="job_id")
    ids = organisation_candidates(job.organisation_id)
    evidence = evidence_of(ids)
    candidates = candidates_of(ids, evidence)
    tax = load_taxonomy()
    target = MatchJob.from_parse(job.facts)
    best = rank(CandidatePool.build(candidates, tax), target, top=min(top, MAX_TOP))
    by_id = {c.id: c for c in candidates}
    who = _identities(cid for cid, _ in best)     # all of them the organisation's candidates
    applied = set(db.session.scalars(select(JobApplication.candidate_id).where(JobApplication.job_id == job_id)))
    practice = practice_map()
    return {
        "job_id": job_id,
        "title": job.title,
        "total": len(candidates),
        "candidates": [_with_review(dict(match(by_id[cid], target, tax, practice), **who[cid],
                                         applied=cid in applied),
                                    evidence.get(cid, ([], set(), []))[2])
                       for cid, _ in best],
    }


def _with_review(report: dict, held: list[dict]) -> dict:
    """A ranked candidate's reasons name the solutions held back for a similarity review (they
    add nothing to the score until a recruiter clears them)."""
    report["held_back"] = held
    for flag in held:
        report["reasons"].append({
            "kind": "review", "points": 0.0, "submission_id": flag["submission_id"],
            "other_id": flag["other_id"],
            "text": (f"held back for review: submission #{flag['submission_id']} ({flag['task']}) "
                     f"is {flag['similarity']:.0%} the same as earlier work by another candidate "
                     f"(#{flag['other_id']}); its skills count once a recruiter clears it")})
    return report


def best_jobs(reader: User, candidate_id: int, top: int = 10) -> dict:
    """The stored jobs that fit the candidate best, with the same reasons (the candidate only)."""
    if reader.id != candidate_id and not reader.has_role(Role.ADMIN):
        raise NotFound("no such candidate", field="candidate_id")
    candidate = candidates_of([candidate_id])[0]
    tax = load_taxonomy()
    practice = practice_map()
    jobs = list(db.session.scalars(select(Job).order_by(Job.id)))
    scored = [(match(candidate, MatchJob.from_parse(job.facts), tax, practice), job) for job in jobs]
    scored.sort(key=lambda pair: (-pair[0]["score"], pair[1].id))
    applied = set(db.session.scalars(select(JobApplication.job_id).where(
        JobApplication.candidate_id == candidate_id)))
    return {
        "candidate_id": candidate_id,
        "total": len(jobs),
        "jobs": [dict(report, job={"id": job.id, "title": job.title, "location": job.location,
                                   "organisation": job.organisation.name,
                                   "primary_track": job.primary_track, "example": job.is_example},
                      applied=job.id in applied)
                 for report, job in scored[:min(top, MAX_TOP)]],
    }


def match_report(reader: User, job_id: int, candidate_id: int) -> tuple[dict, Job]:
    """One candidate's report for one job: for the job's recruiters (a candidate of theirs) or
    the candidate."""
    job = db.session.get(Job, job_id)
    if job is None:
        raise NotFound("no such job", field="job_id")
    recruiter = reader.has_role(Role.ADMIN) or (
        reader.has_role(Role.RECRUITER) and reader.organisation_id == job.organisation_id
        and candidate_id in organisation_candidates(job.organisation_id))
    if not (recruiter or reader.id == candidate_id):
        raise NotFound("no such candidate", field="candidate_id")
    if db.session.get(User, candidate_id) is None:
        raise NotFound("no such candidate", field="candidate_id")
    candidate = candidates_of([candidate_id])[0]
    report = match(candidate, MatchJob.from_parse(job.facts), load_taxonomy(), practice_map())
    report.update(_identities([candidate_id])[candidate_id])
    return report, job
