"""Shared fixtures: an app on a fresh database (SQLite, or PostgreSQL when
KERNELPATH_TEST_DATABASE_URL names one), a client, and signed-up users."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

PG_ENV = "KERNELPATH_TEST_DATABASE_URL"
ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    config.addinivalue_line("markers", "db: touches the database; runs on SQLite and PostgreSQL")
    config.addinivalue_line("markers", "slow: takes more than a few seconds")
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU")
    config.addinivalue_line("markers", "browser: drives the pages in headless Chromium")


def _fresh_postgres_database(base_url: str, template: str | None = None):
    """Create a database for this run so parallel runs never collide: empty, or a copy of
    `template` (a database of this run that nothing is connected to)."""
    import psycopg

    parts = urlsplit(base_url)
    name = f"kp_test_{uuid.uuid4().hex[:12]}"
    admin = urlunsplit(parts._replace(scheme="postgresql"))
    copy = f' TEMPLATE "{urlsplit(template).path.lstrip("/")}"' if template else ""
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    return urlunsplit(parts._replace(path="/" + name)), admin, name


def _drop_postgres_database(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def new_database(tmp_path_factory):
    """A factory of databases of the kind under test, dropped at the end of the run: empty, or
    `new_database(template=url)`, a copy of one it made before (building a database once and
    copying it is much quicker than migrating and filling one per test or module)."""
    base = os.environ.get(PG_ENV)
    created = []

    def make(template: str | None = None) -> str:
        if not base:
            path = tmp_path_factory.mktemp("db") / "test.sqlite"
            if template:
                shutil.copyfile(template.removeprefix("sqlite:///"), path)
            return "sqlite:///" + str(path)
        url, admin, name = _fresh_postgres_database(base, template)
        created.append((admin, name))
        return url

    yield make
    for admin, name in created:
        _drop_postgres_database(admin, name)


@pytest.fixture(scope="session")
def database_url(new_database):
    return new_database()


@pytest.fixture(scope="session")
def migrated_database(new_database):
    """A database that `flask db upgrade` made, as an operator does, once per worker: a template
    for `new_database(template=...)`, never used itself."""
    url = new_database()
    env = dict(os.environ, FLASK_APP="app", DATABASE_URL=url, KERNELPATH_SECRET_KEY="template")
    subprocess.run([sys.executable, "-m", "flask", "db", "upgrade"], cwd=ROOT, env=env,
                   check=True, capture_output=True)
    return url


# Tests sign up and sign in hundreds of users from one address; the limits themselves are
# tested on apps of their own (tests/accounts/test_limits.py).
UNLIMITED_ACCOUNTS = {"LOGIN_RATE_LIMIT": "100000/minute", "SIGNUP_RATE_LIMIT": "100000/minute",
                      "TOKEN_RATE_LIMIT": "100000/minute",
                      "PASSWORD_RESET_RATE_LIMIT": "100000/minute"}


@pytest.fixture(scope="session")
def app(database_url, tmp_path_factory):
    from app import create_app
    from extensions import upgrade_database

    # Tests share one app: per-user submission limits are lifted here and tested on an app of
    # their own (user ids repeat between tests once tables are emptied).
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": database_url,
                      "SECRET_KEY": "test",
                      "SUBMISSION_RATE_LIMIT": "10000/minute", **UNLIMITED_ACCOUNTS})
    with app.app_context():
        upgrade_database()
    return app


@pytest.fixture
def db_session(app):
    """An app context whose tables are emptied after the test."""
    from extensions import db

    with app.app_context():
        yield db.session
        db.session.rollback()
        for table in reversed(db.metadata.sorted_tables):
            db.session.execute(table.delete())
        db.session.commit()


@pytest.fixture
def client(app, db_session):
    return app.test_client()


class ApiUser:
    """A signed-up user with a bearer token, for API tests."""

    def __init__(self, client, email, role, organisation=None, password="correct horse battery"):
        body = {"email": email, "password": password, "role": role}
        if organisation:
            body["organisation"] = organisation
        resp = client.post("/api/v1/auth/signup", json=body)
        assert resp.status_code == 201, resp.get_json()
        self.user = resp.get_json()
        token = client.post("/api/v1/auth/tokens", json={"email": email, "password": password})
        assert token.status_code == 201, token.get_json()
        self.token = token.get_json()["token"]
        self.headers = {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def make_user(client):
    def make(email, role="candidate", organisation=None):
        return ApiUser(client, email, role, organisation)
    return make


class _Inbox:
    """Messages a local SMTP server received."""

    def __init__(self):
        import queue
        self.messages = queue.Queue()

    async def handle_DATA(self, server, session, envelope):
        from email import message_from_bytes, policy
        self.messages.put(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


@pytest.fixture
def smtp_server():
    """A real SMTP server (aiosmtpd) on a free local port; `wait_for_message()` returns the next mail."""
    import socket

    from aiosmtpd.controller import Controller

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inbox = _Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    controller.wait_for_message = lambda timeout=30: inbox.messages.get(timeout=timeout)
    try:
        yield controller
    finally:
        controller.stop()


@pytest.fixture(scope="session")
def start_chromium():
    """Start headless Chromium (Debian's, with its chromedriver): `start_chromium(*flags,
    capabilities={})`; skips when it is not installed. The caller quits the driver."""
    import shutil

    webdriver = pytest.importorskip("selenium.webdriver")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("Chromium and chromedriver are not installed (make test-system-deps installs them)")

    def start(*flags, capabilities=None):
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium")
        # No background traffic: this machine's closed network refuses it, noisily.
        for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-background-networking", "--disable-component-update",
                     "--no-first-run", "--disable-sync", *flags):
            options.add_argument(flag)
        for key, value in (capabilities or {}).items():
            options.set_capability(key, value)
        driver = webdriver.Chrome(options=options,
                                  service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")))
        driver.set_page_load_timeout(30)
        return driver
    return start
