"""The grading queue: one interface, two engines.

- `local` (default): worker threads inside the service, sized to the machine. Each judge run
  is a sandboxed child process, so threads are enough. The first request after start-up
  queues again whatever a crash left `queued` or `running`: killing the service loses nothing.
  One service process per database: two local engines would each re-grade the other's work.
- `celery`: Celery with a Redis broker; workers on many machines (assessments/worker.py), a
  `cpu` and a `cuda` queue, late acknowledgement so a killed worker's job goes to another.
"""
from __future__ import annotations

import logging
import os
import queue as _queue
import threading

from flask import Flask, current_app

from . import grading

log = logging.getLogger(__name__)


class LocalQueue:
    """Worker threads fed from an in-process queue."""

    name = "local"

    def __init__(self, app: Flask, workers: int):
        self.app, self.workers = app, max(1, workers)
        self._jobs: _queue.Queue[int | None] = _queue.Queue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._recovered = False

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

    def _work(self) -> None:
        while True:
            sub_id = self._jobs.get()
            if sub_id is None:
                return
            try:
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
        app.extensions["grading_queue"] = LocalQueue(app, workers)
    else:
        raise ValueError(f"GRADING_QUEUE must be 'local' or 'celery', not {engine!r}")

    @app.before_request
    def _start_workers():
        app.extensions["grading_queue"].start()


def enqueue(submission_id: int, backend: str) -> None:
    current_app.extensions["grading_queue"].enqueue(submission_id, backend)
