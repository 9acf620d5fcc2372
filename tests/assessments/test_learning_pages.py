"""Pages for learners, candidates and recruiters: the roadmap form and its plan, saved roadmaps
ticked off, jobs that fit, applying, and a job's ranked candidates."""
import io
import re

import pytest

from test_pages import Page

pytestmark = pytest.mark.db


def text(resp) -> str:
    return resp.get_data(as_text=True)


def test_a_visitor_gets_a_roadmap_with_a_timeline_and_a_salary_band(app, starter_jobs):
    page = Page(app)
    form = text(page.get("/roadmap"))
    assert 'name="profile_text"' in form and 'type="file"' in form
    resp = page.post("/roadmap", {"target": "software_optimization", "level": "mid", "hours_per_week": "6",
                                  "location": "Austin, TX", "profile_text": "Three years of Python."})
    assert resp.status_code == 200, text(resp)
    body = text(resp)
    assert 'id="timeline"' in body and "GPU fundamentals" in body and "/tasks/" in body
    assert "Salary band" in body and "Austin-Round Rock-San Marcos TX" in body and "<svg" in body


def test_a_resume_file_feeds_the_roadmap_and_bad_input_stays_in_the_form(app, starter_jobs):
    page = Page(app)
    resp = page.post("/roadmap", {"target": "software_optimization", "level": "mid", "hours_per_week": "10",
                                  "resume": (io.BytesIO(b"I know CUDA and C++ well."), "cv.txt")},
                     content_type="multipart/form-data")
    assert resp.status_code == 200 and "you claim it" in text(resp)
    bad = page.post("/roadmap", {"target": "software_optimization", "level": "mid", "hours_per_week": "0"})
    assert bad.status_code == 422 and "between 1 and 80" in text(bad) and 'role="alert"' in text(bad)
    empty = page.post("/roadmap", {"target": "software_optimization", "level": "mid", "hours_per_week": "5",
                                   "resume": (io.BytesIO(b""), "cv.pdf")}, content_type="multipart/form-data")
    assert empty.status_code == 422 and "empty" in text(empty)


def test_a_saved_roadmap_ticks_steps_off(app, make_user, starter_jobs):
    make_user("learner-page@example.com")
    page = Page(app, "learner-page@example.com")
    saved = page.post("/roadmap", {"target": "software_optimization", "level": "mid", "hours_per_week": "10",
                                   "save": "1"})
    assert saved.status_code == 303
    url = saved.headers["Location"]
    body = text(page.get(url))
    skill = re.search(r'name="skill" value="([^"]+)"', body).group(1)
    ticked = page.post(url.split("#")[0], {"skill": skill, "done": "1"})
    assert ticked.status_code == 303
    assert "✓ done" in text(page.get(url.split("#")[0]))
    other = make_user("other-learner@example.com")
    assert Page(app, "other-learner@example.com").get(url.split("#")[0]).status_code == 404
    del other


def test_a_candidate_applies_and_the_recruiter_sees_the_ranking(app, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    make_user("page-cand@example.com")
    cand = Page(app, "page-cand@example.com")
    assert cand.post("/candidates/%d/profile" % _id("page-cand@example.com"),
                     {"text": "Four years of CUDA kernels in C++."}).status_code == 303
    listing = text(cand.get("/jobs-for-me"))
    assert f"/jobs/{job_id}" in listing and "Why this score" in listing
    applied = cand.post(f"/jobs/{job_id}/apply")
    assert applied.status_code == 303
    assert "Applied" in text(cand.get(f"/jobs/{job_id}"))
    recruiter = Page(app, "rec@acme.test")
    ranked = recruiter.get(f"/jobs/{job_id}/candidates")
    assert ranked.status_code == 200 and "Reasons" in text(ranked) and "applied" in text(ranked)
    make_user("rec@rival.test", "recruiter", "Rival")
    assert Page(app, "rec@rival.test").get(f"/jobs/{job_id}/candidates").status_code == 404


def _id(email):
    from accounts.models import User
    from extensions import db

    return db.session.query(User).filter_by(email=email).one().id


def test_the_job_page_lists_its_top_candidates_for_its_recruiters_only(app, make_user, recruiter_with_job):
    _, job_id = recruiter_with_job
    make_user("listed@example.com")
    cand = Page(app, "listed@example.com")
    cand.post(f"/jobs/{job_id}/apply")
    mine = text(Page(app, "rec@acme.test").get(f"/jobs/{job_id}"))
    assert 'id="top-candidates"' in mine and "Reasons" in mine
    make_user("rec@elsewhere.test", "recruiter", "Elsewhere")
    assert 'id="top-candidates"' not in text(Page(app, "rec@elsewhere.test").get(f"/jobs/{job_id}"))
    assert 'id="top-candidates"' not in text(cand.get(f"/jobs/{job_id}"))


def test_a_candidate_uploads_a_resume_on_the_profile_page(app, make_user):
    make_user("upload-page@example.com")
    page = Page(app, "upload-page@example.com")
    cid = _id("upload-page@example.com")
    saved = page.post(f"/candidates/{cid}/profile", {"text": "", "resume": (io.BytesIO(b"CUDA and NCCL, MS in EE"), "cv.txt")},
                      content_type="multipart/form-data")
    assert saved.status_code == 303
    body = text(page.get(f"/candidates/{cid}/profile"))
    assert "NCCL" in body
    bad = page.post(f"/candidates/{cid}/profile", {"text": "", "resume": (io.BytesIO(b"%PDF-1.4 broken"), "cv.pdf")},
                    content_type="multipart/form-data")
    assert bad.status_code == 422 and "Not a readable PDF" in text(bad)
