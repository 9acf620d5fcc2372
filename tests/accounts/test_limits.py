"""Rate limits on what attackers repeat, on an app of their own (the shared test app lifts
them): sign-in failures, sign-ups, password-reset requests."""
import re

import pytest

pytestmark = pytest.mark.db

PASSWORD = "correct horse battery"


@pytest.fixture
def limited_app(new_database):
    from app import create_app
    from extensions import upgrade_database

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": new_database(),
                      "SECRET_KEY": "limits", "SIGNUP_RATE_LIMIT": "3/hour",
                      "PASSWORD_RESET_RATE_LIMIT": "2/hour", "MAIL_SERVER": None})
    with app.app_context():
        upgrade_database()
    return app


def _csrf(client, path):
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)


def _signup(client, email):
    return client.post("/api/v1/auth/signup",
                       json={"email": email, "password": PASSWORD, "role": "candidate"})


def test_the_eleventh_failed_sign_in_in_a_minute_is_refused_even_with_the_right_password(limited_app):
    client = limited_app.test_client()
    assert _signup(client, "ada@example.com").status_code == 201
    token = _csrf(client, "/login")
    for _ in range(10):
        wrong = client.post("/login", data={"email": "ada@example.com", "password": "guess",
                                            "csrf_token": token})
        assert wrong.status_code == 401
    right = client.post("/login", data={"email": "ada@example.com", "password": PASSWORD,
                                        "csrf_token": token})
    assert right.status_code == 429
    assert int(right.headers["Retry-After"]) > 0
    assert "Too many tries" in right.get_data(as_text=True)
    # The API's token exchange draws on the same allowance: switching door buys nothing.
    api = client.post("/api/v1/auth/tokens", json={"email": "ada@example.com", "password": PASSWORD})
    assert api.status_code == 429
    assert api.get_json()["status"] == 429 and "Retry-After" in api.headers


def test_successful_sign_ins_do_not_count(limited_app):
    client = limited_app.test_client()
    assert _signup(client, "ada@example.com").status_code == 201
    for _ in range(15):
        ok = client.post("/api/v1/auth/tokens", json={"email": "ada@example.com", "password": PASSWORD})
        assert ok.status_code == 201


def test_sign_ups_are_limited_per_address_on_page_and_api_together(limited_app):
    client = limited_app.test_client()
    assert _signup(client, "a1@example.com").status_code == 201
    assert _signup(client, "a1@example.com").status_code == 409  # refusals count too
    token = _csrf(client, "/signup")
    page = client.post("/signup", data={"email": "a3@example.com", "password": PASSWORD, "name": "A3",
                                        "role": "candidate", "csrf_token": token})
    assert page.status_code == 302
    client.post("/logout", data={"csrf_token": _csrf(client, "/signup")})
    limited = _signup(client, "a4@example.com")
    assert limited.status_code == 429 and "Retry-After" in limited.headers
    assert client.get("/signup").status_code == 200  # the form itself stays readable


def test_password_reset_requests_are_limited(limited_app):
    client = limited_app.test_client()
    token = _csrf(client, "/password/forgot")
    codes = [client.post("/password/forgot", data={"email": "x@example.com", "csrf_token": token}).status_code
             for _ in range(3)]
    assert codes[-1] == 429 and 429 not in codes[:2]
