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
