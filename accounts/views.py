"""Account pages: sign up, sign in and out, password reset, the account and its API tokens,
the organisation and its invitations."""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import (Blueprint, abort, current_app, flash, redirect, render_template, request,
                   url_for)
from flask_login import current_user, login_required, login_user, logout_user
from marshmallow import ValidationError

from refusals import NotFound, Refusal, Unauthenticated
from web import limits
from web.errors import http_status

from . import mail, service
from .models import Role
from .schemas import SignupSchema
from .tokens import token_lifetime_days

bp = Blueprint("accounts", __name__)


def _safe_next(target: str | None) -> str:
    # Only same-site relative paths, so the login form cannot bounce users to another site.
    if target and target.startswith("/") and not target.startswith("//") and not urlsplit(target).netloc:
        return target
    return url_for("pages.index")


def _home_for(user) -> str:
    if user.has_role(Role.RECRUITER):
        return url_for("jobs_pages.mine")
    return url_for("candidate_pages.profile", candidate_id=user.id)


def _field_errors(messages: dict) -> dict[str, str]:
    """marshmallow's {field: [message, ...]} as one message per field, for the form."""
    return {field: (found[0] if isinstance(found, list) else str(found))
            for field, found in messages.items()}


@bp.route("/login", methods=["GET", "POST"])
@limits.failed_sign_ins
def login():
    if request.method == "POST":
        try:
            user = service.authenticate(request.form.get("email", ""), request.form.get("password", ""))
        except Unauthenticated as err:
            return render_template("accounts/login.html", email=request.form.get("email", ""),
                                   errors={"password": err.message}), 401
        login_user(user)
        return redirect(_safe_next(request.args.get("next")))
    return render_template("accounts/login.html", email="", errors={})


@bp.route("/logout", methods=["POST"])
def logout():
    logout_user()
    return redirect(url_for("pages.index"))


@bp.route("/signup", methods=["GET", "POST"])
@limits.sign_ups
def signup():
    form = {"email": request.values.get("email", ""), "role": request.values.get("role", ""),
            "organisation": request.values.get("organisation", ""),
            "invitation": request.values.get("invitation", ""),
            "name": request.values.get("name", ""), "display_name": request.values.get("display_name", "")}
    if form["invitation"] and not form["role"]:
        form["role"] = "recruiter"
    if request.method == "GET":
        return render_template("accounts/signup.html", form=form, errors={})
    data = {key: value.strip() for key, value in form.items() if value.strip()}
    data["password"] = request.form.get("password", "")
    if data.get("role") != "recruiter":
        data.pop("organisation", None)
        data.pop("invitation", None)
    elif data.get("invitation"):
        data.pop("organisation", None)  # the invitation names the organisation
    try:
        if not data.get("name"):
            # The page asks everyone for a name (the API leaves it optional).
            raise ValidationError({"name": ["give your name"]})
        user = service.signup(**SignupSchema().load(data))
    except ValidationError as err:
        return render_template("accounts/signup.html", form=form,
                               errors=_field_errors(err.messages)), 422
    except Refusal as err:
        return render_template("accounts/signup.html", form=form,
                               errors={err.field or "email": err.message}), http_status(err)
    login_user(user)
    flash("Welcome to KernelPath.", "ok")
    wanted = request.args.get("next")
    return redirect(_safe_next(wanted) if wanted else _home_for(user))


@bp.route("/password/forgot", methods=["GET", "POST"])
@limits.password_resets
def forgot_password():
    if request.method == "GET":
        return render_template("accounts/forgot.html", email="", sent=False)
    email = request.form.get("email", "").strip()
    if not mail.configured():
        flash("This server cannot send e-mail, so it cannot reset passwords itself: ask its "
              "administrator (flask users reset-link EMAIL).", "error")
        return render_template("accounts/forgot.html", email=email, sent=False), 503
    user = service.find_user(email) if email else None
    if user is not None:
        links = service.ResetLinks.from_config(current_app.config)
        link = url_for("accounts.reset_password", token=service.password_reset_token(user, links),
                       _external=True)
        minutes = current_app.config["PASSWORD_RESET_TTL_MINUTES"]
        mail.send(user.email, "Reset your KernelPath password",
                  f"Someone (we hope you) asked to reset the password of {user.email}.\n\n"
                  f"Choose a new one here within {minutes} minutes: {link}\n\n"
                  "If it was not you, ignore this message; your password stays as it is.")
    # The same answer whether or not the address has an account: no one learns who is here.
    return render_template("accounts/forgot.html", email=email, sent=True)


@bp.route("/password/reset/<token>", methods=["GET", "POST"])
def reset_password(token):
    links = service.ResetLinks.from_config(current_app.config)
    try:
        user = service.user_for_reset_token(token, links)
    except Refusal as err:
        return render_template("accounts/reset.html", token=None, invalid=err.message,
                               errors={}), http_status(err)
    if request.method == "GET":
        return render_template("accounts/reset.html", token=token, email=user.email,
                               errors={})
    password = request.form.get("password", "")
    if password != request.form.get("confirm", ""):
        return render_template("accounts/reset.html", token=token, email=user.email,
                               errors={"confirm": "the two passwords differ"}), 422
    try:
        user = service.reset_password(token, password, links)
    except Refusal as err:
        return render_template("accounts/reset.html", token=token, email=user.email,
                               errors={err.field or "password": err.message}), http_status(err)
    login_user(user)
    flash("Your password is changed, and your API tokens are revoked.", "ok")
    return redirect(url_for("accounts.account"))


@bp.route("/account", methods=["GET"])
@login_required
def account():
    return _account_page()


def _account_page(new_token: str | None = None, errors: dict | None = None, status: int = 200,
                  names: dict | None = None, name_errors: dict | None = None):
    tokens = sorted(current_user.tokens, key=lambda t: t.id, reverse=True)
    return render_template("accounts/account.html", tokens=tokens, new_token=new_token,
                           errors=errors or {}, names=names, name_errors=name_errors or {}), status


@bp.route("/account/names", methods=["POST"])
@login_required
def update_names():
    names = {"full_name": request.form.get("full_name", ""),
             "display_name": request.form.get("display_name", "")}
    try:
        service.set_names(current_user, names["full_name"], names["display_name"])
    except Refusal as err:
        field = "full_name" if err.field == "name" else (err.field or "full_name")
        return _account_page(names=names, name_errors={field: err.message}, status=http_status(err))
    flash("Names saved.", "ok")
    return redirect(url_for("accounts.account") + "#names", 303)


@bp.route("/account/tokens", methods=["POST"])
@login_required
@limits.new_tokens
def create_token():
    name = request.form.get("name", "").strip()
    if len(name) > 100:
        return _account_page(errors={"name": "name must be at most 100 characters"}, status=422)
    _, plain = service.issue_token(current_user, name or None, days=token_lifetime_days())
    # Shown in this response only: the database keeps its hash.
    return _account_page(new_token=plain)


@bp.route("/account/tokens/<int:token_id>/revoke", methods=["POST"])
@login_required
def revoke_token(token_id):
    try:
        service.revoke_token(current_user, token_id)
    except NotFound:
        abort(404)
    flash("Token revoked.", "ok")
    return redirect(url_for("accounts.account"))


@bp.route("/organisation", methods=["GET", "POST"])
@login_required
def organisation():
    if not (current_user.has_role(Role.RECRUITER) and current_user.organisation_id):
        abort(403)
    errors, invited = {}, None
    status = 200
    if request.method == "POST":
        email = request.form.get("email", "").strip()
        try:
            address = SignupSchema(only=("email",)).load({"email": email})["email"]
            invitation, code = service.invite(
                current_user, address,
                link_for=lambda c: url_for("accounts.signup", invitation=c, email=address,
                                           _external=True))
        except ValidationError as err:
            errors, status = _field_errors(err.messages), 422
        except Refusal as err:
            errors, status = {err.field or "email": err.message}, http_status(err)
        else:
            invited = {"email": invitation.email, "emailed": invitation.emailed,
                       "link": url_for("accounts.signup", invitation=code,
                                       email=invitation.email, _external=True)}
    members, pending = service.organisation_of(current_user)
    return render_template("accounts/organisation.html", members=members, pending=pending,
                           errors=errors, invited=invited,
                           email=request.form.get("email", "") if errors else ""), status
