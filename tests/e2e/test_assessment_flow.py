"""The whole assessment story over HTTP on the real server (local grading engine, real sandbox):
recruiter, candidate, a second candidate and another organisation's recruiter."""
import json
import re
import time
import urllib.error
import urllib.request

import pytest

from tests.assessments.assessment_helpers import JOB_TEXT, fixture_source

pytestmark = [pytest.mark.db, pytest.mark.slow]

WAIT_S = 600
PASSWORD = "correct horse battery"


def _renamed(source: str) -> str:
    """The same code with other names and spacing: what a copier does first."""
    for old, new in (("warp_sum", "wsum"), ("warp_sums", "partials"), ("reduce_sum", "total"),
                     ("_reduce", "_kern"), ("_THREADS", "TPB"), ("_MAX_BLOCKS", "CAP"),
                     ("lane", "ln"), ("warp", "wp"), ("offset", "o")):
        source = re.sub(rf"\b{old}\b", new, source)
    return source.replace("    ", "  ")


class Client:
    def __init__(self, base, email=None, role="candidate", organisation=None):
        self.base, self.headers = base, {}
        if email:
            body = {"email": email, "password": PASSWORD, "role": role}
            if organisation:
                body["organisation"] = organisation
            status, self.user = self.call("POST", "/api/v1/auth/signup", body)
            assert status == 201, self.user
            _, token = self.call("POST", "/api/v1/auth/tokens", {"email": email, "password": PASSWORD})
            self.headers = {"Authorization": f"Bearer {token['token']}"}

    def call(self, method, path, body=None, raw=False):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **self.headers})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                payload = resp.read()
                return resp.status, payload.decode() if raw else json.loads(payload or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def ok(self, method, path, body=None, expect=200):
        status, payload = self.call(method, path, body)
        assert status == expect, (method, path, status, payload)
        return payload

    def final(self, path):
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            body = self.ok("GET", path)
            if body["status"] in ("done", "failed"):
                return body
            time.sleep(0.25)
        pytest.fail(f"{path} did not finish in {WAIT_S} s")


def test_recruiter_invites_candidate_is_graded_and_outsiders_see_nothing(server):
    base, _ = server
    rec = Client(base, "rec@acme.test", "recruiter", "Acme GPU")
    cand = Client(base, "cand@example.com")
    second = Client(base, "second@example.com")
    globex = Client(base, "rec@globex.test", "recruiter", "Globex")

    job = rec.ok("POST", "/api/v1/jobs", {"title": "GPU Kernel Engineer", "text": JOB_TEXT}, 201)
    aid = rec.ok("POST", "/api/v1/assessments",
                 {"job_id": job["id"], "tasks": ["vector_add", "reduce_sum"],
                  "time_limit_minutes": 90}, 201)["id"]
    invite = rec.ok("POST", f"/api/v1/assessments/{aid}/invitations", {"email": "cand@example.com"}, 201)
    assert invite["url"].startswith(base + "/invitations/")
    started = cand.ok("POST", f"/api/v1/invitations/{invite['token']}/accept")
    assert started["assessment_id"] == aid and started["deadline"] > started["started_at"]

    # try on the samples first: a report with the compile report, not counted
    run = cand.ok("POST", "/api/v1/runs", {"task": "vector_add", "assessment_id": aid,
                                           "source": fixture_source("vector_add", "raw_kernel")}, 202)
    run = cand.final(f"/api/v1/runs/{run['id']}")
    assert run["verdict"] == "accepted" and run["report"]["suite"] == "samples"
    assert run["report"]["kernels"][0]["registers"]

    wrong = cand.ok("POST", "/api/v1/submissions", {"task": "vector_add", "assessment_id": aid,
                                                    "source": fixture_source("vector_add", "all_zeros")}, 202)
    right = cand.ok("POST", "/api/v1/submissions", {"task": "vector_add", "assessment_id": aid,
                                                    "source": fixture_source("vector_add", "raw_kernel")}, 202)
    copied = cand.ok("POST", "/api/v1/submissions", {
        "task": "reduce_sum", "assessment_id": aid,
        "source": _renamed((pytest.importorskip("gpu_tasks").reference_source("reduce_sum")))}, 202)
    assert cand.final(f"/api/v1/submissions/{wrong['id']}")["verdict"] == "wrong_answer"
    assert cand.final(f"/api/v1/submissions/{right['id']}")["verdict"] == "accepted"
    assert cand.final(f"/api/v1/submissions/{copied['id']}")["verdict"] == "accepted"

    # a second candidate, invited too, hands in the first one's reduction
    invite2 = rec.ok("POST", f"/api/v1/assessments/{aid}/invitations", {"email": "second@example.com"}, 201)
    second.ok("POST", f"/api/v1/invitations/{invite2['token']}/accept")
    status, first_copy = cand.call("GET", f"/api/v1/submissions/{copied['id']}")
    again = second.ok("POST", "/api/v1/submissions", {"task": "reduce_sum", "assessment_id": aid,
                                                      "source": first_copy["source"] + "\n# mine\n"}, 202)
    assert second.final(f"/api/v1/submissions/{again['id']}")["verdict"] == "accepted"

    results = rec.ok("GET", f"/api/v1/assessments/{aid}/results")
    rows = {r["candidate_id"]: r for r in results["candidates"]}
    first = {t["task"]: t for t in rows[cand.user["id"]]["tasks"]}
    assert first["vector_add"]["verdict"] == "accepted" and first["vector_add"]["attempts"] == 2
    assert first["vector_add"]["submission_id"] == right["id"]
    assert "similar to the reference solution" in " ".join(first["reduce_sum"]["flags"])
    theirs = {t["task"]: t for t in rows[second.user["id"]]["tasks"]}
    similar = theirs["reduce_sum"]["similar"]
    assert [(s["other_id"], s["cleared"], s["readable"]) for s in similar] == [(copied["id"], False, True)]
    status, csv = rec.call("GET", f"/api/v1/assessments/{aid}/results?format=csv", raw=True)
    assert status == 200 and "reduce_sum,accepted" in csv

    profile = rec.ok("GET", f"/api/v1/candidates/{cand.user['id']}/profile")
    verified = {s["skill"]: s for s in profile["verified"]}
    assert {e["submission_id"] for e in verified["cuda"]["evidence"]} == {right["id"]}
    assert profile["not_counted"] == [copied["id"]]  # a copy of the reference proves nothing

    # outsiders: the other candidate and another organisation's recruiter
    for outsider in (second, globex):
        for path in (f"/api/v1/submissions/{right['id']}", f"/api/v1/runs/{run['id']}",
                     f"/api/v1/candidates/{cand.user['id']}/profile"):
            assert outsider.call("GET", path)[0] == 404, (path, outsider.user["email"])
    for path in (f"/api/v1/assessments/{aid}", f"/api/v1/assessments/{aid}/results"):
        assert globex.call("GET", path)[0] == 404
    assert globex.call("POST", f"/api/v1/assessments/{aid}/invitations", {"email": "x@y.test"})[0] == 404
    assert second.call("GET", f"/api/v1/assessments/{aid}/results")[0] in (403, 404)
