"""The real server for end-to-end tests: migrations, starter jobs, HTTP on a free local port."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import UNLIMITED_ACCOUNTS
from tests.servers import free_port, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(new_database, tmp_path_factory):
    env = dict(os.environ, FLASK_APP="app", DATABASE_URL=new_database(),
               KERNELPATH_SECRET_KEY="e2e",
               **{"KERNELPATH_" + key: value for key, value in UNLIMITED_ACCOUNTS.items()})
    flask = [sys.executable, "-m", "flask"]
    subprocess.run(flask + ["db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    loaded = subprocess.run(flask + ["jobs", "load-starter"], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True)
    port = free_port()
    log = tmp_path_factory.mktemp("server") / "flask.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(flask + ["run", "--port", str(port)], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_until_answering(base + "/api/v1/openapi.json", proc, log=log)
    yield base, loaded.stdout
    proc.terminate()
    proc.wait(timeout=10)
