"""Salary bands API: GET /api/v1/salary?track=&level=&location=&currency=."""
from flask_smorest import Blueprint
from marshmallow import Schema, fields, validate

from .salary import LEVELS, TRACKS, salary_band
from .service import salary_postings

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


@blp.route("")
@blp.arguments(SalaryQuerySchema, location="query")
@blp.response(200, SalaryBandSchema)
def band(query):
    """A salary band with every source that made it: BLS OEWS (national and metro), the level
    ranges of a GPU performance engineer career profile, and the ranges posted in jobs stored here in the last 12 months."""
    return salary_band(query["track"], query["level"], query.get("location"),
                       postings=salary_postings(), currency=query["currency"])
