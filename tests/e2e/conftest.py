"""The real server for end-to-end tests: migrations, starter jobs, HTTP on a free local port."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import UNLIMITED_ACCOUNTS
from tests.e2e.windows import WIDE
from tests.servers import free_port, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]


def _server_env(database_url):
    return dict(os.environ, FLASK_APP="app", DATABASE_URL=database_url, KERNELPATH_SECRET_KEY="e2e",
                **{"KERNELPATH_" + key: value for key, value in UNLIMITED_ACCOUNTS.items()})


@pytest.fixture(scope="session")
def starter_database(new_database, migrated_database):
    """A database made as a user makes theirs (`flask db upgrade`, `flask jobs load-starter`),
    once per worker, with what the loading printed: each module's server gets a copy."""
    url = new_database(template=migrated_database)
    loaded = subprocess.run([sys.executable, "-m", "flask", "jobs", "load-starter"], cwd=ROOT,
                            env=_server_env(url), check=True, capture_output=True, text=True)
    return url, loaded.stdout


@pytest.fixture(scope="module")
def server(new_database, starter_database, tmp_path_factory):
    template, loaded = starter_database
    env = _server_env(new_database(template=template))
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "flask.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "flask", "run", "--port", str(port)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_until_answering(base + "/api/v1/openapi.json", proc, log=log)
    yield base, loaded
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser(start_chromium):
    """A headless Chromium at laptop width, one per test module."""
    driver = start_chromium(f"--window-size={WIDE[0]},{WIDE[1]}", "--hide-scrollbars")
    yield driver
    driver.quit()
