"""Pages: invitations, assessments for recruiters and candidates."""
from __future__ import annotations

from datetime import datetime

from flask import Response, abort, flash, redirect, render_template, request, session, url_for
from flask_login import current_user, login_required
from sqlalchemy import select

from accounts import mail
from accounts.models import Role, utcnow
from extensions import db
from jobdata.models import Job
from refusals import Invalid, NotFound, Refusal
from web.errors import http_status
from web.inputs import int_value

from .. import catalog, results, service
from ..models import Submission, SubmissionKind, SubmissionStatus
from .base import _is_recruiter, _unstorable, bp

# ---- invitations --------------------------------------------------------------------------


NEW_INVITATION = "kp_new_invitation"   # session key: the invitation just made, shown once


@bp.route("/invitations/<token>", methods=["GET", "POST"])
def invitation(token):
    inv = service.invitation_for_token(token)  # not found or not yours: the 404 page
    error, status = None, 200
    if request.method == "POST":
        if not current_user.is_authenticated:
            return redirect(url_for("accounts.login", next=url_for(".invitation", token=token)))
        try:
            accepted = service.accept(current_user, token)
        except Refusal as err:
            if isinstance(err, NotFound):
                abort(404)
            error, status = err.message, http_status(err)
        else:
            return redirect(url_for(".assessment", assessment_id=accepted.assessment_id), 303)
    mine = current_user.is_authenticated and inv.candidate_id == current_user.id
    state = ("mine" if mine else "used" if inv.candidate_id is not None
             else "expired" if inv.expires_at < utcnow() else "open")
    if state != "open":
        error = None  # the page says it already: used, expired, or yours
    return render_template("assessments/invitation.html", inv=inv, assessment=inv.assessment,
                           state=state, error=error, token=token,
                           is_candidate=current_user.is_authenticated
                           and current_user.has_role(Role.CANDIDATE)), status


# ---- assessments --------------------------------------------------------------------------


def _org_jobs():
    return list(db.session.scalars(select(Job).where(
        Job.organisation_id == current_user.organisation_id).order_by(Job.title, Job.id)))


def _render_assessments(form: dict | None = None, error: Refusal | None = None,
                        status: int = 200):
    mine = service.list_for(current_user)
    if not _is_recruiter(current_user):
        entries = {a.id: service.entry_for(current_user, a) for a in mine}
        return render_template("assessments/index.html", recruiter=False, assessments=mine,
                               entries=entries, now=utcnow()), status
    jobs = _org_jobs()
    form = dict(form or {})
    job_id = form.get("job_id") or int_value(request.args, "job_id", low=1)[0] or (jobs[0].id if jobs else None)
    suggested = []
    if job_id:
        try:
            suggested = service.suggestions_for(current_user, job_id)
        except Refusal:
            job_id = jobs[0].id if jobs else None
    if "tasks" not in form:
        form["tasks"] = suggested
    form.setdefault("time_limit_minutes", 90)
    form.setdefault("backend", service.available_backends()[0])
    form.setdefault("title", "")
    form["job_id"] = job_id
    return render_template("assessments/index.html", recruiter=True, assessments=mine,
                           jobs=jobs, form=form, suggested=suggested,
                           all_tasks=catalog.all_summaries(),
                           backends=service.available_backends(), error=error), status


@bp.route("/assessments/", methods=["GET", "POST"])
@login_required
def assessments():
    if request.method == "GET":
        return _render_assessments()
    form = {"job_id": int_value(request.form, "job_id", low=1)[0],
            "tasks": request.form.getlist("tasks"),
            "time_limit_minutes": request.form.get("time_limit_minutes", "").strip(),
            "backend": request.form.get("backend", "cpu"),
            "title": request.form.get("title", "").strip()}
    if request.form.get("action") == "suggest":
        form.pop("tasks")  # tick the chosen job's suggestions
        return _render_assessments(form)
    try:
        if not form["job_id"]:
            raise Invalid("choose one of your organisation's jobs", field="job_id")
        try:
            minutes = int(form["time_limit_minutes"])
        except ValueError:
            raise Invalid("the time limit is a whole number of minutes",
                          field="time_limit_minutes") from None
        if len(form["tasks"]) > 10:
            raise Invalid("at most 10 tasks", field="tasks")
        if len(form["title"]) > 200:
            raise Invalid("the title is at most 200 characters", field="title")
        if _unstorable(form["title"]):
            raise Invalid("the title contains a NUL character", field="title")
        created = service.create(current_user, form["job_id"], form["tasks"], minutes,
                                 form["backend"], form["title"] or None)
    except Refusal as err:
        return _render_assessments(form, err, http_status(err))
    flash(f"Assessment “{created.title}” created. Invite candidates below.", "notice")
    return redirect(url_for(".assessment", assessment_id=created.id), 303)


def _candidate_progress(assessment) -> list[dict]:
    """The signed-in candidate's best result so far on each task of the assessment."""
    subs = list(db.session.scalars(select(Submission).where(
        Submission.assessment_id == assessment.id, Submission.user_id == current_user.id,
        Submission.kind == SubmissionKind.SUBMISSION.value).order_by(Submission.id)))
    rows = []
    for slug in assessment.tasks:
        mine = [s for s in subs if s.task == slug]
        done = [s for s in mine if s.status == SubmissionStatus.DONE.value]
        best = min(done, key=lambda s: (-(s.score or 0), s.id)) if done else None
        pending = sum(1 for s in mine if not SubmissionStatus(s.status).final)
        try:
            title = catalog.task_or_error(slug).title
        except catalog.UnknownTask:
            title = slug
        rows.append({"slug": slug, "title": title, "attempts": len(mine), "best": best,
                     "pending": pending, "latest": mine[-1] if mine else None})
    return rows


def _render_assessment(assessment, *, new_invitation: dict | None = None,
                       invite_error: Refusal | None = None, invite_email: str = "",
                       status: int = 200):
    job = db.session.get(Job, assessment.job_id) if assessment.job_id else None
    if _is_recruiter(current_user) and assessment.organisation_id == current_user.organisation_id:
        data = results.assessment_results(current_user, assessment.id)
        titles = {t["slug"]: t["title"] for t in catalog.all_summaries()}
        return render_template("assessments/recruiter.html", assessment=assessment, job=job,
                               results=data, titles=titles, now=utcnow(),
                               new_invitation=new_invitation, invite_error=invite_error,
                               invite_email=invite_email, mail_configured=mail.configured()), status
    entry = service.entry_for(current_user, assessment)
    return render_template("assessments/candidate.html", assessment=assessment, job=job,
                           entry=entry, rows=_candidate_progress(assessment),
                           closed=utcnow() > entry.deadline), status


@bp.route("/assessments/<int:assessment_id>")
@login_required
def assessment(assessment_id):
    found = service.visible_assessment(current_user, assessment_id)  # not found or not yours: the 404 page
    # The invitation just made (redirect after POST): shown once, on the page it led to.
    new = session.pop(NEW_INVITATION, None)
    if not (isinstance(new, dict) and new.get("assessment_id") == assessment_id):
        new = None
    else:
        new["expires_at"] = datetime.fromisoformat(new["expires_at"])
    return _render_assessment(found, new_invitation=new)


@bp.route("/assessments/<int:assessment_id>/finish", methods=["POST"])
@login_required
def finish(assessment_id):
    if request.form.get("confirm") != "yes":
        flash("Tick the box to confirm that you are done: nothing can be submitted afterwards.",
              "error")
        return redirect(url_for(".assessment", assessment_id=assessment_id) + "#finish", 303)
    try:
        service.finish(current_user, assessment_id)
    except NotFound:
        abort(404)
    flash("Assessment finished. Your best submissions are what the organisation sees.", "notice")
    return redirect(url_for(".assessment", assessment_id=assessment_id), 303)


@bp.route("/assessments/<int:assessment_id>/invitations", methods=["POST"])
@login_required
def invite(assessment_id):
    owned = service.owned_assessment(current_user, assessment_id)  # not found or not yours: the 404 page
    email = request.form.get("email", "").strip()
    try:
        if _unstorable(email):
            raise Invalid("enter the candidate's e-mail address, like ada@example.com",
                          field="email")
        invitation_row, token, url = service.invite(
            current_user, assessment_id, email,
            lambda t: url_for(".invitation", token=t, _external=True))
    except Refusal as err:
        if isinstance(err, NotFound):
            abort(404)
        return _render_assessment(owned, invite_error=err, invite_email=email, status=http_status(err))
    session[NEW_INVITATION] = {"assessment_id": assessment_id, "email": invitation_row.email,
                               "url": url, "emailed": invitation_row.emailed,
                               "expires_at": invitation_row.expires_at.isoformat()}
    return redirect(url_for(".assessment", assessment_id=assessment_id) + "#invite", 303)


@bp.route("/assessments/<int:assessment_id>/results.csv")
@login_required
def results_csv(assessment_id):
    data = results.assessment_results(current_user, assessment_id)  # not found or not yours: the 404 page
    return Response(results.results_csv(data), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="assessment-{assessment_id}-results.csv"'})
