"""Grade one submission by id: claim it, judge it, store one final status.

Runs in the web process (local queue) and in Celery workers on other machines, so it needs
only SQLAlchemy, the database driver, the judge and prometheus_client (assessments/metrics.py):
no Flask, no models. `SUBMISSIONS` mirrors the columns of `assessments.models.Submission` it
touches (a test keeps them in step).

Exactly one final status: every grading attempt takes a fresh claim; only the holder of the
latest claim may write the result, so a worker presumed dead that wakes up later changes
nothing, and a submission whose attempts all died ends `failed` rather than running forever.
"""
from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, Integer, MetaData, String, Table,
                        Text, select, update)
from sqlalchemy.engine import Engine

from . import engines, metrics

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3
REPORT_TEXT_CAP = 8 * 1024

_meta = MetaData()
SUBMISSIONS = Table(
    "submissions", _meta,
    Column("id", Integer, primary_key=True),
    Column("kind", String(12)),
    Column("task", String(80)),
    Column("backend", String(10)),
    Column("language", String(12)),
    Column("source", Text),
    Column("status", String(10)),
    Column("attempts", Integer),
    Column("claim", String(32)),
    Column("verdict", String(32)),
    Column("score", Float),
    Column("message", Text),
    Column("report", JSON),
    Column("device", String(120)),
    Column("median_ms", Float),
    Column("leaderboard_eligible", Boolean),
    Column("started_at", DateTime),
    Column("finished_at", DateTime),
)
PENDING = ("queued", "running")


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def claim(engine: Engine, submission_id: int) -> dict | None:
    """Take the submission for this attempt; None when it is final already (nothing to do)."""
    token = secrets.token_hex(16)
    t = SUBMISSIONS.c
    with engine.begin() as conn:
        taken = conn.execute(
            update(SUBMISSIONS)
            .where(t.id == submission_id, t.status.in_(PENDING))
            .values(status="running", claim=token, attempts=t.attempts + 1, started_at=_now())
        ).rowcount
        if not taken:
            return None
        row = conn.execute(select(t.id, t.kind, t.task, t.backend, t.language, t.source, t.attempts)
                           .where(t.id == submission_id)).mappings().one()
    return dict(row, claim=token)


def finish(engine: Engine, submission_id: int, token: str, **values) -> bool:
    """Write a final status if this attempt still holds the claim; True when it did."""
    t = SUBMISSIONS.c
    with engine.begin() as conn:
        return bool(conn.execute(
            update(SUBMISSIONS)
            .where(t.id == submission_id, t.claim == token, t.status == "running")
            .values(finished_at=_now(), claim=None, **values)
        ).rowcount)


def _result_columns(report) -> dict:
    timing = report.timing
    eligible = bool(timing and timing.leaderboard_eligible)
    return {
        "status": "done",
        "verdict": report.verdict.value,
        "score": float(report.score),
        "message": report.message[:REPORT_TEXT_CAP],
        "report": report.to_dict(candidate_view=True),
        "device": timing.device if timing else None,
        "median_ms": timing.median_ms if timing else None,
        "leaderboard_eligible": eligible,
    }


def grade(engine: Engine, submission_id: int, *, judge_options: dict | None = None,
          record: Callable[[dict, dict, float], None] = metrics.graded) -> str | None:
    """Grade one submission; returns the final status it was given, or None if another attempt
    owns it or it was final already. Never raises for a problem of the submission or the judge.
    `record` counts the stored grade (metrics.graded; a grading process hands it back instead)."""
    job = claim(engine, submission_id)
    if job is None:
        return None
    if job["attempts"] > MAX_ATTEMPTS:
        done = finish(engine, submission_id, job["claim"], status="failed",
                      message=f"grading was interrupted {MAX_ATTEMPTS} times (the worker stopped); "
                              "it was not retried again: submit once more")
        return "failed" if done else None
    started = time.monotonic()
    try:
        from assessments.judge import judge

        suite = "samples" if job["kind"] == "run" else "tests"
        language = {"language": job["language"]} if job.get("language") else {}
        report = judge(job["task"], job["source"], backend=job["backend"], suite=suite,
                       **language, **(judge_options or {}))
        values = _result_columns(report)
    except Exception as exc:  # a final status even when the judge itself breaks
        log.exception("grading submission %s failed", submission_id)
        values = {"status": "failed", "message": f"grading failed: {type(exc).__name__}: {exc}"[:2000]}
    if not finish(engine, submission_id, job["claim"], **values):
        return None
    record(job, values, time.monotonic() - started)
    return values["status"]


def grade_in_process(database_url: str, submission_id: int,
                     judge_options: dict | None = None) -> tuple[str | None, tuple | None]:
    """`grade` in a grading process of the local queue: (the final status, what the parent
    records in its metrics: the job's labels, the verdict or status, the seconds)."""
    stored: list[tuple] = []

    def keep(job: dict, values: dict, seconds: float) -> None:
        labels = {k: job[k] for k in ("task", "backend", "kind")}
        stored.append((labels, {k: values.get(k) for k in ("status", "verdict")}, seconds))

    status = grade(engines.engine_for(database_url), submission_id, judge_options=judge_options,
                   record=keep)
    return status, (stored[0] if stored else None)


def warm_up() -> None:
    """A grading process's start: it ends with the service, and the judge is imported before the
    first submission arrives."""
    follow_parent()
    import assessments.judge  # noqa: F401


def follow_parent(poll_s: float = 1.0) -> None:
    """End this process soon after its parent, however the parent ended. A pool's workers wait on
    a queue whose write end they hold themselves, so a service killed with SIGKILL would leave
    them waiting for ever; an orphan is adopted by another process, which changes its parent id.
    (A grade under way is lost with the service anyway: its claim sends it to the next start.)"""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(0)

    threading.Thread(target=watch, name="follow-parent", daemon=True).start()


def pending_ids(engine: Engine) -> list[tuple[int, str]]:
    """(id, backend) of every submission not yet final, oldest first (for recovery at start-up)."""
    t = SUBMISSIONS.c
    with engine.connect() as conn:
        return [(r.id, r.backend) for r in conn.execute(
            select(t.id, t.backend).where(t.status.in_(PENDING)).order_by(t.id))]
