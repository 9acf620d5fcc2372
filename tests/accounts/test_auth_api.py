"""Signup, tokens, invitations and the JSON errors around them."""
import pytest

pytestmark = pytest.mark.db


def test_candidate_signs_up_and_gets_a_working_token(client, make_user):
    user = make_user("ada@example.com")
    me = client.get("/api/v1/auth/me", headers=user.headers)
    assert me.status_code == 200
    assert me.get_json()["email"] == "ada@example.com"
    assert me.get_json()["role"] == "candidate"


def test_tokens_are_stored_hashed(client, make_user, db_session):
    from accounts.models import ApiToken

    user = make_user("ada@example.com")
    stored = db_session.query(ApiToken).one()
    assert user.token not in (stored.token_hash, stored.prefix)
    assert len(stored.token_hash) == 64


def test_revoked_token_stops_working(client, make_user):
    user = make_user("ada@example.com")
    assert client.delete("/api/v1/auth/tokens/current", headers=user.headers).status_code == 204
    resp = client.get("/api/v1/auth/me", headers=user.headers)
    assert resp.status_code == 401
    assert resp.get_json()["field"] == "Authorization"


def test_revoke_by_id_only_for_own_tokens(client, make_user):
    alice, bob = make_user("alice@example.com"), make_user("bob@example.com")
    alice_tokens = client.get("/api/v1/auth/tokens", headers=alice.headers).get_json()
    token_id = alice_tokens[0]["id"]
    assert "token" not in alice_tokens[0]
    assert client.delete(f"/api/v1/auth/tokens/{token_id}", headers=bob.headers).status_code == 404
    assert client.delete(f"/api/v1/auth/tokens/{token_id}", headers=alice.headers).status_code == 204
    assert client.get("/api/v1/auth/me", headers=alice.headers).status_code == 401


def test_wrong_password_is_401_with_json(client, make_user):
    make_user("ada@example.com")
    resp = client.post("/api/v1/auth/tokens", json={"email": "ada@example.com", "password": "nope"})
    assert resp.status_code == 401
    assert resp.get_json()["message"] == "wrong email or password"


@pytest.mark.parametrize("body, field", [
    ({"password": "long enough pw", "role": "candidate"}, "email"),
    ({"email": "not-an-email", "password": "long enough pw", "role": "candidate"}, "email"),
    ({"email": "a@example.com", "password": "short", "role": "candidate"}, "password"),
    ({"email": "a@example.com", "password": "long enough pw", "role": "wizard"}, "role"),
    ({"email": "a@example.com", "password": "long enough pw", "role": "admin"}, "role"),
    ({"email": "a@example.com", "password": "long enough pw", "role": "recruiter"}, "organisation"),
    ({"email": "a@example.com", "password": "long enough pw", "role": "candidate",
      "organisation": "Acme"}, "organisation"),
])
def test_signup_validation_names_the_field(client, body, field):
    resp = client.post("/api/v1/auth/signup", json=body)
    assert resp.status_code == 422
    data = resp.get_json()
    assert data["status"] == 422
    assert data["field"] == field
    assert data["message"]


def test_duplicate_email_is_a_conflict(client, make_user):
    make_user("ada@example.com")
    resp = client.post("/api/v1/auth/signup", json={
        "email": "ADA@example.com", "password": "long enough pw", "role": "candidate"})
    assert resp.status_code == 409
    assert resp.get_json()["field"] == "email"


def test_non_json_body_is_a_clear_error(client):
    resp = client.post("/api/v1/auth/signup", data="email=x", content_type="text/plain")
    assert resp.status_code in (415, 422)
    assert "message" in resp.get_json()


def test_nobody_signs_up_into_an_existing_organisation(client, make_user):
    make_user("boss@acme.test", "recruiter", "Acme GPU")
    resp = client.post("/api/v1/auth/signup", json={
        "email": "intruder@evil.test", "password": "long enough pw", "role": "recruiter",
        "organisation": "acme gpu "})
    assert resp.status_code == 409
    assert resp.get_json()["field"] == "organisation"


def test_invited_recruiter_joins_the_organisation(client, make_user):
    boss = make_user("boss@acme.test", "recruiter", "Acme GPU")
    org_id = boss.user["organisation"]["id"]
    assert boss.user["is_org_admin"] is True
    invite = client.post(f"/api/v1/organisations/{org_id}/invitations",
                         json={"email": "new@acme.test"}, headers=boss.headers)
    assert invite.status_code == 201
    code = invite.get_json()["code"]
    # The code is bound to the invited address.
    wrong = client.post("/api/v1/auth/signup", json={
        "email": "other@acme.test", "password": "long enough pw", "role": "recruiter", "invitation": code})
    assert wrong.status_code == 403
    joined = client.post("/api/v1/auth/signup", json={
        "email": "new@acme.test", "password": "long enough pw", "role": "recruiter", "invitation": code})
    assert joined.status_code == 201
    assert joined.get_json()["organisation"]["id"] == org_id
    assert joined.get_json()["is_org_admin"] is False
    again = client.post("/api/v1/auth/signup", json={
        "email": "new2@acme.test", "password": "long enough pw", "role": "recruiter", "invitation": code})
    assert again.status_code == 403


def test_only_the_organisation_admin_invites(client, make_user):
    boss = make_user("boss@acme.test", "recruiter", "Acme GPU")
    other = make_user("boss@rival.test", "recruiter", "Rival")
    candidate = make_user("cand@example.com")
    org_id = boss.user["organisation"]["id"]
    url = f"/api/v1/organisations/{org_id}/invitations"
    assert client.post(url, json={"email": "x@y.test"}, headers=other.headers).status_code == 403
    assert client.post(url, json={"email": "x@y.test"}, headers=candidate.headers).status_code == 403
    assert client.post(url, json={"email": "x@y.test"}).status_code == 401


def test_malformed_authorization_header(client):
    resp = client.get("/api/v1/auth/me", headers={"Authorization": "Token abc"})
    assert resp.status_code == 401
    assert resp.get_json()["field"] == "Authorization"


def _form_token(client, path):
    import re

    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def test_session_login_page(client, make_user):
    make_user("ada@example.com")
    token = _form_token(client, "/login")
    bad = client.post("/login", data={"email": "ada@example.com", "password": "wrong",
                                      "csrf_token": token})
    assert bad.status_code == 401
    good = client.post("/login?next=//evil.test/x",
                       data={"email": "ada@example.com", "password": "correct horse battery",
                             "csrf_token": token})
    assert good.status_code == 302
    assert good.headers["Location"] == "/"
    assert b"ada@example.com" in client.get("/").data
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert b"ada@example.com" not in client.get("/").data


def test_page_forms_refuse_posts_without_the_session_token(client, make_user):
    make_user("ada@example.com")
    forged = client.post("/login", data={"email": "ada@example.com",
                                         "password": "correct horse battery"})
    assert forged.status_code == 400
    _form_token(client, "/login")
    wrong = client.post("/login", data={"email": "ada@example.com",
                                        "password": "correct horse battery", "csrf_token": "x"})
    assert wrong.status_code == 400
    assert b"ada@example.com" not in client.get("/").data


def test_token_use_is_recorded_at_most_once_a_minute(app, client, make_user):
    """A plain read does not write: token use is written when the last record is over a minute old."""
    from datetime import timedelta

    from sqlalchemy import event

    from accounts.models import ApiToken, utcnow
    from extensions import db

    user = make_user("ada@example.com")
    assert client.get("/api/v1/auth/me", headers=user.headers).status_code == 200
    token = db.session.scalar(db.select(ApiToken))
    first = token.last_used_at
    assert first is not None
    writes = []
    listener = lambda *args: writes.append(args[2])  # noqa: E731 - (conn, cursor, statement, ...)
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        for _ in range(3):
            assert client.get("/api/v1/auth/me", headers=user.headers).status_code == 200
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    assert not [s for s in writes if s.lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))]
    token.last_used_at = utcnow() - timedelta(minutes=2)
    db.session.commit()
    assert client.get("/api/v1/auth/me", headers=user.headers).status_code == 200
    db.session.expire_all()
    assert db.session.get(ApiToken, token.id).last_used_at > utcnow() - timedelta(seconds=30)
