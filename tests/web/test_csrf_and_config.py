"""Every state-changing page request needs the session's CSRF token; configuration from the
environment keeps its types; the secret key lives in the instance folder."""
import re

import pytest

UNSAFE = ("POST", "PUT", "PATCH", "DELETE")


def _page_rules(app):
    """(path, method) for every page route taking an unsafe method, ids filled with 1."""
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/") or rule.endpoint == "static":
            continue
        for method in sorted(set(rule.methods) & set(UNSAFE)):
            path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", "1", rule.rule)
            yield path, method


@pytest.mark.db
def test_every_unsafe_page_request_without_a_token_is_refused(app, client, make_user):
    from tests.assessments.test_pages import Page

    make_user("ada@example.com")
    page = Page(app, "ada@example.com")  # signed in: the check is not a sign-in redirect
    routes = list(_page_rules(app))
    assert len(routes) >= 20 and ("/login", "POST") in routes
    for path, method in routes:
        for data in ({}, {"csrf_token": "forged"}):
            resp = page.http.open(path, method=method, data=data)
            assert resp.status_code == 400, (method, path, resp.status_code)
            assert "expired or came from another site" in resp.get_data(as_text=True)
    # ... and with the session's token the same requests get through the check.
    assert page.post("/account/tokens", data={"name": "ok"}).status_code == 200


@pytest.mark.db
def test_the_api_takes_no_csrf_token(client, make_user):
    user = make_user("ada@example.com")
    resp = client.post("/api/v1/jobs/parse", json={"text": "CUDA kernels, 3+ years"},
                       headers=user.headers)
    assert resp.status_code == 200


def test_environment_values_keep_the_type_of_their_setting():
    import settings

    current = {**settings.DEFAULTS, "SESSION_COOKIE_SECURE": False}
    found = settings.from_environment(current, {
        "KERNELPATH_SECRET_KEY": "0123", "KERNELPATH_TOKEN_TTL_DAYS": "7",
        "KERNELPATH_HTTPS": "yes", "KERNELPATH_SESSION_COOKIE_SECURE": "false",
        "KERNELPATH_MAIL_SERVER": "127.0.0.1", "DATABASE_URL": "postgres://u@h/db"})
    assert found["SECRET_KEY"] == "0123"
    assert found["TOKEN_TTL_DAYS"] == 7 and found["HTTPS"] is True
    assert found["SESSION_COOKIE_SECURE"] is False and found["MAIL_SERVER"] == "127.0.0.1"
    assert found["SQLALCHEMY_DATABASE_URI"] == "postgres://u@h/db"  # normalised once, by the app
    with pytest.raises(settings.SettingError, match="KERNELPATH_TOKEN_TTL_DAYS"):
        settings.from_environment(current, {"KERNELPATH_TOKEN_TTL_DAYS": "a week"})


def test_the_app_normalises_the_database_url_and_makes_a_secret_key_once(tmp_path, monkeypatch):
    from app import create_app

    monkeypatch.setenv("DATABASE_URL", "postgresql://someone@db.invalid/kp")
    monkeypatch.setenv("KERNELPATH_HTTPS", "true")
    monkeypatch.delenv("KERNELPATH_SECRET_KEY", raising=False)
    app = create_app({"TESTING": True})
    assert len(app.config["SECRET_KEY"]) == 64  # from instance/secret_key, never a fixed default
    assert app.config["SQLALCHEMY_DATABASE_URI"] == "postgresql+psycopg://someone@db.invalid/kp"
    assert app.config["SESSION_COOKIE_SECURE"] and app.config["PREFERRED_URL_SCHEME"] == "https"
    assert app.config["SESSION_COOKIE_HTTPONLY"] and app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


def test_the_secret_key_is_generated_into_the_instance_folder_and_reused(tmp_path):
    import os
    import stat

    import settings

    first = settings.instance_secret_key(str(tmp_path))
    assert len(first) == 64 and first == settings.instance_secret_key(str(tmp_path))
    assert stat.S_IMODE(os.stat(tmp_path / "secret_key").st_mode) == 0o600
    assert first != settings.instance_secret_key(str(tmp_path / "other"))
