"""Fixtures for the assessment tests."""
import pytest

from assessment_helpers import JOB_TEXT


@pytest.fixture
def recruiter_with_job(client, make_user):
    """A recruiter of 'Acme GPU' and one of its jobs."""
    rec = make_user("rec@acme.test", "recruiter", "Acme GPU")
    job = client.post("/api/v1/jobs", json={"title": "GPU Kernel Engineer", "text": JOB_TEXT},
                      headers=rec.headers)
    assert job.status_code == 201, job.get_json()
    return rec, job.get_json()["id"]


@pytest.fixture
def starter_jobs(db_session):
    """The starter jobs `make run` loads (the shared seed postings): enough postings per track
    for a roadmap target, as a new installation has."""
    from jobdata.starter import load_starter
    count = load_starter()
    assert count >= 60, count
    return count
