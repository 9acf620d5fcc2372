"""Grading throughput: python bench/grading_queue.py [--accept 1000] [--graded 12] [--clients 8].

Measured in one run, on the cpu backend, each on a fresh SQLite database:
1. submissions accepted per second by the API (local engine, concurrent HTTP clients) under
   `flask run` and under gunicorn as `make serve` runs it, then a count of the stored rows: none
   may be lost;
2. submissions graded per minute by the local engine with 1 and 2 workers grading in threads of
   the web process (GRADING_PROCESSES=0, as before) and in grading processes (the default), and
   by 2 Celery workers (Redis), beside the floor: the judge's own time per submission, called
   directly, one at a time. The ratio of 2 workers to 1 is the figure to watch (target >= 1.8).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor

SOURCE = (ROOT / "tests" / "fixtures" / "submissions" / "vector_add" / "raw_kernel.py").read_text()
PASSWORD = "correct horse battery"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(base, method, path, body=None, headers=None):
    req = urllib.request.Request(base + path, method=method, data=json.dumps(body).encode() if body else None,
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, None


def _env(db_path: str, **extra) -> dict:
    env = dict(os.environ, FLASK_APP="app", DATABASE_URL=f"sqlite:///{db_path}",
               KERNELPATH_SECRET_KEY="bench", KERNELPATH_SUBMISSION_RATE_LIMIT="100000/minute",
               KERNELPATH_RATELIMIT_STORAGE_URI="memory://", **extra)
    subprocess.run([sys.executable, "-m", "flask", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                   capture_output=True)
    return env


class Server:
    def __init__(self, env, kind: str = "flask"):
        self.base = f"http://127.0.0.1:{_port()}"
        port = self.base.rsplit(":", 1)[1]
        if kind == "gunicorn":   # as `make serve` starts it, on another port and without access logs
            cmd = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py",
                   "--bind", f"127.0.0.1:{port}", "--access-logfile", "/dev/null"]
        else:
            cmd = [sys.executable, "-m", "flask", "run", "--port", port]
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/api/v1/tasks", timeout=2)
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("server did not start")

    def close(self):
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


def _token(base, email) -> dict:
    _call(base, "POST", "/api/v1/auth/signup", {"email": email, "password": PASSWORD, "role": "candidate"})
    _, tok = _call(base, "POST", "/api/v1/auth/tokens", {"email": email, "password": PASSWORD})
    return {"Authorization": f"Bearer {tok['token']}"}


def _count(db_path: str) -> int:
    import sqlite3
    with sqlite3.connect(db_path) as conn:
        return conn.execute("SELECT count(*) FROM submissions").fetchone()[0]


def bench_accept(n: int, clients: int, kind: str = "flask") -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/accept.sqlite"
        server = Server(_env(db, KERNELPATH_GRADING_WORKERS="1"), kind)
        try:
            headers = [_token(server.base, f"c{i}@bench.test") for i in range(clients)]
            body = {"task": "vector_add", "source": SOURCE}
            _call(server.base, "POST", "/api/v1/submissions", body, headers[0])  # warm up
            latencies, codes, lock = [], [], threading.Lock()

            def one(i):
                t0 = time.perf_counter()
                code, _ = _call(server.base, "POST", "/api/v1/submissions", body, headers[i % clients])
                with lock:
                    latencies.append(time.perf_counter() - t0)
                    codes.append(code)

            start = time.perf_counter()
            with ThreadPoolExecutor(clients) as pool:
                list(pool.map(one, range(n)))
            elapsed = time.perf_counter() - start
            stored = _count(db) - 1
        finally:
            server.close()
    return {"n": n, "rate": n / elapsed, "median_ms": statistics.median(latencies) * 1000,
            "accepted": codes.count(202), "stored": stored}


def _wait_all_final(db_path: str, n: int, timeout: float = 1800) -> None:
    import sqlite3
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with sqlite3.connect(db_path) as conn:
            final = conn.execute("SELECT count(*) FROM submissions WHERE status IN ('done','failed')").fetchone()[0]
        if final >= n:
            return
        time.sleep(0.2)
    raise RuntimeError("grading did not finish")


def bench_graded(n: int, engine: str, workers: int, processes: bool = True) -> float:
    """Submissions graded per minute: n submitted at once, time until the last is final."""
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/graded.sqlite"
        extra = {"KERNELPATH_GRADING_QUEUE": engine, "KERNELPATH_GRADING_WORKERS": str(workers),
                 "KERNELPATH_GRADING_PROCESSES": "1" if processes else "0"}
        procs = []
        if engine == "celery":
            extra.update(CELERY_BROKER_URL=os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0"),
                         KERNELPATH_CELERY_KEY_PREFIX=f"kp-bench-{uuid.uuid4().hex}:")
        env = _env(db, **extra)
        if engine == "celery":
            for i in range(workers):
                procs.append(subprocess.Popen(
                    [sys.executable, "-m", "celery", "-A", "assessments.worker", "worker", "-Q", "cpu",
                     "--concurrency", "1", "-n", f"bench{i}@%h", "--without-gossip", "--without-mingle"],
                    cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True))
            time.sleep(5)  # workers connect to the broker
        server = Server(env)
        try:
            headers = _token(server.base, "g@bench.test")
            start = time.perf_counter()
            for _ in range(n):
                code, _ = _call(server.base, "POST", "/api/v1/submissions",
                                {"task": "vector_add", "source": SOURCE}, headers)
                assert code == 202
            _wait_all_final(db, n)
            elapsed = time.perf_counter() - start
        finally:
            server.close()
            for p in procs:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
    return n / elapsed * 60


def judge_floor(repeats: int) -> float:
    """Median seconds of one judge() call on the same source (no queue, no database)."""
    from assessments.judge import judge
    times = []
    for i in range(repeats):
        t0 = time.perf_counter()
        report = judge("vector_add", SOURCE, backend="cpu", seed=i)
        times.append(time.perf_counter() - t0)
        assert report.verdict.value == "accepted", report.message
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accept", type=int, default=1000, help="submissions for the acceptance rate")
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--graded", type=int, default=12, help="submissions per grading measurement")
    parser.add_argument("--skip-celery", action="store_true")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; cpu backend; vector_add (RawKernel) for every submission\n")

    for kind in ("flask", "gunicorn"):
        acc = bench_accept(args.accept, args.clients, kind)
        lost = acc["accepted"] - acc["stored"]
        label = "flask run" if kind == "flask" else "gunicorn, make serve"
        print(f"{'API acceptance (local engine, ' + label + ')':48s} {acc['rate']:8.0f} submissions/s "
              f"(median {acc['median_ms']:.1f} ms, {args.clients} clients, {acc['accepted']}/{acc['n']} "
              f"accepted, {acc['stored']} stored, {lost} lost; target >= 200/s)")

    floor_s = judge_floor(5)
    floor = 60 / floor_s
    print(f"\n{'grading':48s} {'graded/min':>10s} {'x floor':>8s} {'2 vs 1':>7s}")
    print(f"{'judge alone, one at a time (floor for 1 worker)':48s} {floor:10.1f} {1.0:8.2f}"
          f"   ({floor_s:.2f} s per submission, median of 5)")
    rows = [("local, threads of the web process, 1 worker", "local", 1, False),
            ("local, threads of the web process, 2 workers", "local", 2, False),
            ("local, grading processes, 1 worker", "local", 1, True),
            ("local, grading processes, 2 workers", "local", 2, True)]
    if not args.skip_celery:
        rows.append(("celery, 2 workers (concurrency 1 each)", "celery", 2, True))
    one = {}
    for label, engine, workers, processes in rows:
        rate = bench_graded(args.graded, engine, workers, processes)
        key = (engine, processes)
        ratio = f"{rate / one[key]:7.2f}" if workers == 2 and key in one else ""
        if workers == 1:
            one[key] = rate
        print(f"{label:48s} {rate:10.1f} {rate / floor:8.2f} {ratio}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
