"""Accounts API: signup, tokens, invitations."""
from flask.views import MethodView
from flask_smorest import Blueprint, abort

from accounts import service
from accounts.models import Role
from accounts.schemas import (CredentialsSchema, InvitationRequestSchema, InvitationSchema, NamesSchema,
                              SignupSchema, TokenSchema, UserSchema)
from accounts.tokens import api_token, api_user, token_lifetime_days, token_required
from web import limits

blp = Blueprint("auth", __name__, url_prefix="/api/v1/auth", description="Accounts and tokens")
orgs = Blueprint("organisations", __name__, url_prefix="/api/v1/organisations",
                 description="Organisations and invitations")


@blp.route("/signup", methods=["POST"])
@limits.sign_ups
@blp.arguments(SignupSchema, example={"email": "ada@example.com", "role": "candidate",
                                      "password": "correct horse battery staple"})
@blp.response(201, UserSchema)
def signup(data):
    """Create an account (candidate or recruiter)."""
    return service.signup(**data)


@blp.route("/me")
class Me(MethodView):
    @blp.response(200, UserSchema)
    @token_required()
    def get(self):
        """The signed-in user."""
        return api_user()

    @blp.arguments(NamesSchema(partial=True), example={"name": "Ada Lovelace", "display_name": "ada"})
    @blp.response(200, UserSchema)
    @token_required()
    def patch(self, data):
        """Change your name (seen by recruiters you applied to or were invited by) or your public
        display name; an empty string clears one."""
        user = api_user()
        return service.set_names(user, data.get("name", user.full_name or ""),
                                 data.get("display_name", user.display_name or ""))


@blp.route("/tokens")
class Tokens(MethodView):
    @limits.failed_sign_ins
    @limits.new_tokens
    @blp.arguments(CredentialsSchema, example={"email": "ada@example.com", "name": "laptop",
                                               "password": "correct horse battery staple"})
    @blp.response(201, TokenSchema)
    def post(self, data):
        """Exchange email and password for a bearer token."""
        user = service.authenticate(data["email"], data["password"])
        token, plain = service.issue_token(user, data.get("name"), days=token_lifetime_days())
        token.token = plain  # shown in this response only; never stored
        return token

    @blp.response(200, TokenSchema(many=True))
    @token_required()
    def get(self):
        """The caller's tokens (never their values)."""
        return sorted(api_user().tokens, key=lambda t: t.id)


@blp.route("/tokens/<int:token_id>", methods=["DELETE"])
@blp.response(204)
@token_required()
def revoke(token_id):
    """Revoke one of the caller's tokens."""
    service.revoke_token(api_user(), token_id)


@blp.route("/tokens/current", methods=["DELETE"])
@blp.response(204)
@token_required()
def revoke_current():
    """Revoke the token this request was made with (sign out)."""
    service.revoke_token(api_user(), api_token().id)


@orgs.route("/<int:org_id>/invitations", methods=["POST"])
@orgs.arguments(InvitationRequestSchema, example={"email": "grace@example.com"})
@orgs.response(201, InvitationSchema)
@token_required(Role.RECRUITER)
def invite(data, org_id):
    """An organisation's administrator invites a recruiter by email."""
    user = api_user()
    if user.organisation_id != org_id:
        abort(403, message="you administer another organisation", field="org_id")
    invitation, code = service.invite(user, data["email"])
    invitation.code = code  # shown in this response only; only its hash is stored
    return invitation
