"""API: the task catalog, sample runs, submissions, leaderboards."""
from flask import current_app
from flask_smorest import Blueprint, abort

from accounts.tokens import api_user, rate_limit_key, token_required
from extensions import limiter

from . import catalog, results, submissions
from .models import SubmissionKind, SubmissionStatus
from .schemas import (AcceptedSchema, LeaderboardQuerySchema, LeaderboardSchema, RunRequestSchema,
                      SubmissionListQuerySchema, SubmissionRequestSchema, SubmissionSchema,
                      SubmissionSummarySchema,
                      TaskListSchema, TaskSchema, VisibilitySchema)

tasks_blp = Blueprint("tasks", __name__, url_prefix="/api/v1/tasks",
                      description="The task catalog: GPU coding tasks and their leaderboards")
runs_blp = Blueprint("runs", __name__, url_prefix="/api/v1/runs",
                     description="Try code on a task's visible sample tests (not scored)")
subs_blp = Blueprint("submissions", __name__, url_prefix="/api/v1/submissions",
                     description="Graded submissions on the hidden tests")

# A run's or a submission's example body in the OpenAPI document: a solution of vector_add.
RUN_EXAMPLE = {"task": "vector_add", "backend": "cpu", "source": """import cupy as cp

_kernel = cp.RawKernel(r'''
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
''', "vector_add")


def solve(a, b, c, n):
    _kernel(((n + 255) // 256,), (256,), (a, b, c, cp.int32(n)))
"""}


def _rate() -> str:
    return current_app.config.get("SUBMISSION_RATE_LIMIT", "20/minute;300/hour")


@tasks_blp.route("")
@tasks_blp.response(200, TaskListSchema)
def list_tasks():
    """Every task: slug, title, difficulty, skills, a short summary."""
    return {"items": catalog.all_summaries()}


@tasks_blp.route("/<slug>")
@tasks_blp.response(200, TaskSchema)
def get_task(slug):
    """One task: statement (Markdown), signature, arguments, check, samples, starters per style."""
    try:
        return catalog.detail(catalog.task_or_error(slug))
    except catalog.UnknownTask as err:
        abort(404, message=str(err), field="slug")


@tasks_blp.route("/<slug>/leaderboard")
@tasks_blp.arguments(LeaderboardQuerySchema, location="query")
@tasks_blp.response(200, LeaderboardSchema)
def leaderboard(query, slug):
    """Best accepted time per user for a backend and GPU (timings flagged for review never appear).
    Design tasks rank by `by`: `area` (Yosys cells) or `depth` (longest combinational path);
    testbench tasks by mutants caught; `backend` and `gpu` do not apply to them."""
    try:
        task = catalog.task_or_error(slug)
    except catalog.UnknownTask as err:
        abort(404, message=str(err), field="slug")
    if not catalog.runs_on_gpu(task):   # designs and testbenches: ranked by `by`, no backend
        return results.design_leaderboard(slug, catalog.bank.kind_of(task), query.get("by"))
    return results.leaderboard(slug, query["backend"], query.get("gpu"))


def _queue(data, kind: SubmissionKind):
    sub_id = submissions.create(api_user(), data["task"], data["source"], kind=kind,
                                assessment_id=data.get("assessment_id"),
                                backend=data.get("backend"), language=data.get("language"))
    return {"id": sub_id, "status": SubmissionStatus.QUEUED.value}


@runs_blp.route("", methods=["POST"])
@limiter.limit(_rate, key_func=rate_limit_key)
@runs_blp.arguments(RunRequestSchema, example=RUN_EXAMPLE)
@runs_blp.response(202, AcceptedSchema)
@token_required()
def create_run(data):
    """Judge code on the task's visible samples only: no score, no timing, never counted."""
    return _queue(data, SubmissionKind.RUN)


@runs_blp.route("/<int:run_id>")
@runs_blp.response(200, SubmissionSchema)
@token_required()
def get_run(run_id):
    """A run's status and, when done, the report (with compile report, PTX and SASS)."""
    return submissions.readable(api_user(), run_id, SubmissionKind.RUN)


@subs_blp.route("", methods=["POST"])
@limiter.limit(_rate, key_func=rate_limit_key)
@subs_blp.arguments(SubmissionRequestSchema, example=RUN_EXAMPLE)
@subs_blp.response(202, AcceptedSchema)
@token_required()
def create_submission(data):
    """Submit a solution (practice, or within an assessment you started); graded on a worker."""
    return _queue(data, SubmissionKind.SUBMISSION)


@subs_blp.route("", methods=["GET"])
@subs_blp.arguments(SubmissionListQuerySchema, location="query")
@subs_blp.response(200, SubmissionSummarySchema(many=True))
@token_required()
def list_submissions(query):
    """Your latest submissions, newest first."""
    return submissions.list_mine(api_user(), query.get("task"))


@subs_blp.route("/<int:sub_id>")
@subs_blp.response(200, SubmissionSchema)
@token_required()
def get_submission(sub_id):
    """Status and, when done, the judge's report. The owner, the assessment's recruiters, or
    anyone for a solution made public; others get 404."""
    return submissions.readable(api_user(), sub_id)


@subs_blp.route("/<int:sub_id>/visibility", methods=["PUT"])
@subs_blp.arguments(VisibilitySchema, example={"public": True})
@subs_blp.response(200, SubmissionSummarySchema)
@token_required()
def set_visibility(data, sub_id):
    """Make an accepted solution's code public on the leaderboard (or private again)."""
    return submissions.set_public(api_user(), sub_id, data["public"])
