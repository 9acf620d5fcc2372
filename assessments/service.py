"""Assessments and their invitations. Each public function owns its transaction."""
from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from datetime import timedelta

from flask import current_app
from sqlalchemy import select, update

from accounts import mail
from accounts.models import Role, User, utcnow
from extensions import db
from jobdata.models import Job
from refusals import Conflict, Forbidden, Gone, Invalid, NotFound

from . import catalog
from .models import Assessment, AssessmentInvitation, Backend

INVITATION_TTL = timedelta(days=14)
MIN_MINUTES, MAX_MINUTES = 5, 7 * 24 * 60
TOKEN_PREFIX = "kpa_"
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def available_backends() -> list[str]:
    """`cpu` always; `cuda` where the operator says GPU workers exist (KERNELPATH_GRADING_BACKENDS)."""
    configured = current_app.config.get("GRADING_BACKENDS", "cpu")
    names = configured if isinstance(configured, (list, tuple)) else str(configured).split(",")
    return [b.value for b in Backend if b.value in {n.strip() for n in names}] or ["cpu"]


def check_backend(backend: str, field: str = "backend") -> str:
    if backend not in available_backends():
        raise Invalid(
            f"backend {backend!r} has no workers here; use one of {', '.join(available_backends())}",
            field=field)
    return backend


def _recruiter(user: User) -> None:
    if not (user.has_role(Role.RECRUITER) and user.organisation_id):
        raise Forbidden("only an organisation's recruiters manage assessments")


def suggest_tasks(job: Job, limit: int = 3) -> list[str]:
    """Tasks covering the job's required skills best, then any of its skills."""
    skills = job.facts.get("skills", [])
    required = [s["id"] for s in skills if s.get("required")]
    track = job.primary_track
    return (catalog.tasks_for_skills(required, limit, track)
            or catalog.tasks_for_skills([s["id"] for s in skills], limit, track))


def _job_of_organisation(user: User, job_id: int) -> Job:
    job = db.session.get(Job, job_id)
    if job is None or job.organisation_id != user.organisation_id:
        raise NotFound("no such job in your organisation", field="job_id")
    return job


def suggestions_for(user: User, job_id: int) -> list[str]:
    _recruiter(user)
    return suggest_tasks(_job_of_organisation(user, job_id))


def create(user: User, job_id: int, tasks: list[str] | None, time_limit_minutes: int,
           backend: str = "cpu", title: str | None = None) -> Assessment:
    _recruiter(user)
    job = _job_of_organisation(user, job_id)
    check_backend(backend)
    if not MIN_MINUTES <= time_limit_minutes <= MAX_MINUTES:
        raise Invalid(f"the time limit is between {MIN_MINUTES} minutes and 7 days "
                      f"({MAX_MINUTES} minutes)", field="time_limit_minutes")
    if tasks:
        unknown = [t for t in tasks if catalog.bank.find(t) is None]
        if unknown:
            raise Invalid(f"unknown task {unknown[0]!r}", field="tasks")
        tasks = list(dict.fromkeys(tasks))
    else:
        tasks = suggest_tasks(job)
        if not tasks:
            raise Invalid("no task of the bank evidences this job's skills; name the tasks",
                          field="tasks")
    assessment = Assessment(organisation_id=user.organisation_id, job_id=job.id,
                            created_by_id=user.id, title=title or f"{job.title}: GPU assessment",
                            tasks=tasks, time_limit_minutes=time_limit_minutes, backend=backend)
    db.session.add(assessment)
    db.session.commit()
    return assessment


def visible_assessment(user: User, assessment_id: int) -> Assessment:
    """The assessment if the user's organisation owns it or the user was admitted to it; else 404."""
    assessment = db.session.get(Assessment, assessment_id)
    if assessment is not None:
        if user.organisation_id and assessment.organisation_id == user.organisation_id \
                and user.has_role(Role.RECRUITER):
            return assessment
        if entry_for(user, assessment) is not None:
            return assessment
    raise NotFound("no such assessment", field="assessment_id")


def owned_assessment(user: User, assessment_id: int) -> Assessment:
    assessment = db.session.get(Assessment, assessment_id)
    if assessment is None or not user.has_role(Role.RECRUITER) \
            or assessment.organisation_id != user.organisation_id:
        raise NotFound("no such assessment", field="assessment_id")
    return assessment


def list_for(user: User) -> list[Assessment]:
    """A recruiter's organisation's assessments, or those a candidate was admitted to."""
    if user.has_role(Role.RECRUITER) and user.organisation_id:
        query = select(Assessment).where(Assessment.organisation_id == user.organisation_id)
    else:
        query = select(Assessment).join(AssessmentInvitation).where(
            AssessmentInvitation.candidate_id == user.id)
    return list(db.session.scalars(query.order_by(Assessment.id.desc())).unique())


def entry_for(user: User, assessment: Assessment) -> AssessmentInvitation | None:
    """The candidate's accepted invitation to this assessment."""
    return db.session.scalar(select(AssessmentInvitation).where(
        AssessmentInvitation.assessment_id == assessment.id,
        AssessmentInvitation.candidate_id == user.id))


def finish(user: User, assessment_id: int) -> AssessmentInvitation:
    """The candidate ends their assessment now: nothing more is accepted after this moment, and
    the organisation sees when they finished."""
    assessment = db.session.get(Assessment, assessment_id)
    entry = entry_for(user, assessment) if assessment is not None else None
    if entry is None or entry.deadline is None:
        raise NotFound("no such assessment", field="assessment_id")
    now = utcnow()
    if entry.deadline > now:
        entry.deadline = now
        db.session.commit()
    return entry


def invite(user: User, assessment_id: int, email: str,
           link_for: Callable[[str], str]) -> tuple[AssessmentInvitation, str, str]:
    """A single-use invitation, e-mailed when SMTP is configured; returns it with its token and
    link (`link_for(token)`), shown once: only the token's hash is stored."""
    assessment = owned_assessment(user, assessment_id)
    email = email.strip().lower()
    if not EMAIL.match(email) or len(email) > 254:
        raise Invalid("enter the candidate's e-mail address, like ada@example.com",
                      field="email")
    token = TOKEN_PREFIX + secrets.token_urlsafe(24)
    invitation = AssessmentInvitation(assessment=assessment, email=email,
                                      token_hash=digest(token), invited_by_id=user.id,
                                      expires_at=utcnow() + INVITATION_TTL)
    db.session.add(invitation)
    db.session.commit()
    url = link_for(token)
    invitation.emailed = mail.send(
        email, f"Your GPU assessment: {assessment.title}",
        f"{assessment.organisation.name} invites you to a timed assessment of "
        f"{catalog.tasks_noun(assessment.tasks)}, {assessment.time_limit_minutes} minutes "
        f"from the moment you start.\n\nOpen it here: {url}\n\n"
        f"The link works once and expires on {invitation.expires_at:%Y-%m-%d}.")
    db.session.commit()
    return invitation, token, url


def invitation_for_token(token: str) -> AssessmentInvitation:
    invitation = db.session.scalar(select(AssessmentInvitation).where(
        AssessmentInvitation.token_hash == digest(token)))
    if invitation is None:
        raise NotFound("this invitation is unknown", field="token")
    return invitation


def accept(user: User, token: str) -> AssessmentInvitation:
    """The signed-in candidate takes the invitation; the clock starts now."""
    invitation = invitation_for_token(token)
    if invitation.candidate_id is not None:
        if invitation.candidate_id == user.id:
            return invitation  # opening the link again resumes, the clock keeps running
        raise Conflict("this invitation has been used", field="token")
    if invitation.expires_at < utcnow():
        raise Gone("this invitation has expired", field="token")
    if not user.has_role(Role.CANDIDATE):
        raise Forbidden("sign in as a candidate to take an assessment", field="token")
    if entry_for(user, invitation.assessment) is not None:
        raise Conflict("you have already started this assessment", field="token")
    now = utcnow()
    deadline = now + timedelta(minutes=invitation.assessment.time_limit_minutes)
    # Conditional, so two people opening the same link at once cannot both take it.
    taken = db.session.execute(
        update(AssessmentInvitation)
        .where(AssessmentInvitation.id == invitation.id, AssessmentInvitation.candidate_id.is_(None))
        .values(candidate_id=user.id, started_at=now, deadline=deadline)).rowcount
    db.session.commit()
    if not taken:
        raise Conflict("this invitation has been used", field="token")
    db.session.refresh(invitation)
    return invitation


def delete(user: User, assessment_id: int) -> None:
    db.session.delete(owned_assessment(user, assessment_id))
    db.session.commit()
