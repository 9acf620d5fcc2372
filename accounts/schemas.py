"""Request and response shapes for the accounts API."""
from marshmallow import Schema, fields, validate

from web.fields import UtcDateTime


class SignupSchema(Schema):
    email = fields.Email(required=True, validate=validate.Length(max=254))
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=8, max=200))
    role = fields.String(required=True, validate=validate.OneOf(["candidate", "recruiter"]))
    organisation = fields.String(validate=validate.Length(min=2, max=200))
    invitation = fields.String(validate=validate.Length(min=8, max=200))
    name = fields.String(validate=validate.Length(min=1, max=120))
    display_name = fields.String(validate=validate.Length(min=2, max=80))


class NamesSchema(Schema):
    """A person's name and public display name (blank: none)."""
    name = fields.String(required=True, validate=validate.Length(max=120))
    display_name = fields.String(required=True, validate=validate.Length(max=80))


class UserSchema(Schema):
    id = fields.Integer()
    email = fields.String()
    role = fields.String()
    organisation = fields.Function(
        lambda u: {"id": u.organisation.id, "name": u.organisation.name} if u.organisation else None)
    is_org_admin = fields.Boolean()
    name = fields.String(attribute="full_name", allow_none=True)
    display_name = fields.String(allow_none=True)
    created_at = UtcDateTime()


class CredentialsSchema(Schema):
    email = fields.Email(required=True)
    password = fields.String(required=True, load_only=True, validate=validate.Length(min=1, max=200))
    name = fields.String(validate=validate.Length(max=100))


class TokenSchema(Schema):
    id = fields.Integer()
    token = fields.String(metadata={"description": "shown once; store it"})
    prefix = fields.String()
    name = fields.String(allow_none=True)
    created_at = UtcDateTime()
    expires_at = UtcDateTime()
    last_used_at = UtcDateTime(allow_none=True)
    revoked_at = UtcDateTime(allow_none=True)


class InvitationRequestSchema(Schema):
    email = fields.Email(required=True)


class InvitationSchema(Schema):
    id = fields.Integer()
    email = fields.String()
    organisation_id = fields.Integer()
    code = fields.String(metadata={"description": "give it to the invitee; shown once"})
    expires_at = UtcDateTime()
