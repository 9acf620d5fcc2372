"""The real server for end-to-end tests: migrations, starter jobs, HTTP on a free local port."""
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import UNLIMITED_ACCOUNTS

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(new_database):
    env = dict(os.environ, FLASK_APP="app", DATABASE_URL=new_database(),
               KERNELPATH_SECRET_KEY="e2e",
               **{"KERNELPATH_" + key: value for key, value in UNLIMITED_ACCOUNTS.items()})
    flask = [sys.executable, "-m", "flask"]
    subprocess.run(flask + ["db", "upgrade"], cwd=ROOT, env=env, check=True, capture_output=True)
    loaded = subprocess.run(flask + ["jobs", "load-starter"], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True)
    port = _free_port()
    proc = subprocess.Popen(flask + ["run", "--port", str(port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(base + "/api/v1/openapi.json", timeout=1)
            break
        except OSError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("server did not start: " + proc.stdout.read().decode()[-2000:])
    yield base, loaded.stdout
    proc.terminate()
    proc.wait(timeout=10)
