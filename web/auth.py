"""Who is calling the API: a bearer token.

The API ignores the login session on purpose: a cookie would make every state-changing
endpoint open to cross-site request forgery. Pages use Flask-Login's session instead.
"""
from __future__ import annotations

from copy import deepcopy
from datetime import timedelta
from functools import wraps

from flask import request
from flask_smorest import abort
from flask_smorest.utils import deepupdate

from accounts.models import Role, User, utcnow
from accounts.service import user_for_token
from extensions import db


LAST_USED_RESOLUTION = timedelta(minutes=1)


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
        # Recorded to the minute: a write on every call would double the cost of each request.
        now = utcnow()
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
            token.last_used_at = now
            db.session.commit()
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


def login_required(*roles: Role):
    """Refuse the request with 401 when nobody is signed in, 403 when the role does not fit."""
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
        _document_bearer_auth(wrapper, roles)
        return wrapper
    return decorate


def _document_bearer_auth(view, roles) -> None:
    """Mark the operation in the OpenAPI document as needing a bearer token, with its refusals.

    Stored as flask-smorest's Blueprint.doc stores manual doc, so it holds whichever side of the
    smorest decorators login_required is put; `wraps` shares the inner view's `_apidoc`, hence
    the copy.
    """
    # Names of flask-smorest's response components (the Error body); apispec makes them $refs.
    responses = {"401": "UNAUTHORIZED", **({"403": "FORBIDDEN"} if roles else {})}
    apidoc = deepcopy(getattr(view, "_apidoc", {}))
    apidoc["manual_doc"] = deepupdate(apidoc.get("manual_doc", {}),
                                      {"security": [{"bearerAuth": []}], "responses": responses})
    view._apidoc = apidoc
