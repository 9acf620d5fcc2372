"""Runs and submissions through the API and the local queue: grading to a final status,
who may read what, and the limits on what is accepted."""
import pytest

from assessment_helpers import fixture_source, wait_final

pytestmark = pytest.mark.db

CORRECT = fixture_source("vector_add", "raw_kernel")
WRONG = fixture_source("vector_add", "partial_half")


def test_a_run_judges_the_samples_only_with_the_compile_report(client, make_user):
    learner = make_user("learner@example.com")
    resp = client.post("/api/v1/runs", json={"task": "vector_add", "source": CORRECT},
                       headers=learner.headers)
    assert resp.status_code == 202
    assert resp.get_json()["status"] == "queued"
    run = wait_final(client, f"/api/v1/runs/{resp.get_json()['id']}", learner.headers)
    assert run["status"] == "done" and run["verdict"] == "accepted"
    report = run["report"]
    assert report["suite"] == "samples" and report["score"] == 0
    assert [t["name"] for t in report["tests"]] == [
        s["name"] for s in client.get("/api/v1/tasks/vector_add").get_json()["samples"]]
    kernel = report["kernels"][0]
    assert kernel["registers"] and kernel["occupancy"]
    assert ".entry" in kernel["ptx"] and "EXIT" in kernel["sass"]
    assert report.get("seed") == 0  # the samples' seed is public; the hidden tests' never is
    # a run is not a submission: it is not listed or readable as one
    assert client.get(f"/api/v1/submissions/{run['id']}", headers=learner.headers).status_code == 404


def test_practice_submissions_end_done_with_verdicts(client, make_user):
    learner = make_user("learner@example.com")
    ids = []
    for source in (CORRECT, WRONG):
        resp = client.post("/api/v1/submissions", json={"task": "vector_add", "source": source},
                           headers=learner.headers)
        assert resp.status_code == 202, resp.get_json()
        assert resp.get_json() == {"id": resp.get_json()["id"], "status": "queued"}
        ids.append(resp.get_json()["id"])
    good, bad = (wait_final(client, f"/api/v1/submissions/{i}", learner.headers) for i in ids)
    assert good["verdict"] == "accepted" and good["score"] > 60
    profile = good["report"]["profile"]      # estimated on the cpu backend, under these names
    assert profile["estimated_us"] > 0 and profile["bound"] and isinstance(profile["hints"], list)
    assert "seed" not in good["report"]
    assert bad["status"] == "done" and bad["verdict"] == "wrong_answer"
    failing = next(t for t in bad["report"]["tests"] if t["passed"] is False)
    assert failing["mismatches"] and failing["mismatches"][0]["index"]
    listed = client.get("/api/v1/submissions?task=vector_add", headers=learner.headers).get_json()
    assert [s["id"] for s in listed] == ids[::-1]


def test_nobody_else_reads_a_submission(client, make_user):
    owner, other = make_user("owner@example.com"), make_user("other@example.com")
    rec = make_user("rec@other.test", "recruiter", "Other Org")
    sid = client.post("/api/v1/submissions", json={"task": "vector_add", "source": WRONG},
                      headers=owner.headers).get_json()["id"]
    for user in (other, rec):
        resp = client.get(f"/api/v1/submissions/{sid}", headers=user.headers)
        assert resp.status_code == 404
    assert client.get(f"/api/v1/submissions/{sid}").status_code == 401
    assert client.get("/api/v1/submissions/999999", headers=owner.headers).status_code == 404
    wait_final(client, f"/api/v1/submissions/{sid}", owner.headers)


@pytest.mark.parametrize("body, status, field", [
    ({"task": "no_such_task", "source": "def solve(): pass"}, 422, "task"),
    ({"task": "vector_add"}, 422, "source"),
    ({"task": "vector_add", "source": "x" * (64 * 1024 + 1)}, 422, "source"),
    ({"task": "vector_add", "source": "é" * (40 * 1024)}, 413, "source"),
    ({"task": "vector_add", "source": "def solve(a, b, c, n): pass", "backend": "tpu"}, 422, "backend"),
    ({"task": "vector_add", "source": "def solve(a, b, c, n): pass", "backend": "cuda"}, 422, "backend"),
    ({"task": "vector_add", "source": "def solve(a, b, c, n): pass", "assessment_id": 12345},
     404, "assessment_id"),
])
def test_bad_submissions_are_refused_naming_the_field(client, make_user, body, status, field):
    user = make_user("cand@example.com")
    for path in ("/api/v1/submissions", "/api/v1/runs"):
        resp = client.post(path, json=body, headers=user.headers)
        assert resp.status_code == status, resp.get_json()
        assert resp.get_json()["field"] == field


def test_sign_in_is_needed_to_submit(client):
    resp = client.post("/api/v1/submissions", json={"task": "vector_add", "source": CORRECT})
    assert resp.status_code == 401


def test_an_accepted_solution_can_be_made_public_for_learners(client, make_user):
    author, learner = make_user("author@example.com"), make_user("learner@example.com")
    bad = client.post("/api/v1/submissions", json={"task": "vector_add", "source": WRONG},
                      headers=author.headers).get_json()["id"]
    good = client.post("/api/v1/submissions", json={"task": "vector_add", "source": CORRECT},
                       headers=author.headers).get_json()["id"]
    wait_final(client, f"/api/v1/submissions/{bad}", author.headers)
    wait_final(client, f"/api/v1/submissions/{good}", author.headers)
    refused = client.put(f"/api/v1/submissions/{bad}/visibility", json={"public": True},
                         headers=author.headers)
    assert refused.status_code == 409
    assert client.put(f"/api/v1/submissions/{good}/visibility", json={"public": True},
                      headers=learner.headers).status_code == 404
    assert client.put(f"/api/v1/submissions/{good}/visibility", json={"public": True},
                      headers=author.headers).status_code == 200
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cpu").get_json()
    entry = next(e for e in board["entries"] if e["submission_id"] == good)
    assert entry["source"] == CORRECT and "@" not in entry["user"]
    assert client.get(f"/api/v1/submissions/{good}", headers=learner.headers).status_code == 200
    assert client.get(f"/api/v1/submissions/{bad}", headers=learner.headers).status_code == 404


def test_submissions_are_rate_limited_per_user(new_database):
    from app import create_app
    from extensions import upgrade_database
    from tests.conftest import ApiUser

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": new_database(),
                      "SECRET_KEY": "t", "SUBMISSION_RATE_LIMIT": "3/minute",
                      "GRADING_WORKERS": 1})
    with app.app_context():
        upgrade_database()
    client = app.test_client()
    user = ApiUser(client, "busy@example.com", "candidate")
    body = {"task": "vector_add", "source": "def solve(a, b, c, n):\n    c[...] = a + b\n"}
    codes = [client.post("/api/v1/runs", json=body, headers=user.headers).status_code
             for _ in range(4)]
    assert codes == [202, 202, 202, 429]
    limited = client.post("/api/v1/runs", json=body, headers=user.headers)
    assert limited.get_json()["status"] == 429
    other = ApiUser(client, "calm@example.com", "candidate")
    assert client.post("/api/v1/runs", json=body, headers=other.headers).status_code == 202
    app.extensions["grading_queue"].stop(timeout=120)
