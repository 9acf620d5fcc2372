"""Request and response shapes for the jobs API."""
from flask import current_app
from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates, validates_schema

from skillmap.parse import is_blank
from skillmap.salary import CURRENCIES
from skillmap.sections import NEEDS
from skillmap.seniority import LEVELS as SENIORITY_LEVELS
from skillmap.taxonomy import TRACKS, load_taxonomy
from skillmap.workplace import WORKPLACES
from web.fields import UtcDateTime


def check_posting_text(value: str) -> None:
    """Shared rules for a posting's text: not blank, not binary, not over the size limit."""
    if is_blank(value):
        raise ValidationError("must not be empty")
    if "\x00" in value:
        raise ValidationError("looks like binary data, not text")
    limit = current_app.config["JOB_TEXT_MAX_BYTES"]
    if len(value.encode("utf-8")) > limit:
        raise ValidationError(f"is over {limit // 1024} KB")


class ParseRequestSchema(Schema):
    text = fields.String(required=True, validate=check_posting_text)
    title = fields.String(validate=validate.Length(max=200))


class EvidenceSchema(Schema):
    text = fields.String(metadata={"description": "the sentence or line the skill appears in"})
    start = fields.Integer(metadata={"description": "offset of the mention in the posting"})
    end = fields.Integer()
    match = fields.String(metadata={"description": "the words as written"})
    section = fields.String(metadata={
        "enum": ["required", "preferred", "descriptive", "other"],
        "description": "the section the line stands in: a qualification heading, a nice-to-have "
                       "heading, a description of the company, the work or the offer, or none"})
    need = fields.String(metadata={"enum": list(NEEDS),
                                   "description": "what this mention asks of the candidate"})


class SkillFoundSchema(Schema):
    id = fields.String()
    name = fields.String()
    category = fields.String()
    need = fields.String(metadata={
        "enum": list(NEEDS),
        "description": "the strongest of the skill's mentions: required (minimum or basic "
                       "qualifications), preferred (nice to have, a plus), or mentioned (only in "
                       "the company introduction, the responsibilities or the benefits)"})
    required = fields.Boolean(metadata={"description": "need == \"required\" (kept for compatibility)"})
    mentions = fields.Integer(metadata={"description": "how many times the text names the skill"})
    offsets = fields.List(fields.List(fields.Integer()), metadata={
        "description": "[start, end) character offsets of every mention, in reading order"})
    evidence = fields.List(fields.Nested(EvidenceSchema), metadata={
        "description": "up to five lines naming the skill, the strongest first: the requirement "
                       "line before a responsibility or an introduction"})


class ExperiencePathSchema(Schema):
    degree = fields.String(allow_none=True, metadata={"enum": ["bachelor", "master", "phd", None]})
    min_years = fields.Integer(allow_none=True)


class SalarySchema(Schema):
    min = fields.Float()
    max = fields.Float(metadata={"description": "equal to min for a single rate (\"$95/hr\")"})
    currency = fields.String(metadata={"description": "ISO 4217 code: USD, EUR, GBP, CAD, PLN, INR..."})
    period = fields.String(metadata={"enum": ["year", "month", "hour"]})


class ParseSchema(Schema):
    title = fields.String(allow_none=True)
    primary_track = fields.String(allow_none=True, metadata={
        "enum": [*TRACKS, None], "description": "null when the text names no GPU-engineering skill"})
    track_confidence = fields.Float(metadata={
        "description": "the primary track's blended score (0 when there is no track)"})
    tracks = fields.Dict(keys=fields.String(), values=fields.Float(),
                         metadata={"description": "track -> score; scores sum to 1"})
    skills = fields.List(fields.Nested(SkillFoundSchema))
    experience_paths = fields.List(fields.Nested(ExperiencePathSchema), metadata={
        "description": "every degree/years alternative stated (\"BS + 8 years or MS + 6 or PhD + 3\"), "
                       "lowest degree first; one path when the posting states no alternatives"})
    min_years = fields.Integer(allow_none=True, metadata={
        "description": "the years of the path with the lowest degree: the overall minimum, "
                       "not a sub-requirement; 0 for \"0-2 years\""})
    degree = fields.String(allow_none=True, metadata={
        "enum": ["bachelor", "master", "phd", None],
        "description": "the lowest degree required (with min_years, one consistent requirement)"})
    salary = fields.Nested(SalarySchema, allow_none=True)
    seniority = fields.String(allow_none=True, metadata={
        "enum": ["junior", "mid", "senior", "staff_principal", None],
        "description": "from the title first, then the years; null when neither says"})
    workplace = fields.String(allow_none=True, metadata={
        "enum": ["remote", "hybrid", "onsite", None],
        "description": "where the work happens, as the posting states it; null when it does not"})
    parser_version = fields.Integer()


class JobCreateSchema(Schema):
    title = fields.String(required=True, validate=validate.Length(min=1, max=200))
    location = fields.String(allow_none=True, validate=validate.Length(max=200))
    text = fields.String(required=True, validate=check_posting_text)


class JobUpdateSchema(Schema):
    title = fields.String(validate=validate.Length(min=1, max=200))
    location = fields.String(allow_none=True, validate=validate.Length(max=200))
    text = fields.String(validate=check_posting_text)


class JobSummarySchema(Schema):
    id = fields.Integer()
    title = fields.String()
    location = fields.String(allow_none=True)
    organisation = fields.Function(lambda j: {"id": j.organisation.id, "name": j.organisation.name})
    primary_track = fields.String(allow_none=True)
    seniority = fields.String(allow_none=True)
    min_years = fields.Integer(allow_none=True)
    degree = fields.String(allow_none=True)
    workplace = fields.String(allow_none=True, metadata={"enum": ["remote", "hybrid", "onsite", None]})
    salary = fields.Function(lambda j: j.salary, metadata={
        "description": "posted pay as parsed, or as the organisation corrected it"})
    skills = fields.Function(lambda j: [s.skill_id for s in j.skills])
    example = fields.Function(lambda j: j.is_example, metadata={
        "description": "true for the shipped starter jobs: examples, not real openings"})
    created_at = UtcDateTime()


class JobSchema(JobSummarySchema):
    text = fields.String()
    parse = fields.Nested(ParseSchema, metadata={
        "description": "the parser's reading of the text; the fields above include corrections"})
    corrected = fields.Function(lambda j: sorted(j.overrides or {}), metadata={
        "description": "the fields the organisation corrected by hand (skills: some skills)"})
    updated_at = UtcDateTime()


class JobQuerySchema(Schema):
    class Meta:
        unknown = RAISE  # a misspelt filter (?tracks=) is an error, not a silent "all jobs"

    track = fields.String(validate=validate.OneOf(TRACKS))
    # Items are checked together in _known_skill: per-item errors would key the error body by
    # list index, mixing integer and text keys in the JSON answer.
    skill = fields.List(fields.String(), validate=validate.Length(max=20),
                        metadata={"description": "taxonomy skill ids; repeat for several "
                                                 "(skill=cuda&skill=nccl: jobs naming both)"})
    q = fields.String(validate=validate.Length(min=1, max=200))
    organisation = fields.Integer(validate=validate.Range(min=1))
    seniority = fields.String(validate=validate.OneOf(SENIORITY_LEVELS))
    workplace = fields.String(validate=validate.OneOf(WORKPLACES), metadata={
        "description": "remote, hybrid or onsite, as the posting states it"})
    location = fields.String(validate=validate.Length(min=1, max=200), metadata={
        "description": "part of the job's location, any case (\"austin\", \"CA\")"})
    min_salary = fields.Integer(validate=validate.Range(min=0, max=100_000_000), metadata={
        "description": "yearly pay in `currency` the posted range reaches; hourly pay counts "
                       "2,080 hours a year. Jobs posting no pay do not match"})
    max_salary = fields.Integer(validate=validate.Range(min=0, max=100_000_000), metadata={
        "description": "yearly pay in `currency` the posted range starts at or below"})
    currency = fields.String(load_default="USD", validate=validate.OneOf(CURRENCIES), metadata={
        "description": "ISO 4217 code of the salary filters"})
    page = fields.Integer(load_default=1, validate=validate.Range(min=1, max=100_000))
    per_page = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))

    @validates("skill")
    def _known_skill(self, value, **_):
        unknown = [v for v in value if v not in load_taxonomy()]
        if unknown:
            raise ValidationError(f"unknown skill id {unknown[0][:80]!r} (GET /api/v1/skills?q= finds ids)")

    @validates_schema
    def _salary_range(self, data, **_):
        if data.get("min_salary") is not None and data.get("max_salary") is not None \
                and data["min_salary"] > data["max_salary"]:
            raise ValidationError("must not be below min_salary", field_name="max_salary")


class JobPageSchema(Schema):
    items = fields.List(fields.Nested(JobSummarySchema))
    page = fields.Integer()
    per_page = fields.Integer()
    total = fields.Integer()
    pages = fields.Integer()


class SkillQuerySchema(Schema):
    q = fields.String(validate=validate.Length(min=1, max=100), metadata={
        "description": "words of a skill's name or one of its aliases; none lists them all"})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=500))


class SkillSchema(Schema):
    id = fields.String()
    name = fields.String()
    category = fields.String()
    track = fields.String(metadata={"description": "the track the skill weighs most in"})
