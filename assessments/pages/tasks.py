"""Pages: the task list, a task with its editor, sample runs, submissions, leaderboards."""
from __future__ import annotations

from flask import Response, abort, flash, jsonify, redirect, render_template, request, url_for
from flask_login import current_user, login_required

from extensions import limiter
from refusals import Invalid, NotFound, Refusal
from web.charts import roofline_data
from web.errors import http_status
from web.inputs import int_value

from .. import catalog, results, service, submissions
from ..models import Submission, SubmissionKind, SubmissionStatus
from .base import (_assessment_context, _is_recruiter, _markdown, _sub_urls, _submit_rate,
               _task_or_404, _unstorable, _user_key, _wants_json, STYLE_LABELS, bp, status_text,
               verdict_info)

# ---- tasks --------------------------------------------------------------------------------


@bp.route("/tasks/")
def tasks():
    every = catalog.all_summaries()
    tracks = sorted({t for s in every for t in s["tracks"]})
    kinds = {s["kind"]: s["kind_label"] for s in every}
    track = request.args.get("track") if request.args.get("track") in tracks else None
    kind = request.args.get("kind") if request.args.get("kind") in kinds else None
    shown = [s for s in every if (track is None or track in s["tracks"])
             and (kind is None or s["kind"] == kind)]
    return render_template("tasks/index.html", tasks=shown, total=len(every), tracks=tracks,
                           kinds=kinds, track=track, kind=kind)


def _render_task(slug: str, *, source: str | None = None, error: Refusal | None = None,
                 status: int = 200):
    task = _task_or_404(slug)
    detail = catalog.detail(task)
    assessment_id = int_value(request.values, "assessment", low=1)[0] or \
        int_value(request.values, "assessment_id", low=1)[0]
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
    if len(detail["languages"]) > 1 and style not in detail["languages"]:
        style = _language_of_edited(detail["languages"], source, mine)
    return render_template(
        "tasks/detail.html", task=detail, statement=_markdown(detail["statement"], detail["title"]),
        starters=starters, style=style, style_labels=STYLE_LABELS, source=source,
        context=context, mine=mine, error=error,
    ), status


def _language_of_edited(languages, source: str, mine) -> str | None:
    """The language of edited code for a task taking several: the one the form posted, else the
    one the candidate's latest submission of this very code was written in."""
    posted = request.values.get("language")
    if posted in languages:
        return posted
    latest = mine[0] if mine else None
    if latest is not None and latest.source == source and latest.language:
        return latest.language
    return None


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
    assessment_id = int_value(request.form, "assessment_id", low=1)[0]
    try:
        if _unstorable(source):
            raise Invalid("the source contains a NUL character", field="source")
        sub_id = submissions.create(current_user, slug, source, kind=kind,
                                    assessment_id=assessment_id,
                                    language=request.form.get("language") or None)
    except Refusal as err:
        if _wants_json():
            return jsonify(message=err.message, field=err.field), http_status(err)
        if isinstance(err, NotFound):
            abort(404)
        return _render_task(slug, source=source, error=err, status=http_status(err))
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
    if not catalog.runs_on_gpu(task):
        kind = catalog.bank.kind_of(task)
        board = results.design_leaderboard(slug, kind, request.args.get("by"))
        return render_template("tasks/design_leaderboard.html", task=catalog.summary(task),
                               board=board)
    backends = ["cuda", "cpu"]
    default = "cuda" if "cuda" in service.available_backends() else "cpu"
    backend = request.args.get("backend") if request.args.get("backend") in backends else default
    gpu = (request.args.get("gpu") or "").strip()[:120] or None
    board = results.leaderboard(slug, backend, gpu if backend == "cuda" else None)
    return render_template("tasks/leaderboard.html", task=catalog.summary(task), board=board,
                           backends=backends, backend=backend, gpu=gpu)


# ---- submissions and runs -----------------------------------------------------------------


def _readable_or_404(sub_id: int, kind: SubmissionKind) -> Submission:
    return submissions.readable(current_user, sub_id, kind)  # not found or not yours: the 404 page


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
        found = catalog.task_or_error(sub.task)
        task, cost = catalog.summary(found), getattr(found, "cost", None)
    except catalog.UnknownTask:
        task, cost = {"slug": sub.task, "title": sub.task}, None
    status_url = _sub_urls(sub.id, sub.kind)[1]
    recruiter = bool(sub.assessment_id and _is_recruiter(current_user)
                     and sub.assessment.organisation_id == current_user.organisation_id)
    owner = sub.user_id == current_user.id
    similar = []
    if sub.verdict == "accepted" and (recruiter or owner):
        similar = results.similar_for(current_user, [sub]).get(sub.id, [])
    return render_template("tasks/submission.html", sub=sub, report=sub.report or {}, task=task,
                           status_url=status_url, final=SubmissionStatus(sub.status).final,
                           owner=owner, recruiter=recruiter, similar=similar,
                           author=sub.user.email if recruiter else sub.user.public_name,
                           roofline=roofline_data((sub.report or {}).get("timing"), cost),
                           error=error), status


@bp.route("/submissions/<int:sub_id>")
@login_required
def submission(sub_id):
    return _render_submission(_readable_or_404(sub_id, SubmissionKind.SUBMISSION))


@bp.route("/submissions/<int:sub_id>/status")
@login_required
def submission_status(sub_id):
    return _status_json(_readable_or_404(sub_id, SubmissionKind.SUBMISSION))


@bp.route("/submissions/<int:sub_id>/similar/<int:other_id>/clear", methods=["POST"])
@login_required
def clear_similarity(sub_id, other_id):
    try:
        results.clear_flag(current_user, sub_id, other_id)
    except NotFound:
        abort(404)
    flash(f"Flag cleared: submission #{sub_id} counts for its author's verified skills.", "notice")
    back = request.referrer if request.referrer and request.referrer.startswith(request.host_url) \
        else url_for(".submission", sub_id=sub_id)
    return redirect(back, 303)


@bp.route("/submissions/<int:sub_id>/visibility", methods=["POST"])
@login_required
def set_visibility(sub_id):
    public = request.form.get("public") == "1"
    try:
        sub = submissions.set_public(current_user, sub_id, public)
    except Refusal as err:
        if isinstance(err, NotFound):
            abort(404)
        return _render_submission(_readable_or_404(sub_id, SubmissionKind.SUBMISSION),
                                  error=err.message, status=http_status(err))
    flash("Your solution is on the task's leaderboard, its code public." if sub.public
          else "Your solution is off the leaderboard and its code private again.", "notice")
    return redirect(url_for(".submission", sub_id=sub.id), 303)


@bp.route("/runs/<int:run_id>")
@login_required
def run(run_id):
    return _render_submission(_readable_or_404(run_id, SubmissionKind.RUN))


@bp.route("/runs/<int:run_id>/status")
@login_required
def run_status(run_id):
    return _status_json(_readable_or_404(run_id, SubmissionKind.RUN))




# ---- a wrong design's waveform ------------------------------------------------------------


def _vcd(sub: Submission):
    """The cycles around a wrong design's first mismatch as a VCD file for a waveform viewer."""
    from assessments.judge.kinds.verilog import waveform
    window = (sub.report or {}).get("waveform")
    if not window:
        abort(404)
    task = catalog.bank.find(sub.task)
    clock = getattr(task, "clock", None) or "clk"
    name = f"{sub.task}-{sub.kind}-{sub.id}.vcd"
    return Response(waveform.to_vcd(window, clock=clock), mimetype="text/plain",
                    headers={"Content-Disposition": f'attachment; filename="{name}"',
                             "Cache-Control": "private, no-store"})


@bp.route("/submissions/<int:sub_id>/waveform.vcd")
@login_required
def submission_vcd(sub_id):
    return _vcd(_readable_or_404(sub_id, SubmissionKind.SUBMISSION))


@bp.route("/runs/<int:run_id>/waveform.vcd")
@login_required
def run_vcd(run_id):
    return _vcd(_readable_or_404(run_id, SubmissionKind.RUN))
