"""Candidates have a name: given at sign-up and changeable, seen with their e-mail address by the
recruiters of organisations they applied to or were invited by; the public sees only the display
name the person chose."""
import pytest

from tests.assessments.test_pages import PASSWORD, Page

pytestmark = pytest.mark.db


def _name(client, user, **names):
    resp = client.patch("/api/v1/auth/me", headers=user.headers, json=names)
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


def test_the_signup_page_asks_for_a_name_and_the_account_page_changes_it(app):
    page = Page(app)
    blank = page.post("/signup", data={"email": "nameless@example.com", "password": PASSWORD,
                                       "role": "candidate", "name": " "})
    html = blank.get_data(as_text=True)
    assert blank.status_code == 422 and 'id="f-name-error"' in html
    ok = page.post("/signup", data={"email": "grace@example.com", "password": PASSWORD,
                                    "role": "candidate", "name": "Grace Hopper",
                                    "display_name": "amazing_grace"})
    assert ok.status_code == 302
    account = page.get("/account").get_data(as_text=True)
    assert 'value="Grace Hopper"' in account and 'value="amazing_grace"' in account
    refused = page.post("/account/names", data={"full_name": "Grace B. Hopper",
                                                "display_name": "grace@example.com"})
    assert refused.status_code == 422
    html = refused.get_data(as_text=True)
    assert 'id="f-display_name-error"' in html and 'value="Grace B. Hopper"' in html  # kept
    saved = page.post("/account/names", data={"full_name": "Grace B. Hopper", "display_name": ""})
    assert saved.status_code == 303
    assert 'value="Grace B. Hopper"' in page.get("/account").get_data(as_text=True)


def test_recruiters_see_the_names_of_their_candidates_and_the_public_only_display_names(
        app, client, make_user, recruiter_with_job):
    rec, job_id = recruiter_with_job
    cand = make_user("linus@example.com")
    _name(client, cand, name="Linus Kernel", display_name="tux")
    assert client.post(f"/api/v1/jobs/{job_id}/applications", headers=cand.headers).status_code == 201
    ranked = client.get(f"/api/v1/jobs/{job_id}/candidates", headers=rec.headers).get_json()
    (row,) = ranked["candidates"]
    assert (row["name"], row["email"], row["display_name"]) == ("Linus Kernel", "linus@example.com", "tux")
    profile = client.get(f"/api/v1/candidates/{cand.user['id']}/profile", headers=rec.headers).get_json()
    assert profile["name"] == "Linus Kernel" and profile["email"] == "linus@example.com"
    report = client.get(f"/api/v1/jobs/{job_id}/candidates/{cand.user['id']}/report",
                        headers=rec.headers).get_json()
    assert report["name"] == "Linus Kernel" and report["email"] == "linus@example.com"
    # The recruiter's pages say the same: the job's ranking, the profile, the printable report.
    page = Page(app, "rec@acme.test")
    for url in (f"/jobs/{job_id}", f"/jobs/{job_id}/candidates", f"/candidates/{cand.user['id']}/profile",
                f"/jobs/{job_id}/candidates/{cand.user['id']}/report"):
        html = page.get(url).get_data(as_text=True)
        assert "Linus Kernel" in html and "linus@example.com" in html, url

    # The public leaderboard: the display name, never the name or address.
    from extensions import db
    from assessments.models import Submission
    with app.app_context():
        db.session.add(Submission(user_id=cand.user["id"], task="vector_add", source="# x\n",
                                  kind="submission", backend="cuda", status="done",
                                  verdict="accepted", score=90.0, median_ms=1.0,
                                  device="NVIDIA H100", leaderboard_eligible=True, public=True))
        db.session.commit()
    board = client.get("/api/v1/tasks/vector_add/leaderboard?backend=cuda").get_data(as_text=True)
    assert "tux" in board and "Linus Kernel" not in board and "linus@example.com" not in board


def test_without_a_display_name_the_public_sees_a_neutral_label(client, make_user):
    cand = make_user("anon@example.com")
    me = _name(client, cand, name="Ann Onymous")
    assert me["name"] == "Ann Onymous" and me["display_name"] is None
    other = make_user("rec2@example.com", "recruiter", "Another GPU Co")
    # A recruiter the candidate never applied to or was invited by learns nothing.
    assert client.get(f"/api/v1/candidates/{cand.user['id']}/profile",
                      headers=other.headers).status_code == 404
