"""The API docs page and the OpenAPI document behind it.

The page is Swagger UI from static/vendor/swagger-ui/ (built by `make`): it loads only local
files. The document gives every request body an example that fits its schema, and marks
exactly the operations behind accounts.tokens.token_required with the bearer scheme.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SWAGGER_UI = ROOT / "static" / "vendor" / "swagger-ui"
BUILD_HINT = "Swagger UI is missing: run `make static/vendor/swagger-ui/swagger-ui-bundle.js`"
METHODS = ("get", "post", "put", "patch", "delete")
BEARER = [{"bearerAuth": []}]


class _Resources(HTMLParser):
    """What a page makes the browser fetch (scripts, stylesheets, images, frames)."""

    def __init__(self):
        super().__init__()
        self.urls, self.inline_scripts, self.spec_url = [], 0, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            if attrs.get("src"):
                self.urls.append(attrs["src"])
            elif attrs.get("type", "text/javascript") in ("text/javascript", "module"):
                self.inline_scripts += 1
        elif tag == "link" and attrs.get("href"):
            self.urls.append(attrs["href"])
        elif tag in ("img", "iframe", "source", "embed") and attrs.get("src"):
            self.urls.append(attrs["src"])
        if attrs.get("id") == "swagger-ui":
            self.spec_url = attrs.get("data-spec-url")


@pytest.fixture
def page(client):
    resp = client.get("/api/v1/docs")
    assert resp.status_code == 200
    return resp.get_data(as_text=True)


@pytest.fixture(scope="module")
def spec():
    """/api/v1/openapi.json as a fresh app serves it (no database needed for that)."""
    from app import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    resp = app.test_client().get("/api/v1/openapi.json")
    assert resp.status_code == 200
    return resp.get_json()


def _operations(spec):
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield method, path, op


# ---- The page ----------------------------------------------------------------------------------

def test_the_page_loads_only_local_files(page):
    found = _Resources()
    found.feed(page)
    assert found.inline_scripts == 0
    for url in found.urls:
        assert url.startswith("/static/"), f"not a local file: {url}"
    for name in ("vendor/swagger-ui/swagger-ui-bundle.js", "vendor/swagger-ui/swagger-ui.css",
                 "js/api-docs.js", "api-docs.css"):
        assert "/static/" + name in found.urls
    assert found.spec_url == "/api/v1/openapi.json"


def test_without_javascript_the_page_still_leads_to_the_document(page):
    fallback = page[page.index("<noscript>"):page.index("</noscript>")]
    assert 'href="/api/v1/openapi.json"' in page
    assert "<code>POST /api/v1/jobs/parse</code> Parse a job description" in fallback
    assert "<code>GET /api/v1/auth/me</code> (token)" in fallback


def test_the_vendored_files_are_served(client, page):
    assert (SWAGGER_UI / "swagger-ui-bundle.js").is_file(), BUILD_HINT
    assert "Apache License" in (SWAGGER_UI / "LICENSE").read_text(encoding="utf-8")
    found = _Resources()
    found.feed(page)
    for url in found.urls:
        resp = client.get(url)
        assert resp.status_code == 200, url
        body = resp.get_data(as_text=True)
        assert "sourceMappingURL" not in body, f"{url} points at a source map that is not served"
        resp.close()
    assert "SwaggerUIBundle" in client.get("/static/vendor/swagger-ui/swagger-ui-bundle.js").get_data(as_text=True)


def test_the_init_script_sends_the_document_nowhere_else():
    script = (ROOT / "static" / "js" / "api-docs.js").read_text(encoding="utf-8")
    assert "validatorUrl: null" in script  # Swagger UI's default badge posts to swagger.io
    assert not re.search(r"https?://", script)


# ---- The document ------------------------------------------------------------------------------

def test_every_request_body_has_an_example_that_fits_its_schema(spec):
    jsonschema_rs = pytest.importorskip("jsonschema_rs")  # comes with schemathesis

    bodies = 0
    for method, path, op in _operations(spec):
        for media_type, content in op.get("requestBody", {}).get("content", {}).items():
            bodies += 1
            where = f"{method.upper()} {path} ({media_type})"
            assert "example" in content or "examples" in content, f"{where} has no example"
            examples = ([content["example"]] if "example" in content
                        else [e["value"] for e in content["examples"].values()])
            # "#/components/..." references resolve against this root.
            schema = {"components": spec["components"], **content["schema"]}
            validator = jsonschema_rs.Draft7Validator(schema, validate_formats=True)
            for example in examples:
                errors = [e.message for e in validator.iter_errors(example)]
                assert not errors, f"{where}: the example does not fit: {errors}"
    assert bodies >= 16


def _token_required_code():
    from accounts.tokens import token_required

    return token_required()(lambda: None).__code__


def _needs_a_token(view) -> bool:
    """Whether accounts.tokens.token_required is among the view's decorators (they all use
    `wraps`)."""
    code = _token_required_code()
    while view is not None:
        if view.__code__ is code:
            return True
        view = getattr(view, "__wrapped__", None)
    return False


def _views(app):
    """(method, OpenAPI path) -> the function that handles it."""
    views = {}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule)
        view = app.view_functions[rule.endpoint]
        for method in rule.methods:
            method = method.lower()
            if method in METHODS:
                cls = getattr(view, "view_class", None)
                views[(method, path)] = getattr(cls, method) if cls else view
    return views


def test_operations_behind_token_required_declare_bearer_auth_and_only_they(app, spec):
    views = _views(app)
    protected, public = set(), set()
    for method, path, op in _operations(spec):
        view = views[(method, path)]
        if _needs_a_token(view):
            protected.add((method, path))
            assert op.get("security") == BEARER, f"{method.upper()} {path} needs a token"
            assert "401" in op["responses"], f"{method.upper()} {path} does not document 401"
        else:
            public.add((method, path))
            assert "security" not in op, f"{method.upper()} {path} is public"
    assert {("get", "/api/v1/auth/me"), ("post", "/api/v1/jobs"),
            ("post", "/api/v1/organisations/{org_id}/invitations")} <= protected
    assert {("get", "/api/v1/jobs"), ("post", "/api/v1/auth/signup"), ("post", "/api/v1/auth/tokens"),
            ("post", "/api/v1/roadmap")} <= public
    assert "security" not in spec  # no global requirement: public operations stay public


def test_role_refusals_and_the_scheme_are_documented(spec):
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {"type": "http", "scheme": "bearer"}
    recruiters_only = spec["paths"]["/api/v1/jobs"]["post"]["responses"]
    assert recruiters_only["403"] == {"$ref": "#/components/responses/FORBIDDEN"}
    assert recruiters_only["401"] == {"$ref": "#/components/responses/UNAUTHORIZED"}
    assert "403" not in spec["paths"]["/api/v1/auth/me"]["get"]["responses"]  # any role will do
    assert {"UNAUTHORIZED", "FORBIDDEN"} <= set(spec["components"]["responses"])
