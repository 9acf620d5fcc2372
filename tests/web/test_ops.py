"""/healthz and /metrics (web/ops.py), in the app and under gunicorn with several workers."""
import os
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.servers import free_port, wait_until_answering

pytestmark = pytest.mark.db

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("KERNELPATH_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
CORRECT = (ROOT / "tests/fixtures/submissions/vector_add/raw_kernel.py").read_text()


def _redis_up() -> bool:
    try:
        import redis
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping())
    except Exception:
        return False


def samples(text: str) -> dict:
    """{(sample name, frozenset of labels): value} of a Prometheus text exposition."""
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(client, **kwargs) -> dict:
    resp = client.get("/metrics", **kwargs)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/plain"
    return samples(resp.get_data(as_text=True))


def labels(**kv) -> frozenset:
    return frozenset(kv.items())


# --- /healthz ---------------------------------------------------------------------------

def test_healthz_is_ok_when_the_database_and_the_workers_are(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.get_json() == {"status": "ok",
                               "checks": {"database": "ok", "grading_queue": "ok"}}
    assert resp.headers["Cache-Control"] == "no-store"


def test_healthz_names_an_unreachable_database():
    from app import create_app

    app = create_app({"TESTING": True, "SECRET_KEY": "t", "SQLALCHEMY_DATABASE_URI":
                      f"postgresql://postgres@127.0.0.1:{free_port()}/none"})
    resp = app.test_client().get("/healthz")
    assert resp.status_code == 503
    body = resp.get_json()
    assert body["status"] == "unavailable" and "database" in body["failed"]
    assert body["checks"]["database"] == "error: OperationalError"


def test_healthz_names_an_unreachable_broker(database_url, app):
    from app import create_app

    broken = create_app({"TESTING": True, "SECRET_KEY": "t",
                         "SQLALCHEMY_DATABASE_URI": database_url, "GRADING_QUEUE": "celery",
                         "CELERY_BROKER_URL": f"redis://127.0.0.1:{free_port()}/0"})
    started = time.monotonic()
    resp = broken.test_client().get("/healthz")
    # bounded by the check's own timeouts, not kombu's retries (minutes); loose for busy machines
    assert time.monotonic() - started < 20
    assert resp.status_code == 503
    body = resp.get_json()
    assert body["failed"] == ["grading_queue"] and body["checks"]["database"] == "ok"
    assert body["checks"]["grading_queue"].startswith("error: ")


# --- /metrics ---------------------------------------------------------------------------

def test_metrics_time_requests_by_endpoint_and_count_the_queue(client):
    before = scrape(client)
    key = labels(endpoint="ops.healthz", method="GET", status="200")
    count = "kernelpath_http_request_duration_seconds_count"
    client.get("/healthz")
    client.get("/no/such/page/123")
    after = scrape(client)
    assert after[(count, key)] == before.get((count, key), 0) + 1
    assert after[(count, labels(endpoint="unmatched", method="GET", status="404"))] >= 1
    assert not any("/no/such" in str(k) for k in after)   # no raw paths as labels
    assert after[("kernelpath_grading_queue_depth",
                  labels(status="queued", kind="submission", backend="cpu"))] == 0


def test_queue_depth_counts_what_waits(app, client, make_user, monkeypatch):
    # Nothing grades here: the submission stays queued.
    monkeypatch.setattr(app.extensions["grading_queue"], "enqueue", lambda *_: None)
    user = make_user("waits@example.com")
    resp = client.post("/api/v1/submissions", json={"task": "vector_add", "source": CORRECT},
                       headers=user.headers)
    assert resp.status_code == 202
    depth = scrape(client)[("kernelpath_grading_queue_depth",
                            labels(status="queued", kind="submission", backend="cpu"))]
    assert depth == 1


def test_metrics_count_a_graded_submission(client, make_user):
    key = labels(task="vector_add", backend="cpu", kind="submission", verdict="accepted")
    verdicts = "kernelpath_grading_verdicts_total"
    before = scrape(client).get((verdicts, key), 0)
    user = make_user("graded@example.com")
    sid = client.post("/api/v1/submissions", json={"task": "vector_add", "source": CORRECT},
                      headers=user.headers).get_json()["id"]
    deadline = time.monotonic() + 600
    while client.get(f"/api/v1/submissions/{sid}", headers=user.headers).get_json()["status"] \
            not in ("done", "failed"):
        assert time.monotonic() < deadline, "grading did not end"
        time.sleep(0.2)
    after = scrape(client)
    assert after[(verdicts, key)] == before + 1
    timed = labels(task="vector_add", backend="cpu", kind="submission")
    assert after[("kernelpath_grading_duration_seconds_count", timed)] >= 1
    assert after[("kernelpath_grading_duration_seconds_sum", timed)] > 0


def test_metrics_are_for_loopback_or_the_token(app, client, monkeypatch):
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "203.0.113.9"}).status_code == 403
    # Through a proxy the app was not told about, every visitor would look local.
    assert client.get("/metrics", headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 403
    monkeypatch.setitem(app.config, "METRICS_TOKEN", "s3cret")
    remote = {"environ_base": {"REMOTE_ADDR": "203.0.113.9"}}
    assert client.get("/metrics").status_code == 403
    wrong = client.get("/metrics", headers={"Authorization": "Bearer wrong"}, **remote)
    assert wrong.status_code == 403
    scrape(client, headers={"Authorization": "Bearer s3cret"}, **remote)


# --- gunicorn -----------------------------------------------------------------------------

def _gunicorn_env(database_url, **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("KERNELPATH_", "PROMETHEUS_", "WEB_", "GUNICORN_"))}
    env.update(DATABASE_URL=database_url, KERNELPATH_SECRET_KEY="t",
               KERNELPATH_PARSER_WARM_UP="false", **extra)
    return env


def test_gunicorn_refuses_several_processes_with_the_local_engine(database_url):
    result = subprocess.run(
        [sys.executable, "-m", "gunicorn", "--check-config"], cwd=ROOT, capture_output=True,
        text=True, timeout=60, env=_gunicorn_env(database_url, WEB_CONCURRENCY="2"))
    assert result.returncode != 0 and "one web process per database" in result.stderr


def test_gunicorn_serves_with_metrics_added_up_across_workers(app, database_url, tmp_path):
    if not _redis_up():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}")
    port = free_port()
    env = _gunicorn_env(database_url, WEB_CONCURRENCY="2", KERNELPATH_GRADING_QUEUE="celery",
                        CELERY_BROKER_URL=REDIS_URL,
                        KERNELPATH_CELERY_KEY_PREFIX=f"kp-test-{uuid.uuid4().hex}:")
    log = tmp_path / "gunicorn.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=out)
    base = f"http://127.0.0.1:{port}"
    try:
        # Waiting polls another endpoint: a poll that times out on a busy machine may still be
        # answered and counted, which would make the count below depend on the load.
        wait_until_answering(base + "/metrics", proc, log=log)
        for _ in range(8):
            with urllib.request.urlopen(base + "/healthz", timeout=5) as resp:
                assert resp.status == 200
        with urllib.request.urlopen(base + "/metrics", timeout=5) as resp:
            found = samples(resp.read().decode())
    finally:
        proc.terminate()
        proc.communicate(timeout=30)
    stderr = log.read_text(errors="replace")
    key = labels(endpoint="ops.healthz", method="GET", status="200")
    # Whichever process answered each of the 8, either one's /metrics adds up both files.
    assert found[("kernelpath_http_request_duration_seconds_count", key)] == 8
    assert ("kernelpath_grading_queue_depth",
            labels(status="queued", kind="submission", backend="cpu")) in found
    assert proc.returncode == 0, stderr[-2000:]
    assert stderr.count("Booting worker") == 2
