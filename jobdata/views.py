"""Job pages: the list with filters, one job's parse, and the recruiters' pages: their
organisation's jobs, posting a job from a pasted description (read, correct, save), editing
and deleting."""
from __future__ import annotations

import json

from flask import (Blueprint, abort, flash, redirect, render_template, request,
                   url_for)
from flask_login import current_user, login_required
from marshmallow import ValidationError

from accounts.models import Role
from refusals import NotFound, Refusal
from skillmap.parse import guess_title, parse_job
from web.errors import http_status
from web.inputs import int_value

from . import service
from .edits import corrections, effective
from .job_form import read_facts, read_filters, shown_facts
from .schemas import check_posting_text

bp = Blueprint("jobs_pages", __name__, url_prefix="/jobs")
PER_PAGE = 25
MAX_PAGE = 100_000   # the API's bound (JobQuerySchema.page)


@bp.route("/")
def index():
    filters, errors = read_filters(request.args)
    page, bad_page = int_value(request.args, "page", low=1, high=MAX_PAGE)
    if bad_page:
        errors["page"] = bad_page
    page = page or 1
    rows, total = ([], 0) if errors else service.list_jobs(**filters, page=page, per_page=PER_PAGE)
    args = {k: v for k, v in request.args.to_dict(flat=False).items() if k != "page"}
    return render_template("jobs/index.html", jobs=rows, total=total, page=page,
                           pages=(total + PER_PAGE - 1) // PER_PAGE, args=args,
                           form=request.args, errors=errors), (422 if errors else 200)


@bp.route("/<int:job_id>")
def detail(job_id):
    return render_template("jobs/detail.html", job=_job_or_404(job_id))


def _job_or_404(job_id: int):
    try:
        return service.get_job(job_id)
    except NotFound:
        abort(404)


def _recruiter():
    """The signed-in recruiter with an organisation, or 403."""
    if not (current_user.has_role(Role.RECRUITER) and current_user.organisation_id):
        abort(403)
    return current_user


def _own_job(job_id: int):
    job = _job_or_404(job_id)
    if not service.can_change(current_user, job):
        abort(404)  # another organisation's job: not theirs to know about from here
    return job


@bp.route("/mine")
@login_required
def mine():
    user = _recruiter()
    page = int_value(request.args, "page", low=1, high=MAX_PAGE)[0] or 1
    rows, total = service.list_jobs(organisation_id=user.organisation_id, page=page,
                                    per_page=PER_PAGE)
    return render_template("jobs/mine.html", jobs=rows, total=total, page=page,
                           pages=(total + PER_PAGE - 1) // PER_PAGE)


def _posting(form) -> tuple[dict, dict]:
    """Title, location and text from a form, checked like the API checks them."""
    posting = {"title": form.get("title", "").strip(), "location": form.get("location", "").strip(),
               "text": form.get("text", "")}
    errors = {}
    if not posting["title"]:
        errors["title"] = "give the job a title"
    elif len(posting["title"]) > 200:
        errors["title"] = "title must be at most 200 characters"
    if len(posting["location"]) > 200:
        errors["location"] = "location must be at most 200 characters"
    try:
        check_posting_text(posting["text"])
    except ValidationError as err:
        errors["text"] = "the description " + err.messages[0]
    return posting, errors


def _edit_page(template: str, posting: dict, facts: dict, parse: dict, errors: dict,
               job=None, status: int = 200, shown: dict | None = None):
    """The form shows `facts`; its hidden `shown` keeps what the form first showed (`shown`,
    else `facts`), so corrections made before a failed save still count as corrections."""
    baseline = shown if shown is not None else facts
    return render_template(template, posting=posting, facts=facts, parse=parse, errors=errors,
                           job=job, shown=json.dumps(baseline, sort_keys=True)), status


@bp.route("/new", methods=["GET", "POST"])
@login_required
def new():
    user = _recruiter()
    if request.method == "GET":
        return render_template("jobs/new.html", posting={}, errors={})
    posting, errors = _posting(request.form)
    if errors.keys() == {"title"} and request.form.get("step") != "back":
        # No title typed: the one the parser reads from the posting, if it finds one.
        guess = guess_title(posting["text"])
        if guess:
            posting["title"] = guess[:200]
            errors = {}
    if errors or request.form.get("step") == "back":
        return render_template("jobs/new.html", posting=posting, errors=errors), (422 if errors else 200)
    parse = parse_job(posting["text"], title=posting["title"])
    parsed = effective(parse, None)
    if request.form.get("step") != "save":  # first reading: show the parse to correct
        return _edit_page("jobs/review.html", posting, parsed, parse, {})
    facts, errors = read_facts(request.form)
    shown = shown_facts(request.form) or parsed
    if errors:
        return _edit_page("jobs/review.html", posting, {**shown, **_kept(facts, errors)}, parse,
                          errors, status=422, shown=shown)
    job = service.create_job(user.organisation_id, posting["title"], posting["text"],
                             location=posting["location"] or None, created_by=user,
                             overrides=corrections(facts, shown, parsed, None))
    flash(f"Saved “{job.title}”.", "ok")
    return redirect(url_for(".detail", job_id=job.id))


def _kept(facts: dict, errors: dict) -> dict:
    """The submitted facts minus the fields in error, shown back in the form."""
    return {k: v for k, v in facts.items() if k not in errors}


@bp.route("/<int:job_id>/edit", methods=["GET", "POST"])
@login_required
def edit(job_id):
    job = _own_job(job_id)
    facts_now = effective(job.parse, job.overrides)
    if request.method == "GET":
        posting = {"title": job.title, "location": job.location or "", "text": job.text}
        return _edit_page("jobs/edit.html", posting, facts_now, job.facts, {}, job=job)
    posting, errors = _posting(request.form)
    facts, fact_errors = read_facts(request.form)
    errors.update(fact_errors)
    shown = shown_facts(request.form) or facts_now
    if errors:
        return _edit_page("jobs/edit.html", posting, {**shown, **_kept(facts, errors)},
                          job.facts, errors, job=job, status=422, shown=shown)
    text_changed = posting["text"] != job.text or posting["title"] != job.title
    parsed = effective(parse_job(posting["text"], title=posting["title"]), None) \
        if text_changed else effective(job.parse, None)
    changes = {"title": posting["title"], "location": posting["location"] or None,
               "overrides": corrections(facts, shown, parsed, job.overrides)}
    if text_changed:
        changes["text"] = posting["text"]
    try:
        service.update_job(current_user, job.id, changes)
    except Refusal as err:
        abort(http_status(err))
    flash("Changes saved.", "ok")
    return redirect(url_for(".detail", job_id=job.id))


@bp.route("/<int:job_id>/delete", methods=["GET", "POST"])
@login_required
def delete(job_id):
    job = _own_job(job_id)
    if request.method == "GET":
        return render_template("jobs/delete.html", job=job)
    title = job.title
    service.delete_job(current_user, job.id)
    flash(f"Deleted “{title}”.", "ok")
    return redirect(url_for(".mine"))
