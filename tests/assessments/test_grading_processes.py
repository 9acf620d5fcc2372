"""The local queue grades in a pool of processes: not in the web process, a dead grading process
replaced with its submission graded once more, exactly one final status, metrics counted."""
from __future__ import annotations

import os
import time

import pytest
from sqlalchemy import create_engine, text

import grading_process_helpers as helpers
from assessment_helpers import fixture_source, wait_final

pytestmark = pytest.mark.slow


@pytest.fixture
def local_app(new_database):
    from app import create_app
    from extensions import upgrade_database

    url = new_database()
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, "SECRET_KEY": "t",
                      "GRADING_WORKERS": 2, "SUBMISSION_RATE_LIMIT": "1000/minute"})
    with app.app_context():
        upgrade_database()
    yield app, url
    app.extensions["grading_queue"].stop(timeout=120)


def _submit(client, user, source):
    made = client.post("/api/v1/submissions", json={"task": "vector_add", "source": source},
                       headers=user.headers)
    assert made.status_code == 202, made.get_json()
    return made.get_json()["id"]


def _metric(client, verdict: str) -> float:
    body = client.get("/metrics").get_data(as_text=True)
    total = 0.0
    for line in body.splitlines():
        if line.startswith("kernelpath_grading_verdicts_total{") and f'verdict="{verdict}"' in line \
                and 'task="vector_add"' in line:
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_grading_happens_in_processes_other_than_the_web_process(local_app, monkeypatch, tmp_path):
    from tests.conftest import ApiUser

    app, _url = local_app
    queue = app.extensions["grading_queue"]
    assert queue.processes
    monkeypatch.setenv("KP_TEST_PID_DIR", str(tmp_path))
    monkeypatch.setattr("assessments.grading.grade_in_process", helpers.report_pid)
    client = app.test_client()
    user = ApiUser(client, "pool@example.com", "candidate")
    before = _metric(client, "accepted")
    ids = [_submit(client, user, fixture_source("vector_add", "raw_kernel")) for _ in range(3)]
    for sub_id in ids:
        assert wait_final(client, f"/api/v1/submissions/{sub_id}", user.headers)["verdict"] == "accepted"
    pids = {int((tmp_path / str(i)).read_text()) for i in ids}
    assert os.getpid() not in pids and 1 <= len(pids) <= 2
    # The grading processes hand their figures back: the service's /metrics counts them. The
    # parent records a grade once the process returns, just after the result is stored, so a
    # scrape may see the verdict a moment before its count.
    deadline = time.monotonic() + 30
    while _metric(client, "accepted") < before + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _metric(client, "accepted") == before + 3


def test_a_grading_process_that_dies_is_replaced_and_the_work_graded_once(local_app, monkeypatch,
                                                                          tmp_path):
    from tests.conftest import ApiUser

    app, url = local_app
    monkeypatch.setenv("KP_TEST_DIE_MARKER", str(tmp_path / "died"))
    monkeypatch.setattr("assessments.grading.grade_in_process", helpers.die_on_first_call)
    client = app.test_client()
    user = ApiUser(client, "phoenix@example.com", "candidate")
    sub_id = _submit(client, user, fixture_source("vector_add", "raw_kernel"))
    final = wait_final(client, f"/api/v1/submissions/{sub_id}", user.headers)
    assert (tmp_path / "died").exists()
    assert final["status"] == "done" and final["verdict"] == "accepted"
    with create_engine(url).connect() as conn:
        attempts, claim = conn.execute(text("SELECT attempts, claim FROM submissions WHERE id = :i"),
                                       {"i": sub_id}).one()
    assert attempts == 2 and claim is None       # the dead attempt's claim, then the one that stored
    # The replaced pool grades the next submission as usual.
    again = _submit(client, user, fixture_source("vector_add", "raw_kernel"))
    assert wait_final(client, f"/api/v1/submissions/{again}", user.headers)["verdict"] == "accepted"


_ORPHAN_SCRIPT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing
from assessments import grading
pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                           initializer=grading.warm_up)
print(pool.submit(os.getpid).result(), flush=True)
time.sleep(600)
"""


def test_grading_processes_end_when_the_service_is_killed():
    # A service killed with SIGKILL (the OOM killer, `kill -9`) must not leave its grading
    # processes behind, waiting for ever on their queue.
    import signal
    import subprocess
    import sys
    import time

    from assessment_helpers import ROOT
    service = subprocess.Popen([sys.executable, "-c", _ORPHAN_SCRIPT], cwd=ROOT,
                               stdout=subprocess.PIPE, text=True)
    try:
        worker = int(service.stdout.readline())
    finally:
        service.send_signal(signal.SIGKILL)
        service.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    os.kill(worker, signal.SIGKILL)
    raise AssertionError("the grading process outlived the service by a minute")
