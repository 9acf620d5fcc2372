"""Salary bands API: GET /api/v1/salary?track=&level=&location=&currency=."""
from datetime import timezone

from flask_smorest import Blueprint, abort
from marshmallow import Schema, fields, validate
from sqlalchemy import select

from extensions import db

from .models import Job
from .salary import LEVELS, TRACKS, SalaryError, salary_band

blp = Blueprint("salary", __name__, url_prefix="/api/v1/salary",
                description="Salary bands by track, level and location, with their sources")


class SalaryQuerySchema(Schema):
    track = fields.String(required=True, validate=validate.OneOf(TRACKS))
    level = fields.String(required=True, validate=validate.OneOf(LEVELS))
    location = fields.String(validate=validate.Length(max=200), metadata={
        "description": "a city or metro area; unknown places fall back to national figures"})
    currency = fields.String(load_default="USD", validate=validate.Regexp(r"^[A-Z]{3}$"), metadata={
        "description": "ISO 4217 code; BLS and seed figures are USD, other currencies use postings only"})


class SalarySourceSchema(Schema):
    source = fields.String()
    kind = fields.String(metadata={"enum": ["bls_oews", "seed", "postings"]})
    area = fields.String()
    currency = fields.String()
    period = fields.String()
    figures = fields.Dict(keys=fields.String(), values=fields.Float())
    method = fields.String()
    postings_per_level = fields.Dict(keys=fields.String(), values=fields.Integer())
    rows = fields.List(fields.Dict(), metadata={"description": "the source rows behind the figures"})


class SalaryBandSchema(Schema):
    track = fields.String()
    level = fields.String()
    location = fields.String(allow_none=True)
    area = fields.String(metadata={"description": "the wage area used ('U.S.' for national)"})
    currency = fields.String()
    period = fields.String()
    band = fields.Dict(keys=fields.String(), values=fields.Float(), metadata={
        "description": "p25, median, p75, and p10/p90 where known; each the median over its sources"})
    sources_by_figure = fields.Dict(attribute="from", data_key="from", keys=fields.String(),
                                    values=fields.List(fields.String()))
    sources = fields.List(fields.Nested(SalarySourceSchema))
    notes = fields.List(fields.String())


def stored_postings() -> list[dict]:
    """Stored jobs that post a salary, as the salary module reads them."""
    rows = db.session.execute(select(Job.id, Job.title, Job.primary_track, Job.seniority, Job.parse,
                                     Job.created_at)).all()
    out = []
    for job_id, title, track, seniority, parse, created_at in rows:
        salary = (parse or {}).get("salary")
        if salary:
            if created_at is not None and created_at.tzinfo is None:
                created_at = created_at.replace(tzinfo=timezone.utc)  # stored as UTC
            out.append({"id": job_id, "title": title, "track": track, "seniority": seniority,
                        "salary": salary, "created_at": created_at})
    return out


@blp.route("")
@blp.arguments(SalaryQuerySchema, location="query")
@blp.response(200, SalaryBandSchema)
def band(query):
    """A salary band with every source that made it: BLS OEWS (national and metro), the level
    ranges of seed 001, and the ranges posted in jobs stored here in the last 12 months."""
    try:
        return salary_band(query["track"], query["level"], query.get("location"),
                           postings=stored_postings(), currency=query["currency"])
    except SalaryError as err:
        abort(422, message=err.message, field=err.field)
