"""Pages: tasks, the task page with its editor, submissions, assessments, profiles.

Pages use the session (Flask-Login) and call the same services as the JSON API; they never
call the API over HTTP. A refused operation (AssessmentError) is a 404 page when its status
is 404, and otherwise a message in the page's form with the error's status. The task page's
Run and Submit work without JavaScript (a plain POST, then a redirect to the submission's
page); with it they post the same form with fetch and get JSON back.
"""
from __future__ import annotations

from datetime import datetime

from flask import (Blueprint, Response, abort, current_app, flash, jsonify, redirect,
                   render_template, request, url_for)
from flask_login import current_user, login_required
from markupsafe import Markup
from sqlalchemy import select

from accounts import mail
from accounts.models import Role, utcnow
from extensions import db, limiter
from jobdata.models import Job

from . import catalog, results, service, submissions
from .errors import AssessmentError
from .models import CandidateProfile, Submission, SubmissionKind, SubmissionStatus

bp = Blueprint("assessment_pages", __name__)

STYLE_LABELS = {
    "raw": ("Raw kernel", "cupy.RawKernel: the kernel in CUDA C++"),
    "elementwise": ("Elementwise", "cupy.ElementwiseKernel: one C++ expression per element"),
    "reduction": ("Reduction", "cupy.ReductionKernel: map, reduce and post-map expressions"),
    "jit": ("JIT", "cupyx.jit.rawkernel: the kernel written in Python"),
    "array": ("Array", "CuPy array expressions: CuPy generates the kernels"),
}

VERDICTS = {
    "accepted": ("Accepted", "good", "Every test passed."),
    "wrong_answer": ("Wrong answer", "bad", "An output differs from the reference."),
    "compile_error": ("Compile error", "warn", "A kernel did not compile."),
    "runtime_error": ("Runtime error", "bad", "The code raised an error or crashed."),
    "time_limit_exceeded": ("Time limit exceeded", "warn", "A test ran past its time limit."),
    "memory_limit_exceeded": ("Memory limit exceeded", "warn", "The code used too much memory."),
    "memory_error": ("Memory error", "bad", "A kernel accessed memory out of bounds."),
    "race_detected": ("Race detected", "bad", "Threads raced on shared or global memory."),
    "security_violation": ("Refused", "bad", "The code tried something the judge does not allow."),
    "internal_error": ("Judge error", "warn", "The judge could not finish; this is not your fault."),
}

STATUS_TEXT = {
    "queued": "Queued: waiting for a grader",
    "running": "Running",
    "done": "Done",
    "failed": "Grading failed",
}

MAX_TEXT_CHARS = 50_000


# ---- helpers ------------------------------------------------------------------------------


@bp.app_template_filter("kp_utc")
def _utc(value: datetime | None, fmt: str = "%Y-%m-%d %H:%M UTC") -> str:
    return value.strftime(fmt) if value else ""


@bp.app_template_filter("kp_iso")
def _iso(value: datetime | None) -> str:
    """A naive UTC datetime as ISO 8601 with a Z, for the page's scripts."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ") if value else ""


@bp.app_template_filter("kp_num")
def _num(value, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):  # "nan", "inf" from the report's JSON
        return value
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


bp.add_app_template_global(_num, "kp_num")


@bp.app_template_global("kp_minutes_left")
def minutes_left(deadline: datetime | None) -> int:
    if deadline is None:
        return 0
    return max(0, int((deadline - utcnow()).total_seconds() // 60))


@bp.app_template_filter("kp_bytes")
def _bytes(n) -> str:
    if n is None:
        return "?"
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


@bp.app_template_global("kp_verdict")
def verdict_info(verdict: str | None) -> dict:
    title, tone, text = VERDICTS.get(verdict or "", ((verdict or "no verdict").replace("_", " ")
                                                     .capitalize(), "warn", ""))
    return {"value": verdict, "title": title, "tone": tone, "text": text,
            "icon": {"good": "✓", "bad": "✗", "warn": "!"}[tone]}


@bp.app_template_global("kp_status_text")
def status_text(status: str) -> str:
    return STATUS_TEXT.get(status, status)


def _markdown(text: str, title: str | None = None) -> Markup:
    """A task statement as HTML: raw HTML off (escaped), tables on. Its headings move one level
    down under the page's <h1>, and a leading heading that repeats the title is dropped."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text or "")
    if (len(tokens) >= 3 and tokens[0].type == "heading_open" and title
            and tokens[1].content.strip().casefold() == title.strip().casefold()):
        tokens = tokens[3:]
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(6, int(token.tag[1]) + 1)}"
    return Markup(md.renderer.render(tokens, md.options, {}))


def _unstorable(text: str) -> bool:
    return "\x00" in text


def _wants_json() -> bool:
    best = request.accept_mimetypes.best_match(["text/html", "application/json"])
    return best == "application/json"


def _task_or_404(slug: str):
    try:
        return catalog.task_or_error(slug)
    except catalog.UnknownTask:
        abort(404)


def _is_recruiter(user) -> bool:
    return bool(user.is_authenticated and user.has_role(Role.RECRUITER) and user.organisation_id)


def _submit_rate() -> str:
    return current_app.config.get("SUBMISSION_RATE_LIMIT", "20/minute;300/hour")


def _user_key() -> str:
    if current_user.is_authenticated:
        return f"user:{current_user.id}"
    return f"ip:{request.remote_addr}"


def _sub_urls(sub_id: int, kind: SubmissionKind | str) -> tuple[str, str]:
    if SubmissionKind(kind) is SubmissionKind.RUN:
        return (url_for(".run", run_id=sub_id), url_for(".run_status", run_id=sub_id))
    return (url_for(".submission", sub_id=sub_id), url_for(".submission_status", sub_id=sub_id))


def _assessment_context(assessment_id: int | None, slug: str | None = None) -> dict | None:
    """The candidate's assessment around a task page: the assessment and their deadline.

    None when no assessment was asked for; 404 when the user cannot see it (or the task is not
    one of its tasks). A recruiter looking at the task from their own assessment gets the
    assessment without a deadline (they do not take it)."""
    if assessment_id is None:
        return None
    if not current_user.is_authenticated:
        return None  # the sign-in link keeps ?assessment= in its next
    try:
        assessment = service.visible_assessment(current_user, assessment_id)
    except AssessmentError:
        abort(404)
    if slug is not None and slug not in assessment.tasks:
        abort(404)
    entry = service.entry_for(current_user, assessment)
    return {"assessment": assessment, "entry": entry,
            "deadline": entry.deadline if entry else None,
            "closed": bool(entry and utcnow() > entry.deadline)}


# ---- tasks --------------------------------------------------------------------------------


@bp.route("/tasks/")
def tasks():
    return render_template("tasks/index.html", tasks=catalog.all_summaries())


def _render_task(slug: str, *, source: str | None = None, error: AssessmentError | None = None,
                 status: int = 200):
    task = _task_or_404(slug)
    detail = catalog.detail(task)
    assessment_id = request.values.get("assessment", type=int) or \
        request.values.get("assessment_id", type=int)
    context = _assessment_context(assessment_id, slug)
    starters = {s: code for s, code in detail["starters"].items() if code}
    style = request.args.get("style")
    mine = []
    if current_user.is_authenticated:
        mine = [s for s in submissions.list_mine(current_user, slug, limit=10)
                if (context is None or s.assessment_id == assessment_id)]
    if source is None:
        if style in starters:
            source = starters[style]
        elif mine:
            source = mine[0].source
        else:
            style = "raw" if "raw" in starters else next(iter(starters), None)
            source = starters.get(style, "") if style else ""
    if style not in starters or starters[style] != source:
        style = next((s for s, code in starters.items() if code == source), None)
    return render_template(
        "tasks/detail.html", task=detail, statement=_markdown(detail["statement"], detail["title"]),
        starters=starters, style=style, style_labels=STYLE_LABELS, source=source,
        context=context, mine=mine, error=error,
    ), status


@bp.route("/tasks/<slug>")
def task(slug):
    return _render_task(slug)


def _create(slug: str, kind: SubmissionKind):
    _task_or_404(slug)
    if not current_user.is_authenticated:
        if _wants_json():
            return jsonify(message="You are signed out: sign in (in another tab), then retry.",
                           field=None), 401
        return redirect(url_for("accounts.login", next=url_for(".task", slug=slug)))
    source = request.form.get("source", "")
    assessment_id = request.form.get("assessment_id", type=int)
    try:
        if _unstorable(source):
            raise AssessmentError("the source contains a NUL character", field="source")
        sub_id = submissions.create(current_user, slug, source, kind=kind,
                                    assessment_id=assessment_id)
    except AssessmentError as err:
        if _wants_json():
            return jsonify(message=err.message, field=err.field), err.status
        if err.status == 404:
            abort(404)
        return _render_task(slug, source=source, error=err, status=err.status)
    url, status_url = _sub_urls(sub_id, kind)
    if _wants_json():
        return jsonify(id=sub_id, kind=kind.value, status=SubmissionStatus.QUEUED.value, url=url,
                       status_url=status_url), 202
    return redirect(url, 303)


@bp.route("/tasks/<slug>/runs", methods=["POST"])
@limiter.limit(_submit_rate, key_func=_user_key)
def create_run(slug):
    return _create(slug, SubmissionKind.RUN)


@bp.route("/tasks/<slug>/submissions", methods=["POST"])
@limiter.limit(_submit_rate, key_func=_user_key)
def create_submission(slug):
    return _create(slug, SubmissionKind.SUBMISSION)


@bp.route("/tasks/<slug>/leaderboard")
def leaderboard(slug):
    task = _task_or_404(slug)
    backends = ["cuda", "cpu"]
    default = "cuda" if "cuda" in service.available_backends() else "cpu"
    backend = request.args.get("backend") if request.args.get("backend") in backends else default
    gpu = (request.args.get("gpu") or "").strip()[:120] or None
    board = results.leaderboard(slug, backend, gpu if backend == "cuda" else None)
    return render_template("tasks/leaderboard.html", task=catalog.summary(task), board=board,
                           backends=backends, backend=backend, gpu=gpu)


# ---- submissions and runs -----------------------------------------------------------------


def _readable_or_404(sub_id: int, kind: SubmissionKind) -> Submission:
    try:
        return submissions.readable(current_user, sub_id, kind)
    except AssessmentError:
        abort(404)


def _report_html(sub: Submission) -> str:
    return render_template("_report.html", sub=sub, report=sub.report or {})


def _status_json(sub: Submission):
    v = verdict_info(sub.verdict) if sub.verdict else None
    resp = jsonify(id=sub.id, status=sub.status, verdict=sub.verdict,
                   final=SubmissionStatus(sub.status).final,
                   title=(v["title"] if v else status_text(sub.status)),
                   html=_report_html(sub))
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _render_submission(sub: Submission, error: str | None = None, status: int = 200):
    try:
        task = catalog.summary(catalog.task_or_error(sub.task))
    except catalog.UnknownTask:
        task = {"slug": sub.task, "title": sub.task}
    status_url = _sub_urls(sub.id, sub.kind)[1]
    recruiter = bool(sub.assessment_id and _is_recruiter(current_user)
                     and sub.assessment.organisation_id == current_user.organisation_id)
    owner = sub.user_id == current_user.id
    return render_template("tasks/submission.html", sub=sub, report=sub.report or {}, task=task,
                           status_url=status_url, final=SubmissionStatus(sub.status).final,
                           owner=owner, recruiter=recruiter,
                           author=sub.user.email if recruiter else sub.user.public_name,
                           error=error), status


@bp.route("/submissions/<int:sub_id>")
@login_required
def submission(sub_id):
    return _render_submission(_readable_or_404(sub_id, SubmissionKind.SUBMISSION))


@bp.route("/submissions/<int:sub_id>/status")
@login_required
def submission_status(sub_id):
    return _status_json(_readable_or_404(sub_id, SubmissionKind.SUBMISSION))


@bp.route("/submissions/<int:sub_id>/visibility", methods=["POST"])
@login_required
def set_visibility(sub_id):
    public = request.form.get("public") == "1"
    try:
        sub = submissions.set_public(current_user, sub_id, public)
    except AssessmentError as err:
        if err.status == 404:
            abort(404)
        return _render_submission(_readable_or_404(sub_id, SubmissionKind.SUBMISSION),
                                  error=err.message, status=err.status)
    flash("Your code is now public on the task's leaderboard." if sub.public
          else "Your code is private again.", "notice")
    return redirect(url_for(".submission", sub_id=sub.id), 303)


@bp.route("/runs/<int:run_id>")
@login_required
def run(run_id):
    return _render_submission(_readable_or_404(run_id, SubmissionKind.RUN))


@bp.route("/runs/<int:run_id>/status")
@login_required
def run_status(run_id):
    return _status_json(_readable_or_404(run_id, SubmissionKind.RUN))


# ---- invitations --------------------------------------------------------------------------


@bp.route("/invitations/<token>", methods=["GET", "POST"])
def invitation(token):
    try:
        inv = service.invitation_for_token(token)
    except AssessmentError:
        abort(404)
    error, status = None, 200
    if request.method == "POST":
        if not current_user.is_authenticated:
            return redirect(url_for("accounts.login", next=url_for(".invitation", token=token)))
        try:
            accepted = service.accept(current_user, token)
        except AssessmentError as err:
            if err.status == 404:
                abort(404)
            error, status = err.message, err.status
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


def _render_assessments(form: dict | None = None, error: AssessmentError | None = None,
                        status: int = 200):
    mine = service.list_for(current_user)
    if not _is_recruiter(current_user):
        entries = {a.id: service.entry_for(current_user, a) for a in mine}
        return render_template("assessments/index.html", recruiter=False, assessments=mine,
                               entries=entries, now=utcnow()), status
    jobs = _org_jobs()
    form = dict(form or {})
    job_id = form.get("job_id") or request.args.get("job_id", type=int) or (jobs[0].id if jobs else None)
    suggested = []
    if job_id:
        try:
            suggested = service.suggestions_for(current_user, job_id)
        except AssessmentError:
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
    form = {"job_id": request.form.get("job_id", type=int),
            "tasks": request.form.getlist("tasks"),
            "time_limit_minutes": request.form.get("time_limit_minutes", "").strip(),
            "backend": request.form.get("backend", "cpu"),
            "title": request.form.get("title", "").strip()}
    if request.form.get("action") == "suggest":
        form.pop("tasks")  # tick the chosen job's suggestions
        return _render_assessments(form)
    try:
        if not form["job_id"]:
            raise AssessmentError("choose one of your organisation's jobs", field="job_id")
        try:
            minutes = int(form["time_limit_minutes"])
        except ValueError:
            raise AssessmentError("the time limit is a whole number of minutes",
                                  field="time_limit_minutes") from None
        if not 5 <= minutes <= 7 * 24 * 60:
            raise AssessmentError("the time limit is between 5 minutes and 7 days (10080 minutes)",
                                  field="time_limit_minutes")
        if len(form["tasks"]) > 10:
            raise AssessmentError("at most 10 tasks", field="tasks")
        if len(form["title"]) > 200:
            raise AssessmentError("the title is at most 200 characters", field="title")
        if _unstorable(form["title"]):
            raise AssessmentError("the title contains a NUL character", field="title")
        created = service.create(current_user, form["job_id"], form["tasks"], minutes,
                                 form["backend"], form["title"] or None)
    except AssessmentError as err:
        return _render_assessments(form, err, err.status)
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
                       invite_error: AssessmentError | None = None, invite_email: str = "",
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
    try:
        found = service.visible_assessment(current_user, assessment_id)
    except AssessmentError:
        abort(404)
    return _render_assessment(found)


@bp.route("/assessments/<int:assessment_id>/invitations", methods=["POST"])
@login_required
def invite(assessment_id):
    try:
        owned = service.owned_assessment(current_user, assessment_id)
    except AssessmentError:
        abort(404)
    email = request.form.get("email", "").strip()
    try:
        if _unstorable(email):
            raise AssessmentError("enter the candidate's e-mail address, like ada@example.com",
                                  field="email")
        invitation_row, token, url = service.invite(
            current_user, assessment_id, email,
            lambda t: url_for(".invitation", token=t, _external=True))
    except AssessmentError as err:
        if err.status == 404:
            abort(404)
        return _render_assessment(owned, invite_error=err, invite_email=email, status=err.status)
    return _render_assessment(owned, new_invitation={
        "email": invitation_row.email, "url": url, "emailed": invitation_row.emailed,
        "expires_at": invitation_row.expires_at}, status=201)


@bp.route("/assessments/<int:assessment_id>/results.csv")
@login_required
def results_csv(assessment_id):
    try:
        data = results.assessment_results(current_user, assessment_id)
    except AssessmentError:
        abort(404)
    return Response(results.results_csv(data), mimetype="text/csv", headers={
        "Content-Disposition": f'attachment; filename="assessment-{assessment_id}-results.csv"'})


# ---- profiles -----------------------------------------------------------------------------


def _evidence_link(evidence: dict) -> str | None:
    try:
        submissions.readable(current_user, evidence["submission_id"])
    except AssessmentError:
        return None
    return url_for(".submission", sub_id=evidence["submission_id"])


@bp.route("/candidates/<int:candidate_id>/profile", methods=["GET", "POST"])
@login_required
def profile(candidate_id):
    error, status = None, 200
    text = None
    if request.method == "POST":
        text = request.form.get("text", "")
        try:
            if len(text) > MAX_TEXT_CHARS:
                raise AssessmentError(f"the text is at most {MAX_TEXT_CHARS} characters",
                                      field="text")
            if _unstorable(text):
                raise AssessmentError("the text contains a NUL character", field="text")
            results.save_claims(current_user, candidate_id, text)
        except AssessmentError as err:
            if err.status == 404:
                abort(404)
            error, status = err, err.status
        else:
            flash("Profile saved." if text.strip() else "Profile text deleted.", "notice")
            return redirect(url_for(".profile", candidate_id=candidate_id), 303)
    try:
        data = results.candidate_profile(current_user, candidate_id)
    except AssessmentError:
        abort(404)
    own = candidate_id == current_user.id
    if own and text is None:
        stored = db.session.get(CandidateProfile, candidate_id)
        text = stored.text if stored else ""
    titles = {t["slug"]: t["title"] for t in catalog.all_summaries()}
    for item in data["verified"]:
        for ev in item["evidence"]:
            ev["url"] = _evidence_link(ev)
    return render_template("profile/show.html", profile=data, own=own, text=text or "",
                           error=error, titles=titles), status
