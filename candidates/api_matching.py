"""Matching API: apply to a job, rank a job's candidates, a candidate's best-fitting jobs."""
from flask import Response
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from accounts.models import Role
from accounts.tokens import api_user, token_required
from web.fields import UtcDateTime

from . import exports, matching

blp = Blueprint("matching", __name__, url_prefix="/api/v1",
                description="Candidates ranked against jobs, with the reasons for each score")


class TopSchema(Schema):
    top = fields.Integer(load_default=10, validate=validate.Range(min=1, max=matching.MAX_TOP))


class ApplicationSchema(Schema):
    id = fields.Integer()
    job_id = fields.Integer()
    candidate_id = fields.Integer()
    created_at = UtcDateTime()


class ReasonSchema(Schema):
    kind = fields.String(metadata={"enum": ["skill", "track", "experience", "review"]})
    text = fields.String()
    points = fields.Float(metadata={"description": "the reasons' points add up to the score"})
    skill = fields.String()
    need = fields.String()
    evidence = fields.String(metadata={"enum": ["verified", "claimed"]})
    path = fields.Dict(allow_none=True)
    submission_id = fields.Integer(metadata={"description": "review: the solution held back"})
    other_id = fields.Integer(metadata={"description": "review: the earlier work it resembles"})


class SkillGapSchema(Schema):
    skill = fields.String()
    name = fields.String()
    need = fields.String()
    points_available = fields.Float()


class MatchedSkillSchema(Schema):
    skill = fields.String()
    name = fields.String()
    need = fields.String()
    evidence = fields.String(metadata={"enum": ["verified", "claimed"]})
    credit = fields.Float()
    points = fields.Float()


class MatchSuggestionSchema(Schema):
    skill = fields.String()
    need = fields.String()
    task = fields.String(allow_none=True, metadata={"description": "a task whose solution verifies the skill"})
    gain = fields.Float()
    text = fields.String()


class MatchSchema(Schema):
    candidate = fields.Raw(metadata={"description": "the candidate's id"})
    score = fields.Float(metadata={"description": "0-100: skills 70, track 10, experience 20"})
    reasons = fields.List(fields.Nested(ReasonSchema))
    matched = fields.List(fields.Nested(MatchedSkillSchema))
    missing_required = fields.List(fields.Nested(SkillGapSchema))
    missing_preferred = fields.List(fields.Nested(SkillGapSchema))
    suggestions = fields.List(fields.Nested(MatchSuggestionSchema))


class RankedCandidateSchema(MatchSchema):
    display_name = fields.String(allow_none=True)
    held_back = fields.List(fields.Dict(), metadata={
        "description": "solutions held back for a similarity review: submission_id, other_id, "
                       "task, similarity"})
    name = fields.String(metadata={"description": "the candidate's name (else their display name)"})
    email = fields.String(metadata={"description": "the candidate's e-mail address"})
    applied = fields.Boolean(metadata={"description": "applied to this job (else: another of the "
                                                      "organisation's jobs, or invited to an assessment)"})


class RankedCandidatesSchema(Schema):
    job_id = fields.Integer()
    title = fields.String()
    total = fields.Integer(metadata={"description": "candidates the organisation may rank"})
    candidates = fields.List(fields.Nested(RankedCandidateSchema))


class JobBriefSchema(Schema):
    id = fields.Integer()
    title = fields.String()
    location = fields.String(allow_none=True)
    organisation = fields.String()
    primary_track = fields.String(allow_none=True)
    example = fields.Boolean(metadata={"description": "a job that ships with KernelPath, not an "
                                                      "opening: it takes no applications"})


class FittingJobSchema(MatchSchema):
    job = fields.Nested(JobBriefSchema)
    applied = fields.Boolean()


class FittingJobsSchema(Schema):
    candidate_id = fields.Integer()
    total = fields.Integer()
    jobs = fields.List(fields.Nested(FittingJobSchema))


@blp.route("/jobs/<int:job_id>/applications", methods=["POST"])
@token_required(Role.CANDIDATE)
@blp.response(201, ApplicationSchema)
@blp.alt_response(200, schema=ApplicationSchema, description="already applied: the same application")
def apply(job_id):
    """Apply to a job: the organisation's recruiters may then rank you and read your profile."""
    application, new = matching.apply(api_user(), job_id)
    return application, 201 if new else 200


@blp.route("/jobs/<int:job_id>/candidates", methods=["GET"])
@token_required(Role.RECRUITER, Role.ADMIN)
@blp.arguments(TopSchema, location="query")
@blp.response(200, RankedCandidatesSchema)
def candidates(query, job_id):
    """The organisation's candidates (applied or invited) ranked for this job, with reasons."""
    return matching.ranked_candidates(api_user(), job_id, query["top"])


@blp.route("/candidates/<int:candidate_id>/jobs", methods=["GET"])
@token_required()
@blp.arguments(TopSchema, location="query")
@blp.response(200, FittingJobsSchema)
def fitting_jobs(query, candidate_id):
    """The jobs that fit you best, with the reasons and what would raise each score."""
    return matching.best_jobs(api_user(), candidate_id, query["top"])


@blp.route("/jobs/<int:job_id>/candidates/<int:candidate_id>/report", methods=["GET"])
@token_required()
@blp.response(200, RankedCandidateSchema)
def report(job_id, candidate_id):
    """One candidate's match report for a job (the job's recruiters, or the candidate)."""
    result, _ = matching.match_report(api_user(), job_id, candidate_id)
    return result


@blp.route("/jobs/<int:job_id>/candidates/<int:candidate_id>/report.pdf", methods=["GET"])
@token_required()
@blp.response(200, content_type="application/pdf", description="a one-page PDF of the match report")
def report_pdf(job_id, candidate_id):
    """The match report as a one-page PDF."""
    result, job = matching.match_report(api_user(), job_id, candidate_id)
    return Response(exports.to_pdf(exports.match_html(result, job)), mimetype="application/pdf")
