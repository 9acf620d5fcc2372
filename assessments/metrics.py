"""Grading metrics for Prometheus: how long grades take and which verdicts they end in.

Recorded where a grade is stored (grading.grade), so the local engine's threads and Celery
workers count alike. The web service shows them at /metrics (web/ops.py); a Celery worker
shows its own on WORKER_METRICS_ADDR. With PROMETHEUS_MULTIPROC_DIR set, each process writes
its figures to files there and a scrape adds them up (gunicorn workers, Celery's prefork
children); the directory must exist, belong to one service and start empty.
"""
from __future__ import annotations

import logging
import os

from prometheus_client import (REGISTRY, CollectorRegistry, Counter, Histogram,
                               disable_created_metrics, multiprocess)

log = logging.getLogger(__name__)
disable_created_metrics()  # a `_created` series beside every counter and histogram: noise here

_LABELS = ("task", "backend", "kind")
# A grade is a sandboxed compile plus several test runs: about a second to minutes.
GRADING_SECONDS = Histogram(
    "kernelpath_grading_duration_seconds", "Wall time of one grade, from claim to stored result.",
    _LABELS, buckets=(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600))
VERDICTS = Counter(
    "kernelpath_grading_verdicts_total", "Grades stored, by verdict ('failed': the grading broke).",
    (*_LABELS, "verdict"))


def graded(job: dict, values: dict, seconds: float) -> None:
    """Count one stored grade; never lets a metrics problem reach grading."""
    try:
        labels = (job["task"], job["backend"], job["kind"])
        GRADING_SECONDS.labels(*labels).observe(seconds)
        VERDICTS.labels(*labels, values.get("verdict") or values["status"]).inc()
    except Exception:
        log.exception("could not record the grading metrics")


def registry(*extra) -> CollectorRegistry:
    """What one scrape shows: every process's figures (multiprocess mode) or this process's,
    plus the `extra` collectors."""
    found = CollectorRegistry(auto_describe=False)
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    found.register(multiprocess.MultiProcessCollector(None, path=directory) if directory
                   else REGISTRY)
    for collector in extra:
        found.register(collector)
    return found


def serve_worker_metrics() -> None:
    """In a Celery worker, serve /metrics on WORKER_METRICS_ADDR ("host:port"; unset: none)."""
    address = os.environ.get("WORKER_METRICS_ADDR") or os.environ.get(
        "KERNELPATH_WORKER_METRICS_ADDR")
    if not address:
        return
    from celery import signals
    from prometheus_client import start_http_server

    host, _, port = address.rpartition(":")

    # The pool's children grade; the main process answers scrapes, once the worker is up.
    @signals.worker_ready.connect(weak=False)
    def _serve(**_):
        start_http_server(int(port), addr=host or "127.0.0.1", registry=registry())
