"""The account pages: sign up (candidate, new organisation, invitation), password reset by
e-mail, API tokens, the organisation and its invitations, styled errors."""
import re

import pytest

from tests.assessments.test_pages import PASSWORD, Page

pytestmark = pytest.mark.db


def _signup(page, **form):
    return page.post("/signup", data={"password": PASSWORD, "name": "Ada Lovelace", **form})


def test_a_candidate_signs_up_on_the_page_and_lands_on_their_profile(app, client):
    page = Page(app)
    resp = _signup(page, email="Ada@Example.com", role="candidate")
    assert resp.status_code == 302 and "/candidates/" in resp.headers["Location"]
    home = page.get("/").get_data(as_text=True)
    assert "ada@example.com" in home and "My profile" in home


def test_sign_up_mistakes_are_shown_in_the_form(app, client):
    page = Page(app)
    resp = _signup(page, email="not-an-email", role="candidate", password="short")
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert 'id="f-email-error"' in html and 'id="f-password-error"' in html
    assert 'aria-invalid="true"' in html
    assert 'value="not-an-email"' in html  # what was typed stays
    recruiter = _signup(Page(app), email="r@example.com", role="recruiter")
    assert recruiter.status_code == 422 and "organisation" in recruiter.get_data(as_text=True)


def test_a_recruiter_founds_an_organisation_and_invites_a_colleague(app, client, smtp_server):
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp_server.port)
    try:
        boss = Page(app)
        assert _signup(boss, email="boss@acme.test", role="recruiter",
                       organisation="Acme GPU").headers["Location"].endswith("/jobs/mine")
        sent = boss.post("/organisation", data={"email": "colleague@acme.test"})
        assert sent.status_code == 200
        assert "An invitation went to" in sent.get_data(as_text=True)
        mail = smtp_server.wait_for_message()
    finally:
        app.config.update(MAIL_SERVER=None)
    assert mail["To"] == "colleague@acme.test"
    link = re.search(r"http://\S+", mail.get_content()).group(0)
    path = link.split("localhost", 1)[1]
    colleague = Page(app)
    form = colleague.get(path).get_data(as_text=True)
    assert "joining an organisation by invitation" in form
    code = re.search(r'name="invitation" value="([^"]+)"', form).group(1)
    joined = _signup(colleague, email="colleague@acme.test", role="recruiter", invitation=code)
    assert joined.status_code == 302
    members = boss.get("/organisation").get_data(as_text=True)
    assert "colleague@acme.test" in members
    # The invitation was for that address only, and works once.
    again = _signup(Page(app), email="other@acme.test", role="recruiter", invitation=code)
    assert again.status_code == 403 and "invitation" in again.get_data(as_text=True)


def test_without_mail_the_administrator_sees_the_link_once(app, client):
    boss = Page(app)
    _signup(boss, email="boss@acme.test", role="recruiter", organisation="Acme GPU")
    html = boss.post("/organisation", data={"email": "new@acme.test"}).get_data(as_text=True)
    assert "No e-mail was sent" in html and "/signup?invitation=" in html
    bad = boss.post("/organisation", data={"email": "nope"})
    assert bad.status_code == 422 and 'id="f-email-error"' in bad.get_data(as_text=True)


def test_candidates_have_no_organisation_page(app, client):
    page = Page(app)
    _signup(page, email="c@example.com", role="candidate")
    assert page.get("/organisation").status_code == 403
    assert "Not yours to see" in page.get("/organisation").get_data(as_text=True)


def test_password_reset_by_e_mail(app, client, smtp_server, make_user):
    user = make_user("ada@example.com")
    app.config.update(MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp_server.port)
    try:
        page = Page(app)
        unknown = page.post("/password/forgot", data={"email": "nobody@example.com"})
        known = page.post("/password/forgot", data={"email": "ada@example.com"})
        # The same answer either way: the page tells no one which addresses have accounts.
        assert unknown.status_code == known.status_code == 200
        assert "on its way" in known.get_data(as_text=True)
        mail = smtp_server.wait_for_message()
    finally:
        app.config.update(MAIL_SERVER=None)
    assert mail["To"] == "ada@example.com"
    path = re.search(r"http://localhost(\S+)", mail.get_content()).group(1)
    form = page.get(path)
    assert form.status_code == 200 and "ada@example.com" in form.get_data(as_text=True)
    differ = page.post(path, data={"password": "a new password", "confirm": "another one"})
    assert differ.status_code == 422 and "differ" in differ.get_data(as_text=True)
    done = page.post(path, data={"password": "a new password", "confirm": "a new password"})
    assert done.status_code == 302
    # The new password works, the old one and the old API token do not; the link is spent.
    assert client.post("/api/v1/auth/tokens", json={"email": "ada@example.com",
                                                    "password": "a new password"}).status_code == 201
    assert client.post("/api/v1/auth/tokens", json={"email": "ada@example.com",
                                                    "password": PASSWORD}).status_code == 401
    assert client.get("/api/v1/auth/me", headers=user.headers).status_code == 401
    assert page.get(path).status_code == 410


def test_a_forged_reset_link_is_refused(app, client):
    resp = Page(app).get("/password/reset/not-a-token")
    assert resp.status_code == 404 and "not valid" in resp.get_data(as_text=True)


def test_api_tokens_are_created_shown_once_and_revoked_on_the_account_page(app, client, make_user):
    make_user("ada@example.com")
    page = Page(app, "ada@example.com")
    created = page.post("/account/tokens", data={"name": "CI script"}).get_data(as_text=True)
    token = re.search(r'id="new-token"[^>]*value="(kp_[^"]+)"', created).group(1)
    assert client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    listing = page.get("/account").get_data(as_text=True)
    assert "CI script" in listing and token not in listing  # never shown again
    token_id = re.search(r'/account/tokens/(\d+)/revoke', listing).group(1)
    assert page.post(f"/account/tokens/{token_id}/revoke").status_code == 302
    assert client.get("/api/v1/auth/me", headers={"Authorization": f"Bearer {token}"}).status_code == 401
    assert "revoked" in page.get("/account").get_data(as_text=True)


def test_nobody_revokes_another_users_token(app, client, make_user):
    make_user("ada@example.com")
    make_user("bob@example.com")
    ada = Page(app, "ada@example.com")
    ada.post("/account/tokens", data={"name": "mine"})
    listing = ada.get("/account").get_data(as_text=True)
    token_id = re.search(r'/account/tokens/(\d+)/revoke', listing).group(1)
    bob = Page(app, "bob@example.com")
    assert bob.post(f"/account/tokens/{token_id}/revoke").status_code == 404
    assert "revoked" not in ada.get("/account").get_data(as_text=True)


def test_error_pages_are_styled_pages(app, client):
    missing = client.get("/no/such/page")
    html = missing.get_data(as_text=True)
    assert missing.status_code == 404 and "Page not found" in html and "<nav" in html
    assert client.get("/account").status_code == 302  # sign in first


def test_an_unexpected_error_is_a_styled_500_page(database_url):
    from app import create_app

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url,
                      "SECRET_KEY": "500"})

    @app.route("/__boom")
    def _boom():
        raise RuntimeError("boom")

    resp = app.test_client().get("/__boom")
    assert resp.status_code == 500
    assert "Something broke" in resp.get_data(as_text=True) and "boom" not in resp.get_data(as_text=True)


def test_each_problem_in_the_summary_names_its_field(app):
    resp = _signup(Page(app), email="x@example.com", role="candidate", password="short")
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422
    summary = html.split('class="form-summary"', 1)[1].split("</div>", 1)[0]
    assert "Password: " in summary
