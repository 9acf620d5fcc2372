"""Both grading engines for real: the local workers inside the service and Celery workers over
Redis. A killed Celery worker's submission ends `done` exactly once on another worker; a
service killed mid-grade grades its queued work after a restart."""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from contextlib import contextmanager

import pytest

from assessment_helpers import ROOT, fixture_source
from tests.servers import free_port, wait_until_answering

pytestmark = [pytest.mark.db, pytest.mark.slow]

REDIS_URL = os.environ.get("KERNELPATH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
CORRECT = fixture_source("vector_add", "raw_kernel")
WRONG = fixture_source("vector_add", "partial_half")
# A correct solution whose loading spins for about two seconds on an idle core (longer on a busy
# one, far from the judge's 20 s limit): long enough to kill mid-grade, short to grade again.
SLOW = "for _ in range(80_000_000):\n    pass\n" + CORRECT
WAIT_S = 600


def _redis_up() -> bool:
    try:
        import redis
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping()
        return True
    except Exception:
        return False


class Api:
    """A tiny JSON client for a running server."""

    def __init__(self, base):
        self.base, self.headers = base, {}

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json", **self.headers})
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read() or b"null")

    def sign_up(self, email):
        self.call("POST", "/api/v1/auth/signup",
                  {"email": email, "password": "correct horse battery", "role": "candidate"})
        _, token = self.call("POST", "/api/v1/auth/tokens",
                             {"email": email, "password": "correct horse battery"})
        self.headers = {"Authorization": f"Bearer {token['token']}"}

    def submit(self, source):
        status, body = self.call("POST", "/api/v1/submissions", {"task": "vector_add", "source": source})
        assert status == 202, body
        return body["id"]

    def wait(self, sub_id, until=("done", "failed"), timeout=WAIT_S):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, body = self.call("GET", f"/api/v1/submissions/{sub_id}")
            assert status == 200, body
            if body["status"] in until:
                return body
            time.sleep(0.25)
        pytest.fail(f"submission {sub_id} not {until} after {timeout} s")


@contextmanager
def serving(env):
    """`flask run` on a free port with this environment; killed (whole group) on exit."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "flask", "run", "--port", str(port)], cwd=ROOT,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(base + "/api/v1/tasks", proc)
        yield base, proc
    finally:
        _kill_group(proc)


@contextmanager
def celery_worker(env, name):
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "assessments.worker", "worker", "-Q", "cpu",
         "--concurrency", "1", "--pool", "prefork", "-n", f"{name}@%h", "--without-gossip",
         "--without-mingle", "--loglevel", "INFO"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        yield proc
    finally:
        _kill_group(proc)


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


@pytest.fixture
def fresh_database(new_database, migrated_database):
    """A database of its own for each test, as `flask db upgrade` leaves it."""
    return new_database(template=migrated_database)


def _env(database_url, **extra):
    env = dict(os.environ, FLASK_APP="app", DATABASE_URL=database_url, KERNELPATH_SECRET_KEY="q")
    env.update(extra)
    return env


def _attempts(database_url, sub_id):
    from sqlalchemy import create_engine, text

    import settings
    engine = create_engine(settings.normalise_database_url(database_url))
    with engine.connect() as conn:
        row = conn.execute(text("SELECT attempts, status FROM submissions WHERE id = :i"),
                           {"i": sub_id}).one()
    engine.dispose()
    return row


@pytest.fixture(params=["local", "celery"])
def engine_env(request, fresh_database):
    if request.param == "celery" and not _redis_up():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    env = _env(fresh_database, KERNELPATH_GRADING_QUEUE=request.param,
               CELERY_BROKER_URL=REDIS_URL, KERNELPATH_CELERY_KEY_PREFIX=f"kp-test-{uuid.uuid4().hex}:")
    return request.param, env


def test_each_engine_grades_to_one_final_status(engine_env):
    engine, env = engine_env
    workers = [celery_worker(env, "w1")] if engine == "celery" else []
    with serving(env) as (base, _), _all(workers):
        api = Api(base)
        api.sign_up("cand@example.com")
        good, bad = api.submit(CORRECT), api.submit(WRONG)
        assert api.wait(good)["verdict"] == "accepted"
        assert api.wait(bad)["verdict"] == "wrong_answer"


@contextmanager
def _all(managers):
    if not managers:
        yield
        return
    with managers[0], _all(managers[1:]):
        yield


def test_a_killed_celery_worker_leaves_its_submission_to_another(fresh_database):
    if not _redis_up():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    database_url = fresh_database
    env = _env(database_url, KERNELPATH_GRADING_QUEUE="celery", CELERY_BROKER_URL=REDIS_URL,
               KERNELPATH_CELERY_KEY_PREFIX=f"kp-test-{uuid.uuid4().hex}:",
               CELERY_VISIBILITY_TIMEOUT="5")
    with serving(env) as (base, _):
        api = Api(base)
        api.sign_up("cand@example.com")
        with celery_worker(env, "doomed") as doomed:
            sub_id = api.submit(SLOW)
            api.wait(sub_id, until=("running",))
            _kill_group(doomed)   # mid-grade: the worker and its judge die together
        assert api.wait(sub_id, until=("running", "queued"))["status"] == "running"
        with celery_worker(env, "heir"):
            final = api.wait(sub_id)
        assert final["status"] == "done" and final["verdict"] == "accepted"
        attempts, status = _attempts(database_url, sub_id)
        assert status == "done" and attempts == 2
        time.sleep(1)
        assert api.call("GET", f"/api/v1/submissions/{sub_id}")[1]["finished_at"] == final["finished_at"]


def test_the_local_engine_grades_queued_work_after_a_restart(fresh_database):
    env = _env(fresh_database, KERNELPATH_GRADING_QUEUE="local", KERNELPATH_GRADING_WORKERS="1")
    with serving(env) as (base, server):
        api = Api(base)
        api.sign_up("cand@example.com")
        slow, queued = api.submit(SLOW), api.submit(CORRECT)
        api.wait(slow, until=("running",))
        _kill_group(server)   # the service dies mid-grade with more work queued
    with serving(env) as (base, _):
        api.base = base
        assert api.wait(slow)["verdict"] == "accepted"
        assert api.wait(queued)["verdict"] == "accepted"
