"""The real server, as a user starts it, driven over HTTP."""
import json
import urllib.error
import urllib.request

import pytest

pytestmark = [pytest.mark.db, pytest.mark.slow]


def _call(base, method, path, body=None, token=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            raw = resp.read()
            return resp.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def test_starter_jobs_are_served(server):
    base, loaded = server
    assert "added" in loaded
    status, page = _call(base, "GET", "/api/v1/jobs?per_page=5")
    assert status == 200 and page["total"] >= 120
    status, hw = _call(base, "GET", "/api/v1/jobs?track=hardware_design&per_page=100")
    assert hw["total"] >= 30 and all(j["primary_track"] == "hardware_design" for j in hw["items"])


def test_recruiter_journey_over_http(server):
    base, _ = server
    status, _ = _call(base, "POST", "/api/v1/auth/signup", {
        "email": "e2e@acme.test", "password": "a long password", "role": "recruiter",
        "organisation": "E2E Compute"})
    assert status == 201
    status, token = _call(base, "POST", "/api/v1/auth/tokens",
                          {"email": "e2e@acme.test", "password": "a long password"})
    assert status == 201
    text = ("Staff GPU Performance Architect\nRequirements:\n- 8+ years building cycle-accurate "
            "C++ performance models\n- PhD or MS in Computer Architecture\n$220,000 - $310,000")
    status, job = _call(base, "POST", "/api/v1/jobs", {"title": "Staff GPU Performance Architect",
                                                       "text": text}, token["token"])
    assert status == 201
    assert job["parse"]["primary_track"] == "architecture_modeling"
    assert job["parse"]["seniority"] == "staff_principal"
    assert job["parse"]["degree"] == "master"
    status, _ = _call(base, "DELETE", "/api/v1/auth/tokens/current", token=token["token"])
    assert status == 204
    status, err = _call(base, "DELETE", f"/api/v1/jobs/{job['id']}", token=token["token"])
    assert status == 401 and err["field"] == "Authorization"


def test_pages_render(server):
    base, _ = server
    with urllib.request.urlopen(base + "/jobs/?track=infrastructure", timeout=10) as resp:
        html = resp.read().decode()
    assert "GPU" in html and "infrastructure" in html
    with urllib.request.urlopen(base + "/api/v1/docs", timeout=10) as resp:
        assert "/api/v1/jobs/parse" in resp.read().decode()
