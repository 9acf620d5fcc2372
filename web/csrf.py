"""A per-session token on every page form, so another site cannot post forms as the user.

The API needs none: it authenticates with bearer tokens only and ignores cookies.
"""
import hmac
import secrets

from flask import Flask, abort, request, session

FIELD = "csrf_token"


def csrf_token() -> str:
    if FIELD not in session:
        session[FIELD] = secrets.token_urlsafe(32)
    return session[FIELD]


def register(app: Flask) -> None:
    app.jinja_env.globals["csrf_token"] = csrf_token

    @app.before_request
    def _check_form_token():
        if request.method != "POST" or request.path.startswith("/api/"):
            return None
        sent = request.form.get(FIELD, "")
        expected = session.get(FIELD, "")
        if not (expected and sent and hmac.compare_digest(sent, expected)):
            abort(400, description="The form expired or came from another site; reload the page.")
        return None
