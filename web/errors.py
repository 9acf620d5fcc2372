"""Every API error is JSON: {status, message, field?, errors?}; every page error is a page.
The one place a service's refusal (refusals.py) gets its HTTP status."""
from flask import Flask, jsonify, render_template, request
from marshmallow import Schema, fields
from werkzeug.exceptions import HTTPException, default_exceptions

from refusals import (Conflict, Forbidden, Gone, Invalid, NotFound, Refusal, TooLarge,
                             Unauthenticated)

REFUSAL_STATUS = {Unauthenticated: 401, Forbidden: 403, NotFound: 404, Conflict: 409, Gone: 410,
                  TooLarge: 413, Invalid: 422}


def http_status(refusal: Refusal) -> int:
    """The HTTP status of a refusal's kind; 422 for a refusal of no listed kind."""
    for kind in type(refusal).__mro__:
        if kind in REFUSAL_STATUS:
            return REFUSAL_STATUS[kind]
    return 422


class ErrorSchema(Schema):
    """The error body as sent (error_body below); documented in place of flask-smorest's own."""

    status = fields.Integer(required=True, metadata={"description": "HTTP status code"})
    message = fields.String(required=True, metadata={
        "description": "what went wrong; starts with the field's name when one is at fault"})
    field = fields.String(metadata={
        "description": "the request field at fault (dotted path; 'body' for the whole body)"})
    errors = fields.Dict(metadata={
        "description": "every problem found, by location then field, as lists of messages"})


def _first_field(errors, prefix=""):
    """Dotted path of the first offending field in a marshmallow error mapping."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if key in ("json", "query", "form", "headers", "path", "files"):
                return _first_field(value, prefix)
            if key == "_schema":
                return prefix.rstrip(".") or "body"
            return _first_field(value, f"{prefix}{key}.")
    return prefix.rstrip(".") or "body"


def _first_message(errors):
    while isinstance(errors, dict) and errors:
        errors = next(iter(errors.values()))
    if isinstance(errors, list) and errors:
        return _first_message(errors[0]) if not isinstance(errors[0], str) else errors[0]
    return errors if isinstance(errors, str) else None


def error_body(status: int, message: str, field=None, errors=None) -> dict:
    body = {"status": status, "message": message}
    if field:
        body["field"] = field
    if errors:
        body["errors"] = errors
    return body


def document_error_schema(api) -> None:
    """Make the OpenAPI "Error" schema describe error_body.

    api.init_app has already resolved every default response (DEFAULT_ERROR and one per
    status, e.g. UNPROCESSABLE_ENTITY) to #/components/schemas/Error from flask-smorest's
    ErrorSchema, whose `status` is a string and which has no `field`; replacing the component
    keeps all those references and makes them point at the shape actually sent.
    """
    api.spec.components.schemas["Error"] = api.ma_plugin.converter.schema2jsonschema(ErrorSchema)


def smorest_apis(app: Flask) -> list:
    """The flask-smorest Api objects initialised on `app`."""
    apis = app.extensions.get("flask-smorest", {}).get("apis", {})
    return [entry["ext_obj"] for entry in apis.values()]


def register(app: Flask) -> None:
    for api in smorest_apis(app):  # after api.init_app(app), before the blueprints
        document_error_schema(api)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        if not request.path.startswith("/api/") or request.path == "/api/v1/docs":
            return _error_page(exc.code, _page_message(exc)), exc.code, _kept_headers(exc)
        data = getattr(exc, "data", None) or {}
        messages = data.get("messages") or data.get("errors")
        field = data.get("field") or (_first_field(messages) if messages else None)
        message = data.get("message") or exc.description or exc.name
        if messages:
            detail = _first_message(messages)
            message = f"{field}: {detail}" if field and detail else (detail or message)
        return jsonify(error_body(exc.code, message, field, messages)), exc.code

    @app.errorhandler(Refusal)
    def _refused(err: Refusal):
        """A refusal no view caught: the API's JSON error, or on a page its status page (a page
        that can say more, a form error, catches the refusal itself)."""
        status = http_status(err)
        if not request.path.startswith("/api/"):
            # Through the HTTP error handling above, as if the view had aborted.
            return app.handle_http_exception(default_exceptions[status]())
        return jsonify(error_body(status, err.message, err.field)), status

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        if isinstance(exc, HTTPException):
            return _http_error(exc)
        app.logger.exception("unhandled error on %s", request.path)
        if request.path.startswith("/api/"):
            return jsonify(error_body(500, "internal error")), 500
        return _error_page(500, None), 500


PAGE_ERRORS = {
    400: ("Bad request", "The request could not be read."),
    401: ("Sign in needed", "Sign in to see this page."),
    403: ("Not yours to see", "Your account cannot open this page."),
    404: ("Page not found", "There is no page here, or it is not visible to you."),
    405: ("Not allowed", "This page does not take that kind of request."),
    413: ("Too large", "What you sent is over the size limit."),
    429: ("Too many tries", "Wait a little, then try again."),
    500: ("Something broke", "The error was logged; please try again in a moment."),
}


def _kept_headers(exc: HTTPException) -> dict:
    """Headers the error carries that a client acts on (Allow on 405, Retry-After on 429)."""
    response = exc.get_response()
    return {k: v for k, v in response.headers.items() if k in ("Allow", "Retry-After")}


def _page_message(exc: HTTPException) -> str | None:
    from flask_wtf.csrf import CSRFError

    if isinstance(exc, CSRFError):
        return "This form expired or came from another site. Reload the page and send it again."
    if exc.code == 429:
        return f"The limit is {exc.description}. Wait a little, then try again."
    return exc.description


def _error_page(status: int, description: str | None) -> str:
    title, message = PAGE_ERRORS.get(status, ("Error", "The request could not be served."))
    # Werkzeug's stock descriptions are written for developers; a view's own words
    # (abort(400, description=...)) are written for the user and say more.
    if description and status not in (404, 500) and not _is_werkzeug_default(status, description):
        message = description
    try:
        return render_template("error.html", status=status, title=title, message=message)
    except Exception:  # noqa: BLE001 - the error page must not fail itself
        return f"{status} {title}: {message}"


def _is_werkzeug_default(status: int, description: str) -> bool:
    from werkzeug.exceptions import default_exceptions

    cls = default_exceptions.get(status)
    return cls is not None and description == cls.description
