"""Page forms: Flask-WTF's CSRF check on every state-changing page request.

Every POST, PUT, PATCH and DELETE outside /api/ must carry the session's token, as the form
field `csrf_token` or the X-CSRFToken header (the pages' scripts). The API is left out on
purpose: it authenticates with bearer tokens only and never reads the session cookie.
"""
from flask import Flask, current_app, request

from extensions import csrf


def _check_page_request():
    if request.path.startswith("/api/") or not current_app.config["WTF_CSRF_ENABLED"]:
        return
    csrf.protect()  # a no-op for safe methods; CSRFError (400) otherwise


def register(app: Flask) -> None:
    app.before_request(_check_page_request)
