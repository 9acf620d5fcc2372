"""Pages: a learner's roadmap (résumé or profile text and a target in, the gap, a timeline of
phases, resources, practice links and the salary band out), jobs that fit a candidate with an
apply button, and a job's ranked candidates for its recruiters."""
from __future__ import annotations

from flask import Response, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from jobdata.salary import LEVELS, TRACKS
from jobdata.service import get_job
from refusals import Invalid, NotFound, Refusal
from skillmap.taxonomy import load_taxonomy
from web.errors import http_status

from .. import exports, matching, roadmaps
from ..resume import uploaded_resume_text
from . import MAX_TEXT_CHARS, _unstorable, bp

TRACK_NAMES = {t: load_taxonomy().tracks[t]["name"] for t in TRACKS}
LEVEL_NAMES = {"entry": "Entry", "mid": "Mid", "senior": "Senior", "staff_principal": "Staff / principal"}


def _roadmap_form() -> tuple[dict, str | None]:
    """The form's fields, and the profile text (typed, or read from an uploaded résumé)."""
    form = {k: (request.form.get(k) or "").strip() for k in ("target", "level", "location", "hours_per_week")}
    text = request.form.get("profile_text", "")
    upload = request.files.get("resume")
    if upload is not None and upload.filename:
        text = uploaded_resume_text(upload, field="resume")
    if len(text) > MAX_TEXT_CHARS or _unstorable(text):
        raise Invalid(f"the profile text is at most {MAX_TEXT_CHARS} characters of text",
                      field="profile_text")
    return form, text


def _posted_salary(plan: dict | None) -> dict | None:
    """The target job's own posted range, drawn beside the band (a track target has none)."""
    target = (plan or {}).get("target") or {}
    if target.get("kind") != "job":
        return None
    try:
        return get_job(target["job_id"]).salary
    except NotFound:
        return None


@bp.route("/roadmap", methods=["GET", "POST"])
def roadmap():
    result, error, status = None, None, 200
    form = {"target": request.args.get("target", "software_optimization"), "level": "mid",
            "location": "", "hours_per_week": "10"}
    text = ""
    if request.method == "POST":
        try:
            form, text = _roadmap_form()
            try:
                hours = float(form["hours_per_week"] or 10)
            except ValueError:
                raise Invalid("hours per week must be a number", field="hours_per_week") from None
            if not 1 <= hours <= 80:
                raise Invalid("hours per week must be between 1 and 80", field="hours_per_week")
            if form["level"] not in LEVELS:
                raise Invalid("choose a level", field="level")
            user = current_user if current_user.is_authenticated else None
            request_data = {"target": form["target"], "level": form["level"],
                            "location": form["location"] or None, "profile_text": text,
                            "hours_per_week": hours}
            if request.form.get("save") and user is not None:
                saved = roadmaps.save(user, request_data)  # computes the plan it keeps
                flash("Roadmap saved: tick steps off as you go.", "notice")
                return redirect(url_for(".saved_roadmap", roadmap_id=saved.id), 303)
            result = roadmaps.plan(user, request_data)
        except Refusal as err:
            error, status = err, (422 if isinstance(err, NotFound) else http_status(err))
    return render_template("learning/roadmap.html", result=result, form=form, text=text, error=error,
                           tracks=TRACK_NAMES, levels=LEVEL_NAMES, done=[],
                           posted_salary=_posted_salary(result), mine=_my_roadmaps()), status


def _my_roadmaps() -> list[dict]:
    """The signed-in person's saved roadmaps, newest first, with how many steps are done."""
    if not current_user.is_authenticated:
        return []
    out = []
    for saved in roadmaps.mine(current_user):
        steps = [s["skill"] for s in (saved.plan or {}).get("steps", [])]
        target = (saved.plan or {}).get("target", {})
        name = target.get("title") if target.get("kind") == "job" else \
            TRACK_NAMES.get(target.get("track"), target.get("track") or saved.target)
        out.append({"id": saved.id, "name": name, "level": LEVEL_NAMES.get(saved.level, saved.level),
                    "done": len([s for s in steps if s in (saved.done or [])]), "steps": len(steps),
                    "updated_at": saved.updated_at})
    return out


@bp.route("/roadmaps/<int:roadmap_id>", methods=["GET", "POST"])
@login_required
def saved_roadmap(roadmap_id):
    try:
        saved = roadmaps.owned(current_user, roadmap_id)
        if request.method == "POST":
            skill = request.form.get("skill", "")
            saved = roadmaps.tick(current_user, roadmap_id, skill, request.form.get("done") == "1")
            return redirect(url_for(".saved_roadmap", roadmap_id=roadmap_id) + f"#step-{skill}", 303)
    except Refusal:
        abort(404)
    return render_template("learning/roadmap.html", result=saved.plan, saved=saved, done=saved.done,
                           form=None, text="", error=None, tracks=TRACK_NAMES, levels=LEVEL_NAMES,
                           posted_salary=_posted_salary(saved.plan))


@bp.route("/jobs-for-me")
@login_required
def jobs_for_me():
    try:
        data = matching.best_jobs(current_user, current_user.id, top=20)
    except Refusal:
        abort(404)
    return render_template("learning/jobs_for_me.html", data=data)


@bp.route("/jobs/<int:job_id>/apply", methods=["POST"])
@login_required
def apply(job_id):
    try:
        _, new = matching.apply(current_user, job_id)
    except Refusal as err:
        if isinstance(err, NotFound):
            abort(404)
        flash(err.message, "error")
        return redirect(url_for("jobs_pages.detail", job_id=job_id), 303)
    flash("Applied: the organisation can now see your profile." if new else "You had already applied.",
          "notice")
    return redirect(url_for("jobs_pages.detail", job_id=job_id), 303)


@bp.route("/jobs/<int:job_id>/candidates")
@login_required
def ranked(job_id):
    try:
        data = matching.ranked_candidates(current_user, job_id, top=50)
    except Refusal:
        abort(404)
    return render_template("learning/ranked.html", data=data, job_id=job_id)


def _pdf(html: str, name: str) -> Response:
    return Response(exports.to_pdf(html), mimetype="application/pdf",
                    headers={"Content-Disposition": f'inline; filename="{name}"'})


def _own_roadmap_html(roadmap_id: int) -> str:
    """The printable page of one of the user's saved roadmaps, or the 404 page."""
    try:
        saved = roadmaps.owned(current_user, roadmap_id)
    except Refusal:
        abort(404)
    return exports.roadmap_html(saved.plan, saved.done)


def _match_report_html(job_id: int, candidate_id: int) -> str:
    """The printable match report the user may read, or the 404 page."""
    try:
        report, job = matching.match_report(current_user, job_id, candidate_id)
    except Refusal:
        abort(404)
    return exports.match_html(report, job)


@bp.route("/roadmaps/<int:roadmap_id>/print")
@login_required
def roadmap_print(roadmap_id):
    return _own_roadmap_html(roadmap_id)


@bp.route("/roadmaps/<int:roadmap_id>.pdf")
@login_required
def roadmap_pdf(roadmap_id):
    return _pdf(_own_roadmap_html(roadmap_id), f"roadmap-{roadmap_id}.pdf")


@bp.route("/jobs/<int:job_id>/candidates/<int:candidate_id>/report")
@login_required
def match_print(job_id, candidate_id):
    return _match_report_html(job_id, candidate_id)


@bp.route("/jobs/<int:job_id>/candidates/<int:candidate_id>/report.pdf")
@login_required
def match_pdf(job_id, candidate_id):
    return _pdf(_match_report_html(job_id, candidate_id), f"match-{job_id}-{candidate_id}.pdf")


@bp.app_context_processor
def _ranking_for_job_pages():
    """`ranked_for(job_id)` for the job page (which lives in jobdata and must not import this
    package): the top candidates when the viewer is one of the job's recruiters, else None."""
    def ranked_for(job_id: int, top: int = 5):
        if not (current_user.is_authenticated and current_user.role in ("recruiter", "admin")):
            return None
        try:
            return matching.ranked_candidates(current_user, job_id, top=top)
        except Refusal:
            return None
    return {"ranked_for": ranked_for}
