"""Jobs API: parse a posting, store jobs, list them with filters."""
from flask.views import MethodView
from flask_smorest import Blueprint, abort

from accounts.models import Role
from accounts.tokens import api_user, token_required
from skillmap.parse import ParseError, parse_job

from . import service
from .schemas import (JobCreateSchema, JobPageSchema, JobQuerySchema, JobSchema, JobUpdateSchema,
                      ParseRequestSchema, ParseSchema, SkillQuerySchema, SkillSchema)

blp = Blueprint("jobs", __name__, url_prefix="/api/v1/jobs",
                description="Job descriptions parsed into the GPU skill taxonomy")

# The request bodies' examples in the OpenAPI document (and the docs page's "Try it out").
POSTING_EXAMPLE = """Senior CUDA Engineer
Requirements:
- 5+ years of C++ and CUDA kernel optimization
- NCCL and multi-GPU training
Nice to have: Triton, Nsight Compute.
Salary: $180,000 - $220,000 per year."""
JOB_EXAMPLE = {"title": "Senior CUDA Engineer", "location": "Austin, TX", "text": POSTING_EXAMPLE}


@blp.route("/parse", methods=["POST"])
@blp.arguments(ParseRequestSchema, example={"title": "Senior CUDA Engineer", "text": POSTING_EXAMPLE})
@blp.response(200, ParseSchema)
def parse(data):
    """Parse a job description (nothing is stored)."""
    try:
        return parse_job(data["text"], title=data.get("title"))
    except ParseError as err:
        abort(422, message=f"text: {err}", field="text")


@blp.route("")
class Jobs(MethodView):
    @blp.arguments(JobQuerySchema, location="query", unknown=None)  # Meta.unknown: RAISE
    @blp.response(200, JobPageSchema)
    def get(self, query):
        """List jobs, newest first; filter by track, skill id or free text."""
        page, per_page = query.pop("page"), query.pop("per_page")
        organisation_id = query.pop("organisation", None)
        rows, total = service.list_jobs(**query, organisation_id=organisation_id,
                                        page=page, per_page=per_page)
        return {"items": rows, "page": page, "per_page": per_page, "total": total,
                "pages": (total + per_page - 1) // per_page}

    @token_required(Role.RECRUITER)
    @blp.arguments(JobCreateSchema, example=JOB_EXAMPLE)
    @blp.response(201, JobSchema)
    def post(self, data):
        """Store a job for the recruiter's organisation, with its parse."""
        user = api_user()
        return service.create_job(user.organisation_id, data["title"], data["text"],
                                  location=data.get("location"), created_by=user)


@blp.route("/<int:job_id>")
class JobItem(MethodView):
    @blp.response(200, JobSchema)
    def get(self, job_id):
        """One job with its full parse."""
        return service.get_job(job_id)

    @token_required(Role.RECRUITER, Role.ADMIN)
    @blp.arguments(JobUpdateSchema, example={"location": "Remote (US)"})
    @blp.response(200, JobSchema)
    def put(self, data, job_id):
        """Change a job of your organisation; a new text is parsed again."""
        return service.update_job(api_user(), job_id, data)

    @token_required(Role.RECRUITER, Role.ADMIN)
    @blp.response(204)
    def delete(self, job_id):
        """Delete a job of your organisation."""
        service.delete_job(api_user(), job_id)


skills_blp = Blueprint("skills", __name__, url_prefix="/api/v1/skills",
                       description="The GPU skill taxonomy: find skill ids by name, for filters and autocomplete")


@skills_blp.route("")
@skills_blp.arguments(SkillQuerySchema, location="query")
@skills_blp.response(200, SkillSchema(many=True))
def skills(query):
    """Skills whose name or an alias contains `q`, best matches first."""
    from skillmap.taxonomy import load_taxonomy, search_skills

    return [{"id": s.id, "name": s.name, "category": s.category, "track": s.primary_track}
            for s in search_skills(load_taxonomy(), query.get("q"), query["limit"])]
