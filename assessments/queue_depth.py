"""What a scrape of /metrics shows (web/ops.py serves it): the grading metrics of every process
(assessments/metrics.py) and the depth of the grading queue, counted at scrape time."""
from __future__ import annotations

import logging

from flask import current_app
from prometheus_client import CollectorRegistry
from prometheus_client.core import GaugeMetricFamily
from sqlalchemy import func, select

from extensions import db

from . import metrics
from .grading import PENDING, SUBMISSIONS

log = logging.getLogger(__name__)


def scrape_registry() -> CollectorRegistry:
    return metrics.registry(QueueDepth())


class QueueDepth:
    """Submissions and runs waiting or being graded, counted at scrape time from the database
    (the one place both engines share), by status, kind and backend."""

    def collect(self):
        family = GaugeMetricFamily("kernelpath_grading_queue_depth",
                                   "Submissions and runs not yet graded.",
                                   labels=("status", "kind", "backend"))
        t = SUBMISSIONS.c
        try:
            with db.engine.connect() as conn:
                rows = conn.execute(select(t.status, t.kind, t.backend, func.count())
                                    .where(t.status.in_(PENDING))
                                    .group_by(t.status, t.kind, t.backend)).all()
        except Exception as exc:  # the other metrics still count; /healthz says what is wrong
            log.warning("queue depth unavailable: %r", exc)
            return
        counts = {(s, k, b): n for s, k, b, n in rows}
        # Zeros for the usual series, so a drained queue reads 0 rather than vanishing.
        for backend in str(current_app.config.get("GRADING_BACKENDS") or "cpu").split(","):
            for status in PENDING:
                for kind in ("submission", "run"):
                    counts.setdefault((status, kind, backend.strip()), 0)
        for labels, count in sorted(counts.items()):
            family.add_metric(list(labels), count)
        yield family
