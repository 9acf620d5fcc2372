"""The grading queue: one interface, two engines.

- `local` (default): a pool of grading processes beside the service, sized to the machine (each
  judge run is a sandboxed child beneath its grading process). Grading in processes keeps the
  judge's parent-side work (generating inputs, comparing outputs, the build cache) off the web
  process's interpreter lock, so two workers grade twice as much as one. A grading process that
  dies (killed, out of memory) is replaced and its submission graded again under a fresh claim.
  The first request after start-up queues again whatever a crash left `queued` or `running`:
  killing the service loses nothing. One service process per database: two local engines would
  each re-grade the other's work. `GRADING_PROCESSES=False` grades in threads of the service
  instead (an in-memory SQLite database, which no other process can open, always does).
- `celery`: Celery with a Redis broker; workers on many machines (assessments/worker.py), a
  `cpu` and a `cuda` queue, late acknowledgement so a killed worker's job goes to another.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import queue as _queue
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from flask import Flask, current_app

from . import grading, metrics

log = logging.getLogger(__name__)


class LocalQueue:
    """Worker threads fed from an in-process queue, each handing its submission to a grading
    process of the pool (or grading it in the thread itself, without processes)."""

    name = "local"
    # A submission whose grading process died is handed to a fresh pool this many times; then it
    # stays `running` for the recovery at the next start (its claim makes it end `failed` there
    # after grading.MAX_ATTEMPTS).
    POOL_RETRIES = 2

    def __init__(self, app: Flask, workers: int, processes: bool = True):
        self.app, self.workers = app, max(1, workers)
        self.processes = processes and not _in_memory(app.config["SQLALCHEMY_DATABASE_URI"])
        self._jobs: _queue.Queue[int | None] = _queue.Queue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._recovered = False
        self._pool: ProcessPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self._stopped = False

    def start(self) -> None:
        """Start the workers and queue again what a previous run left unfinished (once)."""
        if self._recovered:  # every request calls this: no lock once started
            return
        with self._lock:
            if self._recovered:
                return
            try:
                with self.app.app_context():
                    from extensions import db
                    pending = grading.pending_ids(db.engine)
            except Exception:  # no database yet (before `flask db upgrade`): try again later
                log.exception("could not read unfinished submissions")
                return
            self._recovered = True
            for sub_id, _backend in pending:
                self._jobs.put(sub_id)
            for i in range(self.workers):
                thread = threading.Thread(target=self._work, name=f"grader-{i}", daemon=True)
                thread.start()
                self._threads.append(thread)

    def enqueue(self, submission_id: int, backend: str) -> None:
        self.start()
        self._jobs.put(submission_id)

    def problem(self) -> str | None:
        """Why grading cannot proceed now, or None (for /healthz)."""
        alive = sum(thread.is_alive() for thread in self._threads)
        if alive < self.workers:
            return f"{alive} of {self.workers} grading workers running"
        return None

    def _new_pool(self) -> ProcessPoolExecutor:
        # spawn: the web process has threads, and a forked copy of their locks could hang.
        return ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=grading.warm_up)

    def _current_pool(self) -> ProcessPoolExecutor:
        """The pool, started with the first submission to grade (a service that grades nothing
        starts no process)."""
        with self._pool_lock:
            if self._stopped:
                raise RuntimeError("the grading queue is stopping")
            if self._pool is None:
                self._pool = self._new_pool()
            return self._pool

    def _renew_pool(self, broken: ProcessPoolExecutor) -> None:
        with self._pool_lock:
            if self._pool is broken:        # the other workers may have renewed it already
                broken.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()

    def _grade_in_pool(self, sub_id: int) -> None:
        url = self.app.config["SQLALCHEMY_DATABASE_URI"]
        options = self.app.config.get("JUDGE_OPTIONS")
        for _ in range(self.POOL_RETRIES):
            pool = self._current_pool()
            try:
                _status, stored = pool.submit(grading.grade_in_process, url, sub_id, options).result()
            except BrokenProcessPool:
                log.error("a grading process died grading submission %s; grading it again", sub_id)
                self._renew_pool(pool)
                continue
            if stored is not None:
                metrics.graded(*stored)
            return

    def stop(self, timeout: float | None = 30, drain: bool = True) -> None:
        """Stop the workers after the queued work (`drain`) or after their current grade; work
        left queued stays `queued` in the database and is recovered at the next start."""
        if not drain:
            while True:
                try:
                    self._jobs.get_nowait()
                except _queue.Empty:
                    break
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads.clear()
        with self._pool_lock:
            self._stopped = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=drain, cancel_futures=not drain)

    def _work(self) -> None:
        while True:
            sub_id = self._jobs.get()
            if sub_id is None:
                return
            try:
                if self.processes:
                    self._grade_in_pool(sub_id)
                    continue
                with self.app.app_context():
                    from extensions import db
                    grading.grade(db.engine, sub_id,
                                  judge_options=self.app.config.get("JUDGE_OPTIONS"))
            except Exception:  # keep the worker alive; the row stays pending for recovery
                log.exception("local grader failed on submission %s", sub_id)


class CeleryQueue:
    """Hands each submission to Celery; the routing key is the backend's queue."""

    name = "celery"

    def __init__(self, app: Flask):
        from .worker import make_celery

        self.celery = make_celery(app.config)

    def start(self) -> None:
        """Celery workers recover on their own (late acknowledgement, visibility timeout)."""

    def enqueue(self, submission_id: int, backend: str) -> None:
        self.celery.send_task("kernelpath.grade", args=[submission_id], queue=backend)

    def stop(self, timeout: float | None = None, drain: bool = True) -> None:
        """Nothing runs in this process."""


def _in_memory(url: str) -> bool:
    return url.startswith("sqlite") and (url.rstrip("/") in ("sqlite:", "sqlite:/", "sqlite://")
                                         or ":memory:" in url or "mode=memory" in url)


def default_workers() -> int:
    """One judge child per core, keeping one core for the web process on bigger machines."""
    cores = os.cpu_count() or 1
    return cores if cores <= 2 else cores - 1


def init_app(app: Flask) -> None:
    engine = app.config.get("GRADING_QUEUE", "local")
    if engine == "celery":
        app.extensions["grading_queue"] = CeleryQueue(app)
    elif engine == "local":
        workers = int(app.config.get("GRADING_WORKERS") or default_workers())
        app.extensions["grading_queue"] = LocalQueue(app, workers,
                                                     bool(app.config.get("GRADING_PROCESSES", True)))
    else:
        raise ValueError(f"GRADING_QUEUE must be 'local' or 'celery', not {engine!r}")

    @app.before_request
    def _start_workers():
        app.extensions["grading_queue"].start()


def enqueue(submission_id: int, backend: str) -> None:
    current_app.extensions["grading_queue"].enqueue(submission_id, backend)
