"""Submissions and sample runs: accept the source, queue it, let the right people read it."""
from __future__ import annotations

from sqlalchemy import select

from accounts.models import Role, User, utcnow
from extensions import db
from refusals import Conflict, Forbidden, Invalid, NotFound, TooLarge

from . import catalog, queue
from .models import Assessment, Submission, SubmissionKind, SubmissionStatus
from .service import check_backend, entry_for

MAX_SOURCE_BYTES = 64 * 1024


def _check_source(source: str) -> None:
    if not source.strip():
        raise Invalid("source is empty", field="source")
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise TooLarge(f"source is {size} bytes; at most {MAX_SOURCE_BYTES} bytes", field="source")


def _assessment_backend(user: User, assessment_id: int, task: str, kind: SubmissionKind) -> str:
    """The assessment's backend, after checking the candidate may submit this task to it now."""
    assessment = db.session.get(Assessment, assessment_id)
    entry = entry_for(user, assessment) if assessment else None
    if entry is None:
        raise NotFound("no such assessment among yours", field="assessment_id")
    if task not in assessment.tasks:
        raise Invalid(f"task {task!r} is not part of this assessment", field="task")
    if kind is SubmissionKind.SUBMISSION and utcnow() > entry.deadline:
        raise Forbidden("the assessment's time is up; submissions are closed", field="assessment_id")
    return assessment.backend


def _language(found, language: str | None) -> str | None:
    """The language to judge the source as, stored where the task takes several."""
    accepted = catalog.bank.languages_of(found)
    if language is not None and language not in accepted:
        raise Invalid(f"{found.slug} takes {' or '.join(accepted)}, not {language!r}", field="language")
    return (language or accepted[0]) if len(accepted) > 1 else None


def create(user: User, task: str, source: str, *, kind: SubmissionKind = SubmissionKind.SUBMISSION,
           assessment_id: int | None = None, backend: str | None = None,
           language: str | None = None) -> int:
    """Store the source and queue it (grading happens on a worker); returns its id."""
    try:
        found = catalog.task_or_error(task)
    except catalog.UnknownTask as err:
        raise Invalid(str(err), field="task") from None
    language = _language(found, language)
    _check_source(source)
    if assessment_id is not None:
        fixed = _assessment_backend(user, assessment_id, task, kind)
        if backend and backend != fixed and catalog.runs_on_gpu(found):
            raise Invalid(f"this assessment runs on the {fixed} backend", field="backend")
        backend = fixed
    else:
        backend = check_backend(backend or "cpu")
    if not catalog.runs_on_gpu(found):
        backend = "cpu"   # designs and testbenches simulate on any worker; no GPU to choose
    sub = Submission(user_id=user.id, task=task, source=source, kind=kind.value, backend=backend,
                     language=language,
                     assessment_id=assessment_id, status=SubmissionStatus.QUEUED.value)
    db.session.add(sub)
    db.session.flush()
    sub_id = sub.id  # read before the commit expires the row: no second query on this hot path
    db.session.commit()
    queue.enqueue(sub_id, backend)
    return sub_id


def _recruiter_of(user: User, sub: Submission) -> bool:
    return bool(sub.assessment_id and user.has_role(Role.RECRUITER) and user.organisation_id
                and sub.assessment.organisation_id == user.organisation_id)


def may_read(user: User, sub: Submission | None) -> bool:
    """Whether `user` may open this submission (see `readable`)."""
    return sub is not None and sub.kind == SubmissionKind.SUBMISSION.value and (
        sub.user_id == user.id or _recruiter_of(user, sub) or sub.public)


def readable(user: User, sub_id: int, kind: SubmissionKind = SubmissionKind.SUBMISSION) -> Submission:
    """The owner, the recruiters of the assessment's organisation, or anyone for a public
    solution may read it; everyone else gets 404, so ids reveal nothing."""
    sub = db.session.get(Submission, sub_id)
    if sub is not None and sub.kind == kind.value:
        if sub.user_id == user.id or (kind is SubmissionKind.SUBMISSION
                                      and (_recruiter_of(user, sub) or sub.public)):
            return sub
    raise NotFound(f"no such {kind.value}", field="id")


def set_public(user: User, sub_id: int, public: bool) -> Submission:
    """Put (or take back) an accepted practice solution on the task's leaderboard, its code
    public. Work done for an assessment stays between the candidate and the organisation."""
    sub = db.session.get(Submission, sub_id)
    if sub is None or sub.user_id != user.id or sub.kind != SubmissionKind.SUBMISSION.value:
        raise NotFound("no such submission", field="id")
    if public and sub.verdict != "accepted":
        raise Conflict("only an accepted solution can be made public", field="public")
    if public and sub.assessment_id is not None:
        raise Conflict("work for an assessment stays private to the organisation that set it; "
                       "practise the task to appear on its leaderboard", field="public")
    sub.public = public
    db.session.commit()
    return sub


def list_mine(user: User, task: str | None = None, kind: SubmissionKind = SubmissionKind.SUBMISSION,
              limit: int = 50) -> list[Submission]:
    query = select(Submission).where(Submission.user_id == user.id, Submission.kind == kind.value)
    if task:
        query = query.where(Submission.task == task)
    return list(db.session.scalars(query.order_by(Submission.id.desc()).limit(limit)))
