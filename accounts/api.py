"""Accounts API: signup, tokens, invitations."""
from flask.views import MethodView
from flask_smorest import Blueprint, abort

from accounts import service
from accounts.models import Role
from accounts.schemas import (CredentialsSchema, InvitationRequestSchema, InvitationSchema,
                              SignupSchema, TokenSchema, UserSchema)
from web import limits
from web.auth import api_token, api_user, login_required

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Accounts and tokens")
orgs = Blueprint("organisations", __name__, url_prefix="/api/v1/organisations",
                 description="Organisations and invitations")


def _refuse(err: service.AccountError):
    abort(err.status, message=err.message, field=err.field)


@blp.route("/signup", methods=["POST"])
@limits.sign_ups
@blp.arguments(SignupSchema, example={"email": "ada@example.com", "role": "candidate",
                                      "password": "correct horse battery staple"})
@blp.response(201, UserSchema)
def signup(data):
    """Create an account (candidate or recruiter)."""
    try:
        return service.signup(**data)
    except service.AccountError as err:
        _refuse(err)


@blp.route("/me")
@blp.response(200, UserSchema)
@login_required()
def me():
    """The signed-in user."""
    return api_user()


@blp.route("/tokens")
class Tokens(MethodView):
    @limits.failed_sign_ins
    @limits.new_tokens
    @blp.arguments(CredentialsSchema, example={"email": "ada@example.com", "name": "laptop",
                                               "password": "correct horse battery staple"})
    @blp.response(201, TokenSchema)
    def post(self, data):
        """Exchange email and password for a bearer token."""
        try:
            user = service.authenticate(data["email"], data["password"])
        except service.AccountError as err:
            _refuse(err)
        token, plain = service.issue_token(user, data.get("name"))
        token.token = plain  # shown in this response only; never stored
        return token

    @blp.response(200, TokenSchema(many=True))
    @login_required()
    def get(self):
        """The caller's tokens (never their values)."""
        return sorted(api_user().tokens, key=lambda t: t.id)


@blp.route("/tokens/<int:token_id>", methods=["DELETE"])
@blp.response(204)
@login_required()
def revoke(token_id):
    """Revoke one of the caller's tokens."""
    try:
        service.revoke_token(api_user(), token_id)
    except service.AccountError as err:
        _refuse(err)


@blp.route("/tokens/current", methods=["DELETE"])
@blp.response(204)
@login_required()
def revoke_current():
    """Revoke the token this request was made with (sign out)."""
    service.revoke_token(api_user(), api_token().id)


@orgs.route("/<int:org_id>/invitations", methods=["POST"])
@orgs.arguments(InvitationRequestSchema, example={"email": "grace@example.com"})
@orgs.response(201, InvitationSchema)
@login_required(Role.RECRUITER)
def invite(data, org_id):
    """An organisation's administrator invites a recruiter by email."""
    user = api_user()
    if user.organisation_id != org_id:
        abort(403, message="you administer another organisation", field="org_id")
    try:
        invitation, code = service.invite(user, data["email"])
    except service.AccountError as err:
        _refuse(err)
    invitation.code = code  # shown in this response only; only its hash is stored
    return invitation
