"""Matching API: applying, ranking an organisation's candidates with reasons, and a candidate's
best-fitting jobs; who may see whom."""
import pytest

pytestmark = pytest.mark.db


def _profile(client, user, text):
    resp = client.put(f"/api/v1/candidates/{user.user['id']}/profile", headers=user.headers,
                      json={"text": text})
    assert resp.status_code == 200, resp.get_json()


def test_applicants_are_ranked_with_reasons_that_add_up(client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    strong = make_user("strong@example.com")
    weak = make_user("weak@example.com")
    _profile(client, strong, "MS in Computer Science, 6 years of CUDA and C++ kernels: shared "
                             "memory, warp shuffles, parallel reduction; Triton and CUTLASS.")
    _profile(client, weak, "BS in EE. 1 year of Verilog.")
    for cand in (weak, strong):
        resp = client.post(f"/api/v1/jobs/{job_id}/applications", headers=cand.headers)
        assert resp.status_code == 201, resp.get_json()
    again = client.post(f"/api/v1/jobs/{job_id}/applications", headers=strong.headers)
    assert again.status_code == 200  # applying twice is one application

    resp = client.get(f"/api/v1/jobs/{job_id}/candidates?top=5", headers=rec.headers)
    assert resp.status_code == 200, resp.get_json()
    body = resp.get_json()
    assert body["total"] == 2
    first, second = body["candidates"]
    assert first["candidate"] == strong.user["id"] and first["score"] > second["score"]
    assert first["applied"] is True
    for ranked in body["candidates"]:
        assert round(sum(r["points"] for r in ranked["reasons"]), 1) == ranked["score"]
    assert {m["skill"] for m in first["matched"]} >= {"cuda", "cpp"}
    assert all(m["evidence"] == "claimed" for m in first["matched"])  # nothing graded yet
    assert "cuda" in {m["skill"] for m in second["missing_required"]}
    assert any(s["task"] for s in first["suggestions"])  # a task that would verify a claim

    # Applying shares the profile with the organisation.
    profile = client.get(f"/api/v1/candidates/{weak.user['id']}/profile", headers=rec.headers)
    assert profile.status_code == 200


def test_no_organisation_sees_candidates_who_did_not_apply_to_it(client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    other = make_user("rec@other.test", "recruiter", "Other GPU")
    theirs = client.post("/api/v1/jobs", headers=other.headers,
                         json={"title": "RTL Engineer", "text": "RTL Engineer\nRequirements: Verilog"})
    cand = make_user("only-other@example.com")
    assert client.post(f"/api/v1/jobs/{theirs.get_json()['id']}/applications",
                       headers=cand.headers).status_code == 201
    ranked = client.get(f"/api/v1/jobs/{job_id}/candidates", headers=rec.headers).get_json()
    assert ranked["total"] == 0 and ranked["candidates"] == []
    # Another organisation's job is not found, and the candidate's profile stays private.
    assert client.get(f"/api/v1/jobs/{theirs.get_json()['id']}/candidates",
                      headers=rec.headers).status_code == 404
    assert client.get(f"/api/v1/candidates/{cand.user['id']}/profile", headers=rec.headers).status_code == 404


def test_a_candidate_sees_the_jobs_that_fit_best(client, make_user, recruiter_with_job):
    _, job_id = recruiter_with_job
    cand = make_user("fit@example.com")
    _profile(client, cand, "4 years of CUDA kernels in C++, shared memory and warp shuffles. BS in CS.")
    resp = client.get(f"/api/v1/candidates/{cand.user['id']}/jobs?top=3", headers=cand.headers)
    assert resp.status_code == 200, resp.get_json()
    jobs = resp.get_json()["jobs"]
    assert jobs[0]["job"]["id"] == job_id and jobs[0]["applied"] is False
    assert [j["score"] for j in jobs] == sorted((j["score"] for j in jobs), reverse=True)
    other = make_user("nosy@example.com")
    assert client.get(f"/api/v1/candidates/{cand.user['id']}/jobs", headers=other.headers).status_code == 404


@pytest.mark.parametrize("path, method, role, status", [
    ("/api/v1/jobs/{job}/applications", "post", "recruiter", 403),
    ("/api/v1/jobs/999999/applications", "post", "candidate", 404),
    ("/api/v1/jobs/{job}/candidates", "get", "candidate", 403),
    ("/api/v1/jobs/{job}/candidates?top=0", "get", "recruiter", 422),
    ("/api/v1/jobs/{job}/candidates?top=101", "get", "recruiter", 422),
    ("/api/v1/jobs/{job}/candidates?top=abc", "get", "recruiter", 422),
    ("/api/v1/jobs/999999/candidates", "get", "recruiter", 404),
    ("/api/v1/jobs/{job}/applications", "post", None, 401),
])
def test_refusals(client, make_user, recruiter_with_job, path, method, role, status):
    rec, job_id = recruiter_with_job
    headers = {"candidate": lambda: make_user("c@example.com").headers,
               "recruiter": lambda: rec.headers, None: lambda: {}}[role]()
    resp = getattr(client, method)(path.format(job=job_id), headers=headers)
    assert resp.status_code == status, resp.get_json()
    assert resp.is_json


def test_a_match_report_as_json_and_as_a_one_page_pdf(client, make_user, recruiter_with_job):
    import io

    from pypdf import PdfReader

    rec, job_id = recruiter_with_job
    cand = make_user("report@example.com")
    _profile(client, cand, "5 years of CUDA and C++; BS in CS.")
    cid = cand.user["id"]
    # Not a candidate of the organisation yet: not found for its recruiters.
    assert client.get(f"/api/v1/jobs/{job_id}/candidates/{cid}/report", headers=rec.headers).status_code == 404
    client.post(f"/api/v1/jobs/{job_id}/applications", headers=cand.headers)
    report = client.get(f"/api/v1/jobs/{job_id}/candidates/{cid}/report", headers=rec.headers)
    assert report.status_code == 200 and round(sum(r["points"] for r in report.get_json()["reasons"]), 1) == report.get_json()["score"]
    pdf = client.get(f"/api/v1/jobs/{job_id}/candidates/{cid}/report.pdf", headers=rec.headers)
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    pages = PdfReader(io.BytesIO(pdf.data)).pages
    assert len(pages) == 1 and "GPU Kernel Engineer" in pages[0].extract_text()
    # The candidate reads their own report too.
    assert client.get(f"/api/v1/jobs/{job_id}/candidates/{cid}/report", headers=cand.headers).status_code == 200
