"""Pages: a learner's roadmap (résumé or profile text and a target in, the gap, a timeline of
phases, resources, practice links and the salary band out), jobs that fit a candidate with an
apply button, a job's ranked candidates for its recruiters, and a candidate's profile (verified
and claimed skills) with the text or résumé behind it."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, redirect, render_template, request, url_for
from flask_login import current_user, login_required
from sqlalchemy import func, select

from jobdata.salary import LEVELS, TRACKS
from jobdata.service import get_job
from refusals import Invalid, NotFound, Refusal
from extensions import db
from skillmap import verified
from skillmap.taxonomy import load_taxonomy
from web.charts import track_strengths
from web.errors import http_status

from assessments import catalog, shown, submissions
from assessments.pages.base import MAX_TEXT_CHARS, _unstorable

from . import exports, matching, profiles, roadmaps
from .models import CandidateProfile, SavedRoadmap
from .resume import uploaded_resume_text

bp = Blueprint("candidate_pages", __name__)

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


@bp.app_template_global("kp_saved_roadmaps")
def saved_roadmaps() -> int:
    """How many roadmaps the signed-in person saved (the navigation links to them)."""
    if not current_user.is_authenticated:
        return 0
    return db.session.scalar(select(func.count()).select_from(SavedRoadmap).where(
        SavedRoadmap.user_id == current_user.id)) or 0


# ---- profiles -----------------------------------------------------------------------------


def _evidence_link(evidence: dict) -> str | None:
    try:
        submissions.readable(current_user, evidence["submission_id"])
    except Refusal:
        return None
    return url_for("assessment_pages.submission", sub_id=evidence["submission_id"])


@bp.route("/candidates/<int:candidate_id>/profile", methods=["GET", "POST"])
@login_required
def profile(candidate_id):
    error, status = None, 200
    text = None
    if request.method == "POST":
        text = request.form.get("text", "")
        try:
            upload = request.files.get("resume")
            if upload is not None and upload.filename:
                text = uploaded_resume_text(upload, field="resume")
            if len(text) > MAX_TEXT_CHARS:
                raise Invalid(f"the text is at most {MAX_TEXT_CHARS} characters",
                              field="text")
            if _unstorable(text):
                raise Invalid("the text contains a NUL character", field="text")
            profiles.save_claims(current_user, candidate_id, text)
        except Refusal as err:
            if isinstance(err, NotFound):
                abort(404)
            error, status = err, http_status(err)
        else:
            flash("Profile saved." if text.strip() else "Profile text deleted.", "notice")
            return redirect(url_for(".profile", candidate_id=candidate_id), 303)
    data = profiles.candidate_profile(current_user, candidate_id)  # not found or not yours: the 404 page
    own = candidate_id == current_user.id
    if own and text is None:
        stored = db.session.get(CandidateProfile, candidate_id)
        text = stored.text if stored else ""
    titles = {t["slug"]: t["title"] for t in catalog.all_summaries()}
    for item in data["verified"]:
        for ev in item["evidence"]:
            ev["url"] = _evidence_link(ev)
    strengths = track_strengths({v["skill"]: v["level"] for v in data["verified"]},
                                [s["id"] for s in data["claimed"]["skills"]],
                                tracks=data["verified_tracks"])
    return render_template("profile/show.html", profile=data, own=own, text=text or "",
                           skill_rule=shown.RULE, level_rule=verified.RULE,
                           error=error, titles=titles, strengths=strengths), status
