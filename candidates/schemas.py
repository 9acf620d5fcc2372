"""A candidate's profile as the API shows it: verified skills with their evidence, claims apart."""
from marshmallow import Schema, fields, validate

from web.fields import UtcDateTime


class SkillEvidenceSchema(Schema):
    submission_id = fields.Integer()
    task = fields.String()
    score = fields.Float()
    assessment_id = fields.Integer(allow_none=True)
    at = UtcDateTime()


class VerifiedSkillSchema(Schema):
    skill = fields.String()
    name = fields.String()
    level = fields.Float(metadata={"description": "0 to 1"})
    level_name = fields.String(metadata={"description": "foundational, proficient or advanced"})
    verified_at = UtcDateTime()
    evidence = fields.List(fields.Nested(SkillEvidenceSchema))


class ClaimedSkillSchema(Schema):
    id = fields.String()
    name = fields.String()
    category = fields.String()
    evidence = fields.String(allow_none=True)
    also_verified = fields.Boolean()


class ClaimsSchema(Schema):
    skills = fields.List(fields.Nested(ClaimedSkillSchema))
    years = fields.Integer(allow_none=True)
    degree = fields.String(allow_none=True)
    updated_at = UtcDateTime(allow_none=True)


class ProfileSchema(Schema):
    candidate_id = fields.Integer()
    display_name = fields.String(metadata={"description": "the public name"})
    name = fields.String(metadata={"description": "the person's name (else the display name): "
                                                 "for the candidate and the recruiters they "
                                                 "applied to or were invited by"})
    email = fields.String()
    verified = fields.List(fields.Nested(VerifiedSkillSchema))
    verified_tracks = fields.Dict(keys=fields.String(), values=fields.Float(), metadata={
        "description": "per track, 0-1: how strongly graded work points at it (each task once)"})
    claimed = fields.Nested(ClaimsSchema, metadata={"description": "never counted as verified"})
    not_counted = fields.List(fields.Integer(), metadata={
        "description": "accepted submissions left out: nearly the same as the reference solution"})
    held_back = fields.List(fields.Dict(), metadata={
        "description": "accepted solutions held back until a recruiter reviews their likeness to "
                       "earlier work by another candidate: submission_id, other_id, task, "
                       "similarity"})


class ProfileTextSchema(Schema):
    text = fields.String(required=True, validate=validate.Length(max=50_000),
                         metadata={"description": "profile or résumé text; empty deletes it"})
