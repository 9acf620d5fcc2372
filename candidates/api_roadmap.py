"""Roadmap API: a plan to a target (a track at a level, or a stored job), saved plans, ticking
steps off."""
from flask import Response
from flask_smorest import Blueprint, abort
from marshmallow import Schema, ValidationError, fields, validate

from accounts.tokens import api_user, token_required
from jobdata.salary import LEVELS, TRACKS
from web.fields import UtcDateTime

from . import exports, roadmaps

blp = Blueprint("roadmap", __name__, url_prefix="/api/v1",
                description="Learning roadmaps: the gap to a target and an ordered plan to close it")

PROFILE_TEXT_MAX = 50_000


class TargetField(fields.Field):
    """A track id, or a stored job's id (as a number or a string of digits)."""

    def _deserialize(self, value, attr, data, **kwargs):
        if isinstance(value, bool):
            raise ValidationError("must be a track or a job id")
        if isinstance(value, int) and 1 <= value <= 2**31 - 1:
            return str(value)
        if isinstance(value, str) and (value in TRACKS or (value.isdigit() and 0 < int(value) <= 2**31 - 1)):
            return value
        raise ValidationError(f"must be a track ({', '.join(TRACKS)}) or a job id")


class RoadmapRequestSchema(Schema):
    target = TargetField(required=True, metadata={
        "description": "a track id or a stored job's id", "example": "software_optimization"})
    level = fields.String(load_default="mid", validate=validate.OneOf(LEVELS), metadata={
        "description": "for a track target; a job target uses the job's seniority"})
    location = fields.String(validate=validate.Length(max=200), metadata={"example": "Austin, TX"})
    profile_text = fields.String(validate=validate.Length(max=PROFILE_TEXT_MAX), metadata={
        "description": "a profile or résumé text: the skills it names count as claimed (not kept)"})
    use_verified = fields.Boolean(load_default=True, metadata={
        "description": "with a token: skip what your graded work has verified"})
    hours_per_week = fields.Float(load_default=10, validate=validate.Range(min=1, max=80))


class RoadmapSchema(Schema):
    target = fields.Dict(metadata={"description": "kind (track or job), track, job_id, title, postings"})
    level = fields.String()
    gap = fields.Dict(metadata={"description": "missing_required, missing_preferred, prerequisites, "
                                               "already_verified (skill ids)"})
    no_gap = fields.Boolean()
    message = fields.String(allow_none=True)
    hours_per_week = fields.Float()
    total_hours = fields.Integer()
    total_weeks = fields.Integer()
    phases = fields.List(fields.Dict(), metadata={
        "description": "foundations, gpu_fundamentals, specialisation, portfolio: hours, start_week, "
                       "weeks, steps (skill ids), milestones (certifications and projects)"})
    steps = fields.List(fields.Dict(), metadata={
        "description": "in order, never before a prerequisite: skill, name, phase, need, why, claimed, "
                       "hours, requires, resources (title, kind, url, cost, why), practice (task, url)"})
    salary = fields.Dict(allow_none=True, metadata={"description": "the salary band for the track and level"})
    used = fields.Dict(metadata={"description": "the verified and claimed skills the plan took into account"})


class SavedRoadmapSchema(Schema):
    id = fields.Integer()
    target = fields.String()
    level = fields.String()
    plan = fields.Nested(RoadmapSchema)
    done = fields.List(fields.String(), metadata={"description": "skill ids of the steps ticked off"})
    created_at = UtcDateTime()
    updated_at = UtcDateTime()


class StepSchema(Schema):
    done = fields.Boolean(required=True)


ROADMAP_EXAMPLE = {"target": "software_optimization", "level": "mid", "location": "Austin, TX",
                   "hours_per_week": 10}


@blp.route("/roadmap", methods=["POST"])
@blp.arguments(RoadmapRequestSchema, example=ROADMAP_EXAMPLE)
@blp.response(200, RoadmapSchema)
def roadmap(data):
    """A roadmap to a target. Anyone may ask; with a token, your verified skills are skipped."""
    return roadmaps.plan(api_user(), data)


@blp.route("/roadmaps", methods=["GET"])
@token_required()
@blp.response(200, SavedRoadmapSchema(many=True))
def saved():
    """Your saved roadmaps, newest first."""
    return roadmaps.mine(api_user())


@blp.route("/roadmaps", methods=["POST"])
@token_required()
@blp.arguments(RoadmapRequestSchema, example=ROADMAP_EXAMPLE)
@blp.response(201, SavedRoadmapSchema)
def save(data):
    """Compute and save a roadmap (the profile text is used, not stored)."""
    return roadmaps.save(api_user(), data)


@blp.route("/roadmaps/<int:roadmap_id>", methods=["GET"])
@token_required()
@blp.response(200, SavedRoadmapSchema)
def one(roadmap_id):
    """One of your saved roadmaps."""
    return roadmaps.owned(api_user(), roadmap_id)


@blp.route("/roadmaps/<int:roadmap_id>", methods=["DELETE"])
@token_required()
@blp.response(204)
def remove(roadmap_id):
    """Delete one of your saved roadmaps."""
    roadmaps.delete(api_user(), roadmap_id)


@blp.route("/roadmaps/<int:roadmap_id>/steps/<string:skill>", methods=["PUT"])
@token_required()
@blp.arguments(StepSchema, example={"done": True})
@blp.response(200, SavedRoadmapSchema)
def step(data, roadmap_id, skill):
    """Tick a step off (done: true) or undo it."""
    if len(skill) > 80:
        abort(404, message="no such step", field="skill")
    return roadmaps.tick(api_user(), roadmap_id, skill, data["done"])


@blp.route("/roadmaps/<int:roadmap_id>/pdf", methods=["GET"])
@token_required()
@blp.response(200, content_type="application/pdf", description="a one-page PDF of the roadmap")
def pdf(roadmap_id):
    """One of your saved roadmaps as a one-page PDF."""
    saved = roadmaps.owned(api_user(), roadmap_id)
    return Response(exports.to_pdf(exports.roadmap_html(saved.plan, saved.done)), mimetype="application/pdf")
