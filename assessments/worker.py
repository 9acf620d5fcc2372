"""Celery workers for grading at scale: `celery -A assessments.worker worker -Q cpu` (or `-Q cuda`).

A worker needs the judge's dependencies, SQLAlchemy and the database driver, nothing of the
web service. It reads DATABASE_URL, CELERY_BROKER_URL, CELERY_VISIBILITY_TIMEOUT (seconds) and
CELERY_KEY_PREFIX from the environment (each also with a KERNELPATH_ prefix).
Late acknowledgement plus `reject_on_worker_lost`: a worker killed mid-grade leaves its
message unacknowledged, and Redis hands it to another worker once the visibility timeout
passes; grading.grade's claims make the second attempt the only one that may finish.
"""
from __future__ import annotations

import os
from collections.abc import Mapping

from celery import Celery

import settings

from . import engines, grading, metrics

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
# Longer than the slowest grade (the judge's wall limits plus a GPU lock wait), so a healthy
# worker's job is never handed out twice.
DEFAULT_VISIBILITY_TIMEOUT_S = 3600


def _setting(config: Mapping, key: str, default=None):
    return config.get(key) or os.environ.get(key) or os.environ.get("KERNELPATH_" + key) or default


def _restore_sweep(visibility_s: int) -> dict:
    """Kombu's sweep for messages a dead worker left unacknowledged runs every interval x
    throttle seconds (10 x 10 by default, whatever the visibility timeout): a tenth of the
    timeout here, between 1 and 100 s, so a short timeout hands work on soon after it passes."""
    period = min(max(visibility_s // 10, 1), 100)
    interval = min(period, 10)
    return {"unacked_restore_interval": interval, "unacked_restore_throttle": max(period // interval, 1)}


def make_celery(config: Mapping | None = None) -> Celery:
    config = config or {}
    broker = _setting(config, "CELERY_BROKER_URL", DEFAULT_BROKER)
    visibility = int(_setting(config, "CELERY_VISIBILITY_TIMEOUT", DEFAULT_VISIBILITY_TIMEOUT_S))
    transport = {"visibility_timeout": visibility, **_restore_sweep(visibility)}
    prefix = _setting(config, "CELERY_KEY_PREFIX")
    if prefix:  # several installations (or test runs) sharing one Redis keep apart
        transport["global_keyprefix"] = prefix
    app = Celery("kernelpath", broker=broker)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_default_queue="cpu",
        broker_transport_options=transport,
        broker_connection_retry_on_startup=True,
        task_ignore_result=True,
    )
    return app


celery = make_celery()
metrics.serve_worker_metrics()  # on WORKER_METRICS_ADDR when set


def _database():
    url = os.environ.get("DATABASE_URL") or os.environ.get("KERNELPATH_SQLALCHEMY_DATABASE_URI")
    if not url:
        raise RuntimeError("set DATABASE_URL to the service's database for the grading worker")
    return engines.engine_for(settings.normalise_database_url(url))


@celery.task(name="kernelpath.grade")
def grade(submission_id: int) -> str | None:
    return grading.grade(_database(), int(submission_id))
