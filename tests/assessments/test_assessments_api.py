"""Timed assessments: create, invite, accept, submit within the clock, results, profiles, and
nobody outside the organisation (or the candidate) sees any of it."""
import re
from datetime import datetime, timedelta

import pytest

from assessment_helpers import fixture_source, wait_final

pytestmark = pytest.mark.db

CORRECT = fixture_source("vector_add", "raw_kernel")


def _assessment(client, rec, job_id, **extra):
    body = {"job_id": job_id, "tasks": ["vector_add", "reduce_sum"], "time_limit_minutes": 60,
            **extra}
    resp = client.post("/api/v1/assessments", json=body, headers=rec.headers)
    assert resp.status_code == 201, resp.get_json()
    return resp.get_json()["id"]


def _invite_and_accept(client, rec, aid, cand):
    inv = client.post(f"/api/v1/assessments/{aid}/invitations",
                      json={"email": cand.user["email"]}, headers=rec.headers)
    assert inv.status_code == 201, inv.get_json()
    token = inv.get_json()["token"]
    assert inv.get_json()["url"].endswith(f"/invitations/{token}")
    accepted = client.post(f"/api/v1/invitations/{token}/accept", headers=cand.headers)
    assert accepted.status_code == 200, accepted.get_json()
    return token, accepted.get_json()


def test_tasks_are_suggested_from_the_jobs_required_skills(client, recruiter_with_job):
    rec, job_id = recruiter_with_job
    suggested = client.get(f"/api/v1/assessments/suggestions?job_id={job_id}", headers=rec.headers)
    assert suggested.status_code == 200
    tasks = suggested.get_json()["tasks"]
    assert len(tasks) == 3 and len(set(tasks)) == 3
    import gpu_tasks
    evidenced = set().union(*(gpu_tasks.TASKS[t].skills for t in tasks))
    # the posting requires CUDA, shared memory, warp shuffles and parallel reduction
    assert {"cuda", "shared_memory", "warp_shuffle", "parallel_reduction"} <= evidenced
    resp = client.post("/api/v1/assessments", json={"job_id": job_id, "time_limit_minutes": 90},
                       headers=rec.headers)
    assert resp.status_code == 201
    assert resp.get_json()["tasks"] == tasks


@pytest.mark.parametrize("body, field", [
    ({"tasks": ["nope"], "time_limit_minutes": 60}, "tasks"),
    ({"tasks": ["vector_add"], "time_limit_minutes": 0}, "time_limit_minutes"),
    ({"tasks": ["vector_add"], "time_limit_minutes": 60, "backend": "cuda"}, "backend"),
    ({"tasks": ["vector_add"]}, "time_limit_minutes"),
])
def test_bad_assessments_are_refused_naming_the_field(client, recruiter_with_job, body, field):
    rec, job_id = recruiter_with_job
    resp = client.post("/api/v1/assessments", json={"job_id": job_id, **body}, headers=rec.headers)
    assert resp.status_code == 422
    assert resp.get_json()["field"] == field


def test_an_invitation_is_single_use_and_starts_the_clock(client, recruiter_with_job, make_user):
    rec, job_id = recruiter_with_job
    aid = _assessment(client, rec, job_id)
    cand, other = make_user("cand@example.com"), make_user("other@example.com")
    token, accepted = _invite_and_accept(client, rec, aid, cand)
    started = datetime.fromisoformat(accepted["started_at"])
    assert datetime.fromisoformat(accepted["deadline"]) - started == timedelta(minutes=60)
    preview = client.get(f"/api/v1/invitations/{token}").get_json()
    assert preview["used"] is True and preview["time_limit_minutes"] == 60
    # opening it again resumes; someone else cannot use it
    again = client.post(f"/api/v1/invitations/{token}/accept", headers=cand.headers)
    assert again.get_json()["started_at"] == accepted["started_at"]
    assert client.post(f"/api/v1/invitations/{token}/accept", headers=other.headers).status_code == 409
    assert client.post("/api/v1/invitations/kpa_unknown/accept", headers=cand.headers).status_code == 404
    mine = client.get(f"/api/v1/assessments/{aid}", headers=cand.headers).get_json()
    assert mine["deadline"] == accepted["deadline"] and "invitations" not in mine


def test_the_server_enforces_the_deadline(app, client, recruiter_with_job, make_user):
    rec, job_id = recruiter_with_job
    aid = _assessment(client, rec, job_id)
    cand = make_user("cand@example.com")
    _invite_and_accept(client, rec, aid, cand)
    from assessments.models import AssessmentInvitation
    from extensions import db
    with app.app_context():
        inv = db.session.query(AssessmentInvitation).filter_by(assessment_id=aid).one()
        inv.deadline = datetime.utcnow() - timedelta(seconds=1)
        db.session.commit()
    late = client.post("/api/v1/submissions", json={"task": "vector_add", "source": CORRECT,
                                                    "assessment_id": aid}, headers=cand.headers)
    assert late.status_code == 403
    assert late.get_json()["field"] == "assessment_id"
    outside = client.post("/api/v1/submissions", json={"task": "matmul", "source": CORRECT,
                                                       "assessment_id": aid}, headers=cand.headers)
    assert outside.status_code == 422 and outside.get_json()["field"] == "task"


def test_results_profile_and_who_sees_them(client, recruiter_with_job, make_user):
    rec, job_id = recruiter_with_job
    aid = _assessment(client, rec, job_id)
    cand, second = make_user("cand@example.com"), make_user("second@example.com")
    stranger = make_user("rec@globex.test", "recruiter", "Globex")
    _invite_and_accept(client, rec, aid, cand)
    client.put(f"/api/v1/candidates/{cand.user['id']}/profile", headers=cand.headers,
               json={"text": "Five years of CUDA and Kubernetes; MS in Computer Science."})
    ids = [client.post("/api/v1/submissions", json={"task": "vector_add", "source": src,
                                                    "assessment_id": aid},
                       headers=cand.headers).get_json()["id"]
           for src in (fixture_source("vector_add", "partial_half"), CORRECT)]
    for sid in ids:
        assert wait_final(client, f"/api/v1/submissions/{sid}", rec.headers)["status"] == "done"

    results = client.get(f"/api/v1/assessments/{aid}/results", headers=rec.headers).get_json()
    row = results["candidates"][0]
    assert row["candidate_id"] == cand.user["id"]
    va = next(t for t in row["tasks"] if t["task"] == "vector_add")
    assert va["verdict"] == "accepted" and va["submission_id"] == ids[1] and va["attempts"] == 2
    rs = next(t for t in row["tasks"] if t["task"] == "reduce_sum")
    assert rs["verdict"] is None and rs["attempts"] == 0
    csv = client.get(f"/api/v1/assessments/{aid}/results?format=csv", headers=rec.headers)
    assert csv.mimetype == "text/csv"
    assert re.search(r"vector_add,accepted,\d+(\.\d+)?,", csv.get_data(as_text=True))

    profile = client.get(f"/api/v1/candidates/{cand.user['id']}/profile", headers=rec.headers)
    assert profile.status_code == 200
    verified = {s["skill"]: s for s in profile.get_json()["verified"]}
    assert "cuda" in verified and verified["cuda"]["evidence"][0]["submission_id"] == ids[1]
    claimed = {s["id"]: s for s in profile.get_json()["claimed"]["skills"]}
    assert "kubernetes" in claimed and "kubernetes" not in verified
    assert claimed["cuda"]["also_verified"] is True

    for outsider in (second, stranger):
        for path in (f"/api/v1/assessments/{aid}", f"/api/v1/assessments/{aid}/results",
                     f"/api/v1/submissions/{ids[1]}", f"/api/v1/candidates/{cand.user['id']}/profile"):
            resp = client.get(path, headers=outsider.headers)
            assert resp.status_code in (403, 404), (path, resp.status_code)
            assert resp.status_code == 404 or path.endswith("/results")
        assert client.post(f"/api/v1/assessments/{aid}/invitations", json={"email": "x@y.test"},
                           headers=outsider.headers).status_code in (403, 404)


def test_invitations_are_emailed_when_smtp_is_configured(app, client, recruiter_with_job, smtp_server):
    rec, job_id = recruiter_with_job
    aid = _assessment(client, rec, job_id)
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp_server.port)
    try:
        resp = client.post(f"/api/v1/assessments/{aid}/invitations",
                           json={"email": "someone@example.com"}, headers=rec.headers)
    finally:
        app.config.update(MAIL_SERVER=None)
    body = resp.get_json()
    assert resp.status_code == 201 and body["emailed"] is True
    message = smtp_server.wait_for_message()
    assert message["To"] == "someone@example.com"
    assert body["url"] in message.get_content()
