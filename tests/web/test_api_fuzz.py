"""Fuzz every operation of the OpenAPI document: no 5xx, and responses as documented.

Schemathesis reads /api/v1/openapi.json from a fresh app and calls an app on an empty database
of its own in-process, through WSGI. Calls carry a bearer token of a recruiter who founded an
organisation, so recruiter-only operations get past authentication; the token is renewed when
a fuzzed call revokes it. Each operation gets a bounded, derandomized set of examples (valid
and invalid data alike), so a run is repeatable and does not flake.

A failure names the operation and shows a curl command that reproduces it. Common causes:
a timestamp sent without its offset (declare it with web.fields.UtcDateTime, not
fields.DateTime), an error body not made by web.errors, a status the operation does not
document.
"""
from __future__ import annotations

import pytest
import schemathesis
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance,
                                               response_schema_conformance,
                                               status_code_conformance)

from tests.conftest import UNLIMITED_ACCOUNTS

pytestmark = pytest.mark.db

MAX_EXAMPLES = 25
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]

POSTING = """Senior GPU Infrastructure Engineer
Requirements:
- 5+ years running Kubernetes and Slurm clusters of NVIDIA GPUs
- CUDA, NCCL and InfiniBand troubleshooting
Nice to have: Terraform. Salary $180,000 - $220,000 per year.
"""

CONFIG = schemathesis.Config.from_dict({
    "generation": {
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,      # Hypothesis' derandomize: the same examples every run
        "database": "none",         # nothing stored between runs (no .hypothesis folder)
        "mode": "all",              # valid and invalid data
    },
    # examples + coverage (boundary values, e.g. integer limits) + fuzzing; no stateful chains
    "phases": {"stateful": {"enabled": False}},
    "suppress-health-check": ["too_slow", "filter_too_much", "data_too_large"],
})


class Recruiter:
    """A recruiter who founded an organisation, and a bearer token that stays valid."""

    def __init__(self, app):
        self.app = app
        client = app.test_client()
        body = {"email": "fuzz@kernelpath.test", "password": "correct horse battery",
                "role": "recruiter", "organisation": "Fuzz GPU Works"}
        assert client.post("/api/v1/auth/signup", json=body).status_code == 201
        self.user_id = None
        self.token = None
        self.headers()
        for n in range(3):  # some jobs, so listings and job ids return real rows
            resp = client.post("/api/v1/jobs", headers=self.headers(),
                               json={"title": f"GPU SRE {n}", "location": "Austin, TX",
                                     "text": POSTING})
            assert resp.status_code == 201, resp.get_json()

    def headers(self) -> dict:
        from sqlalchemy import select

        from accounts import service
        from accounts.models import User
        from extensions import db

        with self.app.app_context():
            if self.token is None or service.user_for_token(self.token) is None:
                user = db.session.scalar(select(User).where(
                    User.email == "fuzz@kernelpath.test"))
                _, self.token = service.issue_token(user, "fuzz", days=90)
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture(scope="module")
def fuzz_app(new_database):
    from app import create_app
    from extensions import upgrade_database

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": new_database(),
                      "SECRET_KEY": "fuzz",
                      # per-user limits would answer a fuzzer's hundreds of calls with 429
                      "SUBMISSION_RATE_LIMIT": "100000/minute", **UNLIMITED_ACCOUNTS})
    with app.app_context():
        upgrade_database()
    yield app
    # The fuzzer's valid submissions are real work for the local graders: drop what is queued.
    app.extensions["grading_queue"].stop(timeout=120, drain=False)


@pytest.fixture(scope="module")
def recruiter(fuzz_app):
    return Recruiter(fuzz_app)


def _openapi_document() -> dict:
    """/api/v1/openapi.json as a freshly made app serves it (no database needed for that)."""
    from app import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    resp = app.test_client().get("/api/v1/openapi.json")
    assert resp.status_code == 200
    return resp.get_json()


# Loaded when the module is collected, so each operation is a test of its own. (Schemathesis'
# fixture-based loader would defer this, but it does not run under pytest 9.2.) The calls go
# to `fuzz_app`, an app on an empty database of its own.
schema = schemathesis.openapi.from_dict(_openapi_document(), config=CONFIG)


@schema.parametrize()
def test_api_answers_every_input_as_documented(case, fuzz_app, recruiter):
    case.call_and_validate(app=fuzz_app, headers=recruiter.headers(), checks=CHECKS)
