"""Job pages: the list with filters and one job's parse."""
from flask import Blueprint, abort, render_template, request

from skillmap.taxonomy import TRACKS

from . import service

bp = Blueprint("jobs_pages", __name__, url_prefix="/jobs")


@bp.route("/")
def index():
    track = request.args.get("track") if request.args.get("track") in TRACKS else None
    q = (request.args.get("q") or "").strip()[:200] or None
    page = max(1, request.args.get("page", 1, type=int) or 1)
    rows, total = service.list_jobs(track=track, q=q, page=page, per_page=25)
    return render_template("jobs/index.html", jobs=rows, total=total, page=page, track=track,
                           q=q or "", tracks=TRACKS, pages=(total + 24) // 25)


@bp.route("/<int:job_id>")
def detail(job_id):
    try:
        job = service.get_job(job_id)
    except service.JobError:
        abort(404)
    return render_template("jobs/detail.html", job=job)
