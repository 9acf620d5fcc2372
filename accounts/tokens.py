"""Who is calling the API: a bearer token, and `token_required` for the API's views.

The API ignores the login session on purpose: a cookie would make every state-changing
endpoint open to cross-site request forgery. Pages use Flask-Login's session (and its
`login_required`) instead.
"""
from __future__ import annotations

from functools import wraps

from flask import current_app, request
from flask_smorest import abort

from web.openapi import document_bearer_auth

from .models import Role, User
from .service import note_token_use, user_for_token


def api_user() -> User | None:
    """The user behind `Authorization: Bearer ...`, or None."""
    # Cached per request in the WSGI environ (g can outlive a request in an outer app context).
    if "kernelpath.user" in request.environ:
        return request.environ["kernelpath.user"]
    user = None
    header = request.headers.get("Authorization", "")
    if header:
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "bearer" or not value.strip():
            abort(401, message="Authorization must be 'Bearer <token>'", field="Authorization")
        found = user_for_token(value.strip())
        if found is None:
            abort(401, message="token is invalid, expired or revoked", field="Authorization")
        user, token = found
        note_token_use(token)
        request.environ["kernelpath.token"] = token
    request.environ["kernelpath.user"] = user
    return user


def rate_limit_key() -> str:
    """Rate limits count per signed-in user (whatever their token), else per address."""
    user = api_user()
    return f"user:{user.id}" if user is not None else f"ip:{request.remote_addr}"


def api_token():
    """The token the current request was authenticated with."""
    api_user()
    return request.environ.get("kernelpath.token")


def token_lifetime_days() -> int:
    """How long a new token lasts (TOKEN_TTL_DAYS)."""
    return int(current_app.config.get("TOKEN_TTL_DAYS", 90))


def token_required(*roles: Role):
    """Refuse the API request with 401 when it carries no valid bearer token, 403 when the
    user's role does not fit."""
    def decorate(view):
        @wraps(view)
        def wrapper(*args, **kwargs):
            user = api_user()
            if user is None:
                abort(401, message="sign in: send 'Authorization: Bearer <token>'",
                      field="Authorization")
            if roles and not user.has_role(*roles):
                names = " or ".join(r.value for r in roles)
                abort(403, message=f"this needs the {names} role")
            return view(*args, **kwargs)
        document_bearer_auth(wrapper, may_refuse_role=bool(roles))
        return wrapper
    return decorate
