"""Inputs that used to crash the API answer 4xx JSON naming the problem, in the documented shape."""
import json

import pytest
from flask.views import MethodView
from marshmallow import Schema, fields, validate

pytestmark = pytest.mark.db

POSTING = "GPU SRE\nRequirements: Kubernetes, Slurm, CUDA and NCCL on NVIDIA clusters."
ERROR_KEYS = {"status", "message", "field", "errors"}


def error_of(resp, status, field=None):
    """The JSON error body, checked against the documented Error schema."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/json"
    body = resp.get_json()
    assert set(body) <= ERROR_KEYS and {"status", "message"} <= set(body)
    assert body["status"] == status and isinstance(body["status"], int)
    assert isinstance(body["message"], str) and body["message"]
    assert isinstance(body.get("field", ""), str) and isinstance(body.get("errors", {}), dict)
    if field is not None:
        assert body.get("field") == field, body
    return body


def post_raw(client, url, raw, headers=None):
    return client.post(url, data=raw, content_type="application/json", headers=headers or {})


# --- the documented error shape ----------------------------------------------------------

def test_openapi_error_schema_is_what_errors_carry(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    error = spec["components"]["schemas"]["Error"]
    assert error["properties"]["status"]["type"] == "integer"
    assert error["properties"]["message"]["type"] == "string"
    assert error["properties"]["field"]["type"] == "string"
    assert error["properties"]["errors"]["type"] == "object"
    assert set(error["required"]) == {"status", "message"}
    assert "code" not in error["properties"]
    responses = spec["components"]["responses"]
    for name in ("DEFAULT_ERROR", "UNPROCESSABLE_ENTITY"):
        schema = responses[name]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/Error"}


def test_every_operation_documents_its_errors_with_the_error_schema(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    operations = [(method, path, op) for path, ops in spec["paths"].items()
                  for method, op in ops.items() if method != "parameters"]
    assert len(operations) >= 13
    for method, path, op in operations:
        assert op["responses"]["default"] == {"$ref": "#/components/responses/DEFAULT_ERROR"}, \
            (method, path)
        for code, response in op["responses"].items():
            if code == "default" or code.startswith(("4", "5")):
                name = response["$ref"].rsplit("/", 1)[-1]
                content = spec["components"]["responses"][name]["content"]
                assert content["application/json"]["schema"]["$ref"].endswith("/Error")


def test_errors_from_views_schemas_and_routing_share_the_shape(client, make_user):
    error_of(client.get("/api/v1/no-such-thing"), 404)
    error_of(client.get("/api/v1/auth/me"), 401, "Authorization")
    error_of(client.post("/api/v1/jobs/parse", json={}), 422, "text")
    error_of(client.patch("/api/v1/jobs/parse", json={}), 405)
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    error_of(client.get("/api/v1/jobs/424242", headers=rec.headers), 404, "job_id")


# --- unpaired surrogates and NUL in JSON strings -----------------------------------------

@pytest.mark.parametrize("url, raw, field", [
    ("/api/v1/jobs/parse", r'{"text": "CUDA kernels \ud800 on H100"}', "text"),
    ("/api/v1/jobs/parse", r'{"text": "CUDA kernels", "title": "\udfff"}', "title"),
    ("/api/v1/auth/signup", r'{"email": "a\ud800@example.com", "password": "long enough pw",'
                            r' "role": "candidate"}', "email"),
    ("/api/v1/auth/signup", r'{"email": "a@example.com", "password": "long enough \udc00",'
                            r' "role": "recruiter", "organisation": "Acme"}', "password"),
    ("/api/v1/auth/tokens", r'{"email": "a@example.com", "password": "\ud83d"}', "password"),
    ("/api/v1/jobs/parse", r'{"text": "CUDA", "extra": {"list": ["ok", "\ud800"]}}',
     "extra.list.1"),
    ("/api/v1/jobs/parse", '{"text": "CUDA \\u0000 kernels"}', "text"),
])
def test_unstorable_text_is_refused_naming_the_field(client, url, raw, field):
    body = error_of(post_raw(client, url, raw), 422, field)
    assert body["message"].startswith(f"{field}: ")


def test_a_surrogate_in_a_key_is_refused(client):
    body = error_of(post_raw(client, "/api/v1/jobs/parse", r'{"text": "x", "\ud800": 1}'), 422)
    assert "key" in body["message"]


def test_surrogates_in_stored_fields_never_reach_the_database(client, make_user):
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    raw = json.dumps({"title": "Kernel lead", "text": POSTING}).replace("Kernel", "Kernel \\ud800")
    error_of(post_raw(client, "/api/v1/jobs", raw, rec.headers), 422, "title")
    job = client.post("/api/v1/jobs", json={"title": "GPU SRE", "text": POSTING},
                      headers=rec.headers).get_json()
    raw = r'{"location": "Austin \udbff TX"}'
    put = client.put(f"/api/v1/jobs/{job['id']}", data=raw, content_type="application/json",
                     headers=rec.headers)
    error_of(put, 422, "location")


def test_valid_surrogate_pairs_are_text(client):
    resp = post_raw(client, "/api/v1/jobs/parse",
                    r'{"text": "CUDA kernels on H100 \ud83d\ude80, NCCL and InfiniBand"}')
    assert resp.status_code == 200


# --- integers past the database's ids ----------------------------------------------------

@pytest.mark.parametrize("method, url", [
    ("get", "/api/v1/jobs/9223372036854775808"),
    ("get", "/api/v1/jobs/18446744073709551616"),
    ("get", "/api/v1/jobs/2147483648"),
    ("get", "/api/v1/jobs/" + "9" * 5000),
    ("put", "/api/v1/jobs/9223372036854775808"),
    ("delete", "/api/v1/jobs/9223372036854775808"),
    ("delete", "/api/v1/auth/tokens/9223372036854775808"),
    ("post", "/api/v1/organisations/9223372036854775808/invitations"),
])
def test_ids_past_the_database_range_are_not_found(client, method, url):
    # No rule matches, so it is 404 before authentication is even asked for.
    error_of(getattr(client, method)(url, json={"email": "b@example.com", "title": "x"}), 404)


def test_the_largest_id_is_an_ordinary_miss(client):
    error_of(client.get("/api/v1/jobs/2147483647"), 404, "job_id")


@pytest.mark.parametrize("query, field", [
    ("page=99999999999999999999", "page"),
    ("per_page=99999999999999999999", "per_page"),
    ("organisation=9223372036854775808", "organisation"),
    ("organisation=2147483648", "organisation"),
    ("organisation=1e300", "organisation"),
    ("page=-99999999999999999999", "page"),
    ("q=50%00off", "q"),
])
def test_query_integers_and_nul_are_refused_naming_the_parameter(client, query, field):
    body = error_of(client.get(f"/api/v1/jobs?{query}"), 422, field)
    assert body["message"].startswith(f"{field}: ")


def test_the_largest_organisation_id_is_an_empty_list(client):
    resp = client.get("/api/v1/jobs?organisation=2147483647")
    assert resp.status_code == 200 and resp.get_json()["items"] == []


def test_the_openapi_document_shows_the_id_range(client):
    spec = client.get("/api/v1/openapi.json").get_json()
    job_id = spec["paths"]["/api/v1/jobs/{job_id}"]["parameters"][0]["schema"]
    assert job_id["maximum"] == 2**31 - 1
    query = {p["name"]: p["schema"] for p in spec["paths"]["/api/v1/jobs"]["get"]["parameters"]}
    assert query["organisation"]["maximum"] == 2**31 - 1 and query["organisation"]["minimum"] == 1
    assert query["page"]["maximum"] == 100_000  # a field's own bound is kept


class _Nested(Schema):
    count = fields.Integer()


class _NewEndpointArgs(Schema):
    n = fields.Integer()
    bounded = fields.Integer(validate=validate.Range(min=0, max=2**40))
    items = fields.List(fields.Integer())
    nested = fields.Nested(_Nested)
    sizes = fields.Dict(keys=fields.String(), values=fields.Integer())


def test_endpoints_added_later_are_covered_without_work_in_them(app):
    """A blueprint of its own, on an app of its own, written the usual way."""
    from flask import Flask
    from flask_smorest import Api, Blueprint

    from web import errors, inputs

    other = Flask("later")
    other.config.update(API_TITLE="t", API_VERSION="1", OPENAPI_VERSION="3.0.3", TESTING=True)
    own_api = Api(other)
    errors.register(other)
    inputs.register(other)
    blp = Blueprint("later", "later", url_prefix="/api/v1/later")

    @blp.route("/<int:thing_id>")
    class Thing(MethodView):
        @blp.arguments(_NewEndpointArgs, location="query")
        def get(self, query, thing_id):
            return {"thing_id": thing_id, **query}

        @blp.arguments(_NewEndpointArgs)
        def post(self, data, thing_id):
            return {"thing_id": thing_id, **data}

    own_api.register_blueprint(blp)
    client = other.test_client()
    big = 2**31
    error_of(client.get(f"/api/v1/later/{big}"), 404)
    assert client.get(f"/api/v1/later/{big - 1}?n={big - 1}").status_code == 200
    error_of(client.get(f"/api/v1/later/1?n={big}"), 422, "n")
    error_of(client.get(f"/api/v1/later/1?items=1&items={-big - 1}"), 422, "items.1")
    assert client.get(f"/api/v1/later/1?bounded={2**40}").status_code == 200
    error_of(client.post("/api/v1/later/1", json={"nested": {"count": 2**63}}), 422,
             "nested.count")
    error_of(client.post("/api/v1/later/1", json={"sizes": {"n": 2**63}}), 422, "sizes.n")
    error_of(client.post("/api/v1/later/1", json={"n": 1e300}), 422, "n")
    error_of(post_raw(client, "/api/v1/later/1", r'{"n": 1, "note": "\ud800"}'), 422, "note")
    error_of(post_raw(client, "/api/v1/later/1", "[]"), 422, "body")


# --- bodies that are not JSON objects we can read ----------------------------------------

def test_deeply_nested_json_is_refused(client):
    deep = "[" * 100_000 + "]" * 100_000
    body = error_of(post_raw(client, "/api/v1/jobs/parse", deep), 400, "body")
    assert "nested" in body["message"]
    deep_in_field = '{"text": ' + "[" * 40 + "]" * 40 + "}"
    error_of(post_raw(client, "/api/v1/jobs/parse", deep_in_field), 400, "body")
    fine = '{"text": "CUDA", "title": ' + "[" * 20 + "]" * 20 + "}"
    error_of(post_raw(client, "/api/v1/jobs/parse", fine), 422, "title")  # the schema's turn


@pytest.mark.parametrize("raw", [
    b'{"text": "\xff\xfe CUDA"}',
    b'{"text": "caf\xe9"}',
    b"\xed\xa0\x80",  # a surrogate encoded as UTF-8 bytes is not UTF-8
])
def test_invalid_utf8_is_refused(client, raw):
    body = error_of(post_raw(client, "/api/v1/jobs/parse", raw), 400, "body")
    assert "UTF-8" in body["message"]


@pytest.mark.parametrize("raw, kind", [
    ("[]", "an array"), ('[{"text": "CUDA"}]', "an array"), ('"CUDA"', "a string"),
    ("42", "a number"), ("null", "null"), ("true", "a boolean"),
])
def test_a_body_that_is_not_an_object_is_refused(client, raw, kind):
    body = error_of(post_raw(client, "/api/v1/jobs/parse", raw), 422, "body")
    assert body["message"] == f"body: must be a JSON object, not {kind}"


@pytest.mark.parametrize("raw", [
    '{"text": NaN}', '{"text": -Infinity}', '{"text": ', "{'text': 'x'}",
    '{"text": ' + "9" * 5000 + "}",
])
def test_malformed_json_is_refused(client, raw):
    body = error_of(post_raw(client, "/api/v1/jobs/parse", raw), 400, "body")
    assert "not valid JSON" in body["message"]


def test_an_empty_json_body_is_missing_fields_not_malformed(client):
    error_of(post_raw(client, "/api/v1/jobs/parse", ""), 422, "text")


def test_pages_are_untouched(client):
    assert client.get("/").status_code == 200
