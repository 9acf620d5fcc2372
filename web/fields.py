"""Marshmallow fields shared by the API schemas."""
from datetime import timezone

from marshmallow import fields


class UtcDateTime(fields.DateTime):
    """A timestamp as RFC 3339 with its offset, as the OpenAPI `date-time` format requires.

    The models store naive datetimes that mean UTC (accounts.models.utcnow); plain
    fields.DateTime would send them without an offset ("2026-01-02T03:04:05"), which is not
    a `date-time` and leaves clients guessing the zone. Naive values are sent as UTC
    ("...+00:00"); aware ones are converted to UTC.
    """

    def _serialize(self, value, attr, obj, **kwargs):
        if value is not None:
            value = (value.replace(tzinfo=timezone.utc) if value.tzinfo is None
                     else value.astimezone(timezone.utc))
        return super()._serialize(value, attr, obj, **kwargs)
