"""What the API accepts, checked once for every endpoint before any view or schema runs.

Three mechanisms; each covers endpoints added later with no work in them:

* Request bodies (a `before_request` hook on /api/ paths): a JSON body must be UTF-8,
  strict JSON (no NaN/Infinity), nested at most API_JSON_MAX_DEPTH levels and an object at
  the top; every string and key in it must be storable text: no unpaired UTF-16 surrogates
  ("\\ud800" as a JSON escape) and no NUL characters, which SQLAlchemy, psycopg and spaCy
  cannot encode. Query-string values are refused for NUL characters too. Failures are 400
  (not JSON at all) or 422 (JSON, but a value we cannot take), naming the field.
* Path ids: the `int` URL converter is replaced by one whose values stop at API_MAX_INTEGER
  (the ids are PostgreSQL INTEGER columns: 32-bit signed). `/jobs/2147483648` is then a URL
  that matches no rule: 404. The OpenAPI document shows the bound as the `maximum`.
* Integers that marshmallow loads (query strings, JSON bodies, forms, headers): a check in
  the webargs `pre_load` hook of the parsers flask-smorest uses. It walks the schema being
  loaded (Nested, List, Tuple and Dict values too) and refuses, with 422, an Integer field
  whose value lies outside +-API_MAX_INTEGER, before the schema, its validators or the view
  see it. A field with its own validate.Range bound on a side is left to it on that side (a
  BigInteger column can say so). Schemas need no base class: every `@blp.arguments(...)` is
  covered. For query parameters the OpenAPI document shows the bounds as minimum/maximum.
"""
from __future__ import annotations

import json
import re
from collections.abc import Mapping

from flask import Flask, current_app, request
from flask_smorest import abort
from flask_smorest.arguments import ArgumentsMixin
from flask_smorest.pagination import PaginationMixin
from marshmallow import ValidationError, fields, validate
from webargs import flaskparser
from werkzeug.routing import IntegerConverter

DEFAULT_MAX_INTEGER = 2**31 - 1  # settings.API_MAX_INTEGER
DEFAULT_MAX_DEPTH = 32           # settings.API_JSON_MAX_DEPTH

# Lone surrogates (a JSON "\ud800" escape decodes to one) and NUL: neither can be stored.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _max_integer() -> int:
    return current_app.config.get("API_MAX_INTEGER", DEFAULT_MAX_INTEGER)


def int_value(values, name: str, low: int = -DEFAULT_MAX_INTEGER - 1,
              high: int | None = None) -> tuple[int | None, str | None]:
    """An integer from a page's query string or form: (value, None), (None, None) when absent,
    or (None, a message naming the field) when it is not a whole number in [low, high] (high:
    the database's integers). The pages' counterpart of the API's integer checks."""
    raw = values.get(name)
    if raw is None or str(raw).strip() == "":
        return None, None
    high = _max_integer() if high is None else high
    text = str(raw).strip()
    if not re.fullmatch(r"[+-]?\d{1,20}", text):
        return None, f"{name.replace('_', ' ')} must be a whole number"
    value = int(text)
    if not low <= value <= high:
        return None, f"{name.replace('_', ' ')} must be between {low} and {high}"
    return value, None


def id_converter(max_integer: int) -> type[IntegerConverter]:
    class IdConverter(IntegerConverter):
        """`<int:...>` that refuses ids past the database's integers, so the rule does not match."""

        def __init__(self, map, fixed_digits=0, min=None, max=None, signed=False):
            if max is None or max > max_integer:
                max = max_integer
            if signed and (min is None or min < -max_integer - 1):
                min = -max_integer - 1
            super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)

    return IdConverter


# --- request bodies and query strings ---------------------------------------------------

def _text_problem(value: str) -> str | None:
    found = _UNSTORABLE.search(value)
    if found is None:
        return None
    if found.group() == "\x00":
        return "must not contain NUL characters"
    return f"is not valid Unicode: unpaired surrogate \\u{ord(found.group()):04x}"


def _join(path: str, key) -> str:
    return f"{path}.{key}" if path else str(key)


def _refuse_body(status: int, path: str, message: str):
    # Shaped like webargs' errors ({"json": {field: [message]}}) so web.errors names the field.
    abort(status, messages={"json": {path or "_schema": [message]}})


def _check_json_value(document, max_depth: int) -> None:
    """Walk the parsed body without recursion; refuse the first value we cannot take."""
    stack = [(document, "", 1)]
    while stack:
        value, path, depth = stack.pop()
        if isinstance(value, str):
            problem = _text_problem(value)
            if problem:
                _refuse_body(422, path, problem)
        elif isinstance(value, (dict, list)):
            if depth > max_depth:
                abort(400, messages={"json": [f"is nested more than {max_depth} levels deep"]})
            if isinstance(value, dict):
                for key in value:
                    problem = _text_problem(key)
                    if problem:
                        _refuse_body(422, path, f"has a key that {problem}")
                children = [(item, _join(path, key), depth + 1) for key, item in value.items()]
            else:
                children = [(item, _join(path, index), depth + 1)
                            for index, item in enumerate(value)]
            stack.extend(reversed(children))  # the first problem in document order is named


class _NotJson(ValueError):
    pass


def _refuse_constant(name: str):
    raise _NotJson(f"{name} is not a JSON value")


def check_json_body() -> None:
    """Refuse a JSON body we could not parse, store or hand to the language tools."""
    if not request.is_json:
        return
    raw = request.get_data(cache=True)  # over MAX_CONTENT_LENGTH: 413 before anything is read
    if not raw.strip():
        return  # no body: the schema reports the missing fields
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        abort(400, messages={"json": [f"is not valid UTF-8 (byte 0x{raw[err.start]:02x} "
                                      f"at offset {err.start})"]})
    max_depth = current_app.config.get("API_JSON_MAX_DEPTH", DEFAULT_MAX_DEPTH)
    try:
        document = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:  # thousands of levels: the parser gives up before we can count
        abort(400, messages={"json": [f"is nested more than {max_depth} levels deep"]})
    except (json.JSONDecodeError, _NotJson) as err:
        abort(400, messages={"json": [f"is not valid JSON: {err}"]})
    except ValueError:  # Python refuses integers of more than 4300 digits
        abort(400, messages={"json": ["is not valid JSON: a number has too many digits"]})
    if not isinstance(document, dict):
        kind = {list: "an array", str: "a string", bool: "a boolean",
                type(None): "null"}.get(type(document), "a number")
        _refuse_body(422, "", f"must be a JSON object, not {kind}")
    _check_json_value(document, max_depth)


def check_query() -> None:
    """NUL characters in the query string: refused before they reach the database."""
    for key, value in request.args.items(multi=True):
        if "\x00" in key:
            abort(422, messages={"query": {"_schema": ["a parameter name contains NUL"]}})
        if "\x00" in value:
            abort(422, messages={"query": {key: ["must not contain NUL characters"]}})


# --- integers loaded by marshmallow -----------------------------------------------------

def _own_bounds(field: fields.Field) -> tuple[bool, bool]:
    """Whether the field's own Range validators bound it below / above."""
    low = high = False
    for validator in field.validators:
        if isinstance(validator, validate.Range):
            low = low or validator.min is not None
            high = high or validator.max is not None
    return low, high


def _as_int(value):
    """What marshmallow's Integer would make of `value`, or None where it refuses it anyway."""
    if isinstance(value, bool):
        return None
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def _integer_problems(field: fields.Field, value, path: str, limit: int, found: dict) -> None:
    """Collect {path: [message]} for integers under `field` that the database cannot hold."""
    if value is None:
        return
    if isinstance(field, fields.Integer):
        number = _as_int(value)
        if number is None:
            return
        has_low, has_high = _own_bounds(field)
        if (number > limit and not has_high) or (number < -limit - 1 and not has_low):
            found[path] = [f"must be between {-limit - 1} and {limit}"]
    elif isinstance(field, fields.Pluck):
        inner = field.schema.fields.get(field.field_name)
        if inner is None:
            return
        if field.many and isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                _integer_problems(inner, item, _join(path, index), limit, found)
        elif not field.many:
            _integer_problems(inner, value, path, limit, found)
    elif isinstance(field, fields.Nested):
        schema = field.schema
        if (field.many or schema.many) and isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                _schema_problems(schema, item, _join(path, index), limit, found)
        else:
            _schema_problems(schema, value, path, limit, found)
    elif isinstance(field, fields.List) and isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _integer_problems(field.inner, item, _join(path, index), limit, found)
    elif isinstance(field, fields.Tuple) and isinstance(value, (list, tuple)):
        for index, (inner, item) in enumerate(zip(field.tuple_fields, value)):
            _integer_problems(inner, item, _join(path, index), limit, found)
    elif isinstance(field, fields.Dict) and isinstance(value, Mapping):
        for key, item in value.items():
            if field.key_field is not None:
                _integer_problems(field.key_field, key, _join(path, key), limit, found)
            if field.value_field is not None:
                _integer_problems(field.value_field, item, _join(path, key), limit, found)


def _schema_problems(schema, data, path: str, limit: int, found: dict) -> None:
    if not isinstance(data, Mapping):
        return
    for name, field in schema.fields.items():
        if field.dump_only:
            continue
        key = field.data_key or name
        if key in data:
            _integer_problems(field, data[key], _join(path, key), limit, found)


def integer_problems(schema, data) -> dict:
    """{field path: [message]} for every integer in `data` (raw input for `schema`) out of range."""
    found: dict = {}
    _schema_problems(schema, data, "", _max_integer(), found)
    return found


def _checking_pre_load(original):
    def pre_load(location_data, *, schema, req, location):
        data = original(location_data, schema=schema, req=req, location=location)
        found = integer_problems(schema, data)
        if found:
            raise ValidationError(found)  # webargs reports it under the location: 422
        return data

    pre_load.checks_integers = True
    return pre_load


def _install_integer_check() -> None:
    # Set on the parser instances themselves (flask-smorest shares one per mixin, webargs has
    # one module-wide), so it applies to every blueprint whenever its module was imported.
    # Not covered: a Blueprint subclass that brings a parser of its own.
    for parser in (ArgumentsMixin.ARGUMENTS_PARSER, PaginationMixin.PAGINATION_ARGUMENTS_PARSER,
                   flaskparser.parser):
        if not getattr(parser.pre_load, "checks_integers", False):
            parser.pre_load = _checking_pre_load(parser.pre_load)


def _document_integer_bounds(api, limit: int) -> None:
    """Write the accepted range into the OpenAPI document of unbounded Integer parameters.

    Parameters only (query, header): a body schema is also used for responses, whose
    integers (durations, counts) need not fit the ids' range.
    """
    def integer_parameter_bounds(self, field, ret, **kwargs):
        if not isinstance(field, fields.Integer) or not isinstance(ret.get("schema"), dict):
            return {}
        schema = dict(ret["schema"])
        schema.setdefault("minimum", -limit - 1)
        schema.setdefault("maximum", limit)
        return {"schema": schema}

    api.ma_plugin.converter.add_parameter_attribute_function(integer_parameter_bounds)


def register(app: Flask) -> None:
    """Call before any blueprint is registered: the converter and the document bounds apply
    to the rules and schemas registered after it."""
    from web.errors import smorest_apis

    limit = app.config.get("API_MAX_INTEGER", DEFAULT_MAX_INTEGER)
    app.url_map.converters["int"] = id_converter(limit)
    _install_integer_check()
    for api in smorest_apis(app):
        _document_integer_bounds(api, limit)

    @app.before_request
    def _check_api_input():
        if not request.path.startswith("/api/") or request.routing_exception is not None:
            return None
        check_query()
        check_json_body()
        return None
